/**
 * A GPU machine run carries the tracked tree plus `.device/` (npm run device:bundle), 64 MiB in all:
 * the two together stay ≤ 62 MiB. The tree and the bundled CLI are measured here (the CLI is built
 * with esbuild, as the bundle builds it); Node and Dawn, compressed, are the sizes device:bundle
 * recorded for their versions in scripts/device-bundle-sizes.json, which must be this Node's and
 * this webgpu package's, else the bundle is to be rebuilt. Where .device/ exists it is measured too.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleCli, SIZES_FILE, webgpuVersion } from '../../scripts/device-bundle.mjs';
import { isGitCheckout, trackedFiles } from '../../scripts/tree-size';

const ROOT = join(__dirname, '../..');
const MiB = 1024 * 1024;
const LIMIT = 62 * MiB;
const size = (p: string): number => (statSync(p).isDirectory() ? readdirSync(p).reduce((s, f) => s + size(join(p, f)), 0) : statSync(p).size);
const sizes = JSON.parse(readFileSync(SIZES_FILE, 'utf8')) as { node: { version: string; bytes: number }; dawn: { webgpu: string; bytes: number }; vulkan: { bytes: number } };

describe.skipIf(!isGitCheckout(ROOT))('tracked tree + .device/', () => {
  // Another patch release of Node or Dawn is close in size (a 10% margin below); another major is not.
  const exact = sizes.node.version === process.version.slice(1) && sizes.dawn.webgpu === webgpuVersion();
  const margin = exact ? 1 : 1.1;

  it('the recorded Node and Dawn sizes are for this Node major and this webgpu package', () => {
    expect(sizes.node.version.split('.')[0], 'rebuild with npm run device:bundle').toBe(process.version.slice(1).split('.')[0]);
    expect(sizes.dawn.webgpu.split('.').slice(0, 2), 'rebuild with npm run device:bundle').toEqual(webgpuVersion().split('.').slice(0, 2));
  });

  it('fit 62 MiB, the CLI bundled here and now', () => {
    const dir = mkdtempSync(join(tmpdir(), 'device-cli-'));
    try {
      bundleCli(join(dir, 'magic-lab.mjs'));
      const cli = size(join(dir, 'magic-lab.mjs'));
      // The CLI without Playwright (external: only PNG charts and the in-page peers load it) is small.
      expect(cli).toBeGreaterThan(100 * 1024);
      expect(cli).toBeLessThan(4 * MiB);
      const tree = trackedFiles(ROOT).reduce((s, f) => s + f.bytes, 0);
      const run = size(join(ROOT, 'scripts/device-run.sh'));
      const total = tree + margin * (sizes.node.bytes + sizes.dawn.bytes) + sizes.vulkan.bytes + cli + run + 4096;
      expect(total, `tree ${(tree / MiB).toFixed(1)} MiB + bundle ${((total - tree) / MiB).toFixed(1)} MiB`).toBeLessThanOrEqual(LIMIT);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it.skipIf(!existsSync(join(ROOT, '.device/run.sh')))('as built (.device/ present): fit 62 MiB, before run.sh unpacks', () => {
    const unpacked = ['bin', 'node_modules', 'nvidia_icd.json'].map((f) => join(ROOT, '.device', f)).filter(existsSync);
    const built = size(join(ROOT, '.device')) - unpacked.reduce((s, p) => s + size(p), 0);
    const tree = trackedFiles(ROOT).reduce((s, f) => s + f.bytes, 0);
    expect(tree + built).toBeLessThanOrEqual(LIMIT);
  });
});
