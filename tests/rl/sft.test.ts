/** Supervised warm start: loss falls, the checkpoint is a base, and a saved warm start continues exactly. */
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../src/model/checkpoint';
import { runSft, validateSftConfig } from '../../src/rl/sft';
import { gpu } from '../gpu/harness';

const TINY = {
  model: { vocabSize: 24, contextLength: 64, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 2, norm: 'rmsnorm' as const, tiedEmbeddings: true },
  difficulty: 1,
  trainSize: 30,
  testSize: 8,
  batch: 8,
  lr: 5e-3,
  evalK: 1,
  evalProblems: 2,
  evalMaxResponseLength: 16,
};

describe('sft', () => {
  it('lowers the loss and writes a base checkpoint with its eval', async () => {
    const rt = await gpu();
    const losses: number[] = [];
    const res = await runSft(rt, { ...TINY, steps: 30 }, { onStep: (p) => losses.push(p.loss) });
    const first = losses.slice(0, 5).reduce((a, b) => a + b) / 5;
    const last = losses.slice(-5).reduce((a, b) => a + b) / 5;
    expect(last).toBeLessThan(first * 0.8);
    const ck = decodeCheckpoint(res.checkpoint);
    expect(ck.meta.kind).toBe('magic-lab-base');
    expect(ck.meta.eval).toHaveProperty('val/avg@1/t1.0');
    expect(ck.adam).toBeDefined();
  });

  it('2 steps + resume + 2 steps gives the same weights as 4 steps', async () => {
    const rt = await gpu();
    const straight = await runSft(rt, { ...TINY, steps: 4 });
    let snap: Uint8Array | null = null;
    await runSft(rt, { ...TINY, steps: 4, evalEvery: 2 }, { onSnapshot: (step, bytes) => step === 2 && (snap = bytes) });
    expect(snap).not.toBeNull();
    const resumed = await runSft(rt, { ...TINY, steps: 4 }, {}, snap!);
    expect(Array.from(resumed.params)).toEqual(Array.from(straight.params));
  });

  it('rejects a bad config naming the field', () => {
    expect(() => validateSftConfig({ lr: -1 })).toThrow(/^lr: must be a number in/);
    expect(() => validateSftConfig({ style: { wrongStepRate: 2, verboseRate: 0 } })).toThrow(/^style\.wrongStepRate: must be a probability/);
    expect(() => validateSftConfig({ model: { ...TINY.model, vocabSize: 30 } })).toThrow(/^model\.vocabSize: must be 24/);
    expect(() => validateSftConfig({ stepz: 3 } as never)).toThrow(/^stepz: unknown sft config field/);
  });
});
