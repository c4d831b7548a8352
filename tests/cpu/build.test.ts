/**
 * The committed kernel module (src/cpu/kernels.wasm.ts) is what the AssemblyScript sources
 * compile to, and the interpreter's opcodes agree with src/cpu/ops.ts.
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module without type declarations
import { buildKernels } from '../../scripts/build-wasm.mjs';
import { KERNELS_SINGLE, KERNELS_THREADS } from '../../src/cpu/kernels.wasm';
import { NORM_CHUNK, OP } from '../../src/cpu/ops';
import { CpuRuntime, moduleOpcodes } from '../../src/cpu/runtime';

describe('CPU kernel module', () => {
  it('the committed bytes match a fresh compile of src/cpu/assembly (run npm run build:wasm after editing it)', async () => {
    const k = (await buildKernels()) as { threads: Uint8Array; single: Uint8Array };
    expect(Buffer.from(k.threads).toString('base64') === KERNELS_THREADS, 'threads build differs from src/cpu/kernels.wasm.ts').toBe(true);
    expect(Buffer.from(k.single).toString('base64') === KERNELS_SINGLE, 'single build differs from src/cpu/kernels.wasm.ts').toBe(true);
  }, 120_000);

  it('opcodes and constants agree between the module and src/cpu/ops.ts, in both builds', async () => {
    for (const build of ['threads', 'single'] as const) {
      const rt = await CpuRuntime.create({ threads: 1, build });
      try {
        expect(moduleOpcodes(rt)).toEqual({ ...OP });
        expect((rt.exports.NORM_CHUNK as WebAssembly.Global).value).toBe(NORM_CHUNK);
        expect(rt.memory.buffer instanceof SharedArrayBuffer).toBe(build === 'threads');
      } finally {
        rt.destroy();
      }
    }
  });
});
