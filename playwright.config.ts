import { defineConfig } from '@playwright/test';

// The system Chromium (Debian package) with WebGPU on SwiftShader; no browser download.
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

// Ports can be moved (PW_PREVIEW_PORT, PW_DEV_PORT) so two checkouts can run their specs side by side.
const PREVIEW_PORT = Number(process.env.PW_PREVIEW_PORT ?? 4173);
const DEV_PORT = Number(process.env.PW_DEV_PORT ?? 5173);
export const PREVIEW_URL = `http://127.0.0.1:${PREVIEW_PORT}/`;
export const DEV_URL = `http://127.0.0.1:${DEV_PORT}/`;

export default defineConfig({
  testDir: 'e2e',
  timeout: 180_000,
  workers: 1,
  reporter: [['list']],
  // Visual baselines live next to the specs; update with `npx playwright test --update-snapshots=all`.
  snapshotPathTemplate: '{testDir}/__screenshots__/{testFilePath}/{arg}{ext}',
  expect: { toHaveScreenshot: { maxDiffPixelRatio: 0.0005, animations: 'disabled', caret: 'hide' } },
  use: {
    baseURL: PREVIEW_URL,
    // The built page registers a service worker (public/coi-sw.js) that serves from its cache, where
    // page.route() cannot see the requests: the specs that route or hold back files run without it.
    // e2e/publish.spec.ts allows it, on a plain static server.
    serviceWorkers: 'block',
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', ...CHROMIUM_ARGS] },
  },
  webServer: [
    { command: `npx vite preview --host 127.0.0.1 --port ${PREVIEW_PORT} --strictPort`, url: PREVIEW_URL, reuseExistingServer: false },
    // The README's start command (the dev server) for e2e/start.spec.ts, with React's StrictMode on
    // (VITE_STRICT_MODE=1; off by default for speed, src/ui/main.tsx) so double-effect bugs still fail a spec.
    { command: DEV_PORT === 5173 ? 'npm start -- --strictPort' : `npx vite --host 127.0.0.1 --port ${DEV_PORT} --strictPort`, url: DEV_URL, reuseExistingServer: false, env: { VITE_STRICT_MODE: '1' } },
  ],
});
