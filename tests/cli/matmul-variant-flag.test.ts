/** `--matmul-variant` on train: parsed into the run options, refused off WebGPU and against a resumed run's recorded variant. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args';
import { checkMatmulVariant, trainOptionsFromFlags } from '../../src/cli/train';
import type { Backend } from '../../src/model/engine';
import { trainRunArgv } from '../../src/run/train-options';

const backend = (name: 'webgpu' | 'wasm') => ({ name, description: name === 'webgpu' ? 'WebGPU on SwiftShader' : 'CPU engine' }) as Backend;

describe('--matmul-variant', () => {
  it('is parsed into the run options and written back by trainRunArgv', () => {
    const o = trainOptionsFromFlags(['--preset', 'magic-tiny', '--matmul-variant', 'tiled64']);
    expect(o.matmulVariant).toBe('tiled64');
    expect(trainRunArgv(o)).toContain('--matmul-variant');
    expect(trainOptionsFromFlags(['--resume', 'runs/x']).matmulVariant).toBeUndefined();
    expect(() => trainOptionsFromFlags(['--matmul-variant', 'tiled32'])).toThrow(UsageError);
  });

  it('a resumed run keeps its recorded variant: asking for another is a usage error, the same one or auto is fine', () => {
    const resume = (v: 'auto' | 'tiled64' | 'blocked4x4') => trainOptionsFromFlags(['--resume', 'runs/x', '--matmul-variant', v]);
    expect(() => checkMatmulVariant(resume('tiled64'), 'blocked4x4', backend('webgpu'))).toThrow(/--matmul-variant tiled64: the run in runs\/x was trained with blocked4x4/);
    expect(() => checkMatmulVariant(resume('blocked4x4'), 'blocked4x4', backend('webgpu'))).not.toThrow();
    expect(() => checkMatmulVariant(resume('auto'), 'tiled64', backend('webgpu'))).not.toThrow();
    // Before the trainer exists the recorded variant is unknown: only the engine is checked.
    expect(() => checkMatmulVariant(resume('tiled64'), undefined, backend('webgpu'))).not.toThrow();
    expect(() => checkMatmulVariant(resume('tiled64'), undefined, backend('wasm'))).toThrow(/only the WebGPU engine/);
  });
});
