#!/usr/bin/env node
/**
 * Makes WebGPU usable for Node-side commands (tests, CLI, benchmarks), then runs one.
 *
 *   node scripts/webgpu-env.mjs [--ensure-only] [command args...]
 *
 * 1. Probes Dawn for an adapter as the machine is. A real GPU needs nothing more.
 * 2. Otherwise makes sure SwiftShader (shipped in Debian's `chromium`) and the Vulkan loader are
 *    installed — installing them when running as root on Debian, else printing the one command
 *    to run — and sets VK_ICD_FILENAMES for the command.
 * Exit code is the command's.
 */
import { spawnSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';

const ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';
const INSTALL = 'apt-get update && apt-get install -y chromium libvulkan1';
const args = process.argv.slice(2);
const ensureOnly = args[0] === '--ensure-only';
const command = ensureOnly ? args.slice(1) : args;

const env = { ...process.env };
// The Vulkan loader prints a harmless error on every start when this is unset.
if (!env.XDG_RUNTIME_DIR) {
  const dir = `/tmp/xdg-runtime-${process.getuid?.() ?? 'user'}`;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  env.XDG_RUNTIME_DIR = dir;
}

function hasLibVulkan() {
  const r = spawnSync('sh', ['-c', 'ldconfig -p 2>/dev/null | grep -q "libvulkan.so.1"'], { stdio: 'ignore' });
  return r.status === 0;
}

function probe(extraEnv) {
  const code = "import('webgpu').then(async ({create}) => { const g = create([]); const a = await g.requestAdapter(); process.stdout.write(a ? 'adapter:' + (a.info?.architecture || a.info?.vendor || 'gpu') : 'none'); process.exit(0); }).catch(e => { process.stdout.write('error:' + e.message); process.exit(0); })";
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return (r.stdout || '').trim();
}

function ensureSwiftShader() {
  if (existsSync(ICD) && hasLibVulkan()) return;
  const isRoot = process.getuid?.() === 0;
  const isDebian = existsSync('/etc/debian_version') && spawnSync('sh', ['-c', 'command -v apt-get'], { stdio: 'ignore' }).status === 0;
  if (isRoot && isDebian) {
    console.error(`[webgpu-env] no GPU adapter and no SwiftShader: installing it (${INSTALL})`);
    const r = spawnSync('sh', ['-c', `${INSTALL.replace('apt-get update', 'apt-get update -qq')} -qq >/dev/null`], {
      stdio: 'inherit',
      env: { ...env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (r.status !== 0 || !existsSync(ICD)) {
      console.error(`[webgpu-env] installing SwiftShader failed; run: ${INSTALL}`);
      process.exit(1);
    }
    return;
  }
  console.error(`[webgpu-env] no WebGPU adapter found and SwiftShader is not installed. Run (as root): ${INSTALL}`);
  process.exit(1);
}

let result = probe({});
if (!result.startsWith('adapter:')) {
  ensureSwiftShader();
  env.VK_ICD_FILENAMES = ICD;
  result = probe({});
  if (!result.startsWith('adapter:')) {
    console.error(`[webgpu-env] still no WebGPU adapter with VK_ICD_FILENAMES=${ICD} (${result})`);
    process.exit(1);
  }
}
if (ensureOnly) {
  // Playwright's Chromium needs the SwiftShader files too, even when Node sees a real GPU.
  ensureSwiftShader();
}
console.error(`[webgpu-env] WebGPU ${result}${env.VK_ICD_FILENAMES ? ` (VK_ICD_FILENAMES=${env.VK_ICD_FILENAMES})` : ''}`);
if (command.length === 0) process.exit(0);
const child = spawn(command[0], command.slice(1), { stdio: 'inherit', env, shell: false });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
