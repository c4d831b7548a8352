/** `sft --weights-only --f16`: a base at half the size whose weights load as the rounded f32 values; --f16 alone is refused. */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './harness';
import { main } from '../../src/cli/main';
import { decodeCheckpoint, splitCheckpoint } from '../../src/model/checkpoint';
import { layoutParams } from '../../src/model/config';
import { floatToHalfBits, halfBitsToFloat } from '../../src/util/half-float';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'magic-sft-f16-'));
const config = join(dir, 'tiny.json');
writeFileSync(config, JSON.stringify({
  model: { vocabSize: 24, contextLength: 64, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true },
  difficulty: 1, trainSize: 30, testSize: 8, batch: 4, lr: 5e-3, evalK: 1, evalProblems: 2, evalMaxResponseLength: 8, steps: 3,
}));

describe('sft --f16', () => {
  it('writes the same warm start as --weights-only, each weight rounded to the nearest half, its data in half the bytes', async () => {
    const f32 = join(dir, 'b32.mlck');
    const f16 = join(dir, 'b16.mlck');
    for (const [out, extra] of [[f32, []], [f16, ['--f16']]] as const) {
      const r = await run('sft', '--config', config, '--out', out, '--weights-only', ...extra, '--backend', 'wasm', '--threads', '1');
      expect(r.code, r.err).toBe(0);
    }
    const a = decodeCheckpoint(readFileSync(f32));
    const b = decodeCheckpoint(readFileSync(f16));
    expect(a.weightsDtype).toBeUndefined();
    expect(b.weightsDtype).toBe('f16');
    expect(b.adam).toBeUndefined();
    expect(Array.from(b.params)).toEqual(Array.from(a.params, (x) => halfBitsToFloat(floatToHalfBits(x))));
    expect(b.meta.kind).toBe('magic-lab-base');
    // The data section holds 2 bytes per weight instead of 4.
    expect(splitCheckpoint(readFileSync(f32)).data.length).toBe(4 * layoutParams(a.model).count);
    expect(splitCheckpoint(readFileSync(f16)).data.length).toBe(2 * layoutParams(a.model).count);
  });

  it('--f16 without --weights-only is one line, exit 2, and writes nothing', async () => {
    const out = join(dir, 'none.mlck');
    const r = await run('sft', '--config', config, '--out', out, '--f16', '--backend', 'wasm', '--threads', '1');
    expect(r.code).toBe(2);
    expect(r.errLines).toEqual(['magic-lab sft: --f16 stores a weights-only base: add --weights-only']);
    expect(() => statSync(out)).toThrow();
  });
});
