import { defineConfig } from '@playwright/test';

// The system Chromium (Debian package) with WebGPU on SwiftShader; no browser download.
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export default defineConfig({
  testDir: 'e2e',
  timeout: 180_000,
  workers: 1,
  reporter: [['list']],
  // Visual baselines live next to the specs; update with `npx playwright test --update-snapshots=all`.
  snapshotPathTemplate: '{testDir}/__screenshots__/{testFilePath}/{arg}{ext}',
  expect: { toHaveScreenshot: { maxDiffPixelRatio: 0.0005, animations: 'disabled', caret: 'hide' } },
  use: {
    baseURL: 'http://127.0.0.1:4173/',
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', ...CHROMIUM_ARGS] },
  },
  webServer: [
    { command: 'npx vite preview --host 127.0.0.1 --port 4173 --strictPort', url: 'http://127.0.0.1:4173/', reuseExistingServer: false },
    // The README's start command (the dev server, React in StrictMode) for e2e/start.spec.ts.
    { command: 'npm start -- --strictPort', url: 'http://127.0.0.1:5173/', reuseExistingServer: false },
  ],
});
