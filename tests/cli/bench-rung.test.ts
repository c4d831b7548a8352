/** `magic-lab bench --rung NAME`: the rung's model, the bench's batch, --config over it; refused with --roofline. */
import { describe, expect, it } from 'vitest';
import { bench, rungBenchConfig } from '../../src/cli/bench';
import type { BenchResult } from '../../src/model/bench-run';
import { rungBaseConfig } from '../../src/rl/config';

describe('bench --rung', () => {
  it('takes each rung\'s policy shape with the default batch', () => {
    for (const rung of ['tiny', 'small', 'medium'] as const) {
      const m = rungBaseConfig(rung).model;
      expect(rungBenchConfig(rung)).toEqual({ vocab: m.vocabSize, ctx: m.contextLength, dModel: m.dModel, layers: m.nLayers, heads: m.nHeads, mlpRatio: m.mlpRatio, batch: 16 });
    }
    expect(rungBenchConfig('small').dModel).toBe(128);
  });

  it('benches the small rung\'s model on the CPU engine, --config batch over it', async () => {
    const lines: string[] = [];
    const r = (await bench(['--rung', 'small', '--config', 'batch=1', '--steps', '1', '--backend', 'wasm', '--threads', '1'], (s) => lines.push(s))) as BenchResult;
    expect(r.params).toBe(828_032);
    expect(r.config).toMatchObject({ ctx: 256, dModel: 128, batch: 1 });
    expect(r.train_step.tokens_per_s).toBeGreaterThan(0);
    expect(lines.some((l) => /^model: vocab=\d+,ctx=256,dModel=128,layers=4/.test(l))).toBe(true);
  });

  it('is refused with --roofline (which measures every rung) and names a bad rung', async () => {
    await expect(bench(['--roofline', '--rung', 'small'], () => {})).rejects.toThrow(/cannot be combined with --rung/);
    await expect(bench(['--rung', 'huge'], () => {})).rejects.toThrow(/--rung/);
  });
});
