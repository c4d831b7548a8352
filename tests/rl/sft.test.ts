/** Supervised warm start: loss falls, the checkpoint is a base, and a saved warm start continues exactly. */
import { webgpuBackend } from '../../src/model/gpu-engine';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/model/checkpoint';
import { wasmBackend } from '../../src/model/cpu-policy';
import type { Backend } from '../../src/model/engine';
import { DivergenceError } from '../../src/rl/divergence';
import { runSft, SFT_MAX_NONFINITE, sftLearningRate, validateSftConfig, type SftState } from '../../src/rl/sft';
import { gpu } from '../gpu/harness';
import { interceptUpdates } from '../update-hook';

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
    const res = await runSft(webgpuBackend(rt), { ...TINY, steps: 30 }, { onStep: (p) => losses.push(p.loss) });
    const first = losses.slice(0, 5).reduce((a, b) => a + b) / 5;
    const last = losses.slice(-5).reduce((a, b) => a + b) / 5;
    expect(last).toBeLessThan(first * 0.8);
    const ck = decodeCheckpoint(res.checkpoint);
    expect(ck.meta.kind).toBe('magic-lab-base');
    expect(ck.meta.eval).toHaveProperty('val/avg@1/t1.0');
    expect(ck.adam).toBeDefined();
  });

  it('on the CPU engine, packed rows train the same weights and losses bit for bit as rows × T, on fewer positions', async () => {
    const backend = await wasmBackend({ threads: 2 });
    try {
      const run = async (packed: boolean) => {
        let positions = 0;
        const padding: Backend = {
          ...backend,
          createPolicy: async (cfg, name, opts) => {
            const p = await backend.createPolicy(cfg, name, opts);
            if (!packed) Object.defineProperty(p, 'packedRows', { value: false });
            return p;
          },
        };
        const counted = interceptUpdates(padding, (_, update, batch, loss, o) => {
          positions += batch.tokens.length;
          return update(batch, loss, o);
        });
        const losses: number[] = [];
        const res = await runSft(counted, { ...TINY, steps: 6, difficulty: 2 }, { onStep: (p) => losses.push(p.loss) });
        return { positions, losses, params: res.params };
      };
      const [padded, packed] = [await run(false), await run(true)];
      expect(packed.positions).toBeLessThan(padded.positions);
      expect(packed.losses).toEqual(padded.losses);
      expect(Buffer.from(packed.params.buffer).equals(Buffer.from(padded.params.buffer))).toBe(true);
    } finally {
      backend.destroy();
    }
  });

  it('in micro-batches (microBatchRows) it trains the same weights up to float summation order, in smaller calls', async () => {
    const backend = await wasmBackend({ threads: 2 });
    try {
      const run = async (microBatchRows: number | null) => {
        const rows: number[] = [];
        const counted = interceptUpdates(backend, (_, update, batch, loss, o) => {
          rows.push(batch.rows);
          return update(batch, loss, o);
        });
        const losses: number[] = [];
        const res = await runSft(counted, { ...TINY, steps: 4, microBatchRows }, { onStep: (p) => losses.push(p.loss) });
        return { rows, losses, params: res.params };
      };
      const [whole, micro] = [await run(null), await run(3)];
      expect(whole.rows).toEqual([8, 8, 8, 8]);
      // 8 rows in calls of 3, 3 and 2 (packed rows: the last call has only its own rows).
      expect(micro.rows).toEqual([3, 3, 2, 3, 3, 2, 3, 3, 2, 3, 3, 2]);
      // Tied embeddings take the head's and the embedding's gradients in another order across calls, so not bit for bit.
      let d = 0;
      for (let i = 0; i < whole.params.length; i++) d = Math.max(d, Math.abs(micro.params[i] - whole.params[i]));
      expect(d).toBeLessThan(1e-5);
      micro.losses.forEach((l, i) => expect(Math.abs(l - whole.losses[i])).toBeLessThan(1e-5 * whole.losses[i]));
    } finally {
      backend.destroy();
    }
  });

  it('2 steps + resume + 2 steps gives the same weights as 4 steps (through the lr anneal)', async () => {
    const rt = await gpu();
    const cfg = { ...TINY, steps: 4, lrDecayStart: 1, lrFinal: 1e-3 };
    const straight = await runSft(webgpuBackend(rt), cfg);
    let snap: Uint8Array | null = null;
    await runSft(webgpuBackend(rt), { ...cfg, evalEvery: 2 }, { onSnapshot: (step, bytes) => step === 2 && (snap = bytes) });
    expect(snap).not.toBeNull();
    const resumed = await runSft(webgpuBackend(rt), cfg, {}, snap!);
    expect(Array.from(resumed.params)).toEqual(Array.from(straight.params));
    // The anneal changes the result: a constant-lr run ends elsewhere.
    const constant = await runSft(webgpuBackend(rt), { ...TINY, steps: 4 });
    expect(Array.from(constant.params)).not.toEqual(Array.from(straight.params));
  });

  it('a weights-only checkpoint continues the data stream and the step with fresh AdamW moments, bias-corrected from the restart', async () => {
    const backend = await wasmBackend({ threads: 1 });
    try {
      const cfg = { ...TINY, steps: 6 };
      const straight = await runSft(backend, cfg);
      let snap: Uint8Array | null = null;
      await runSft(backend, { ...cfg, evalEvery: 3 }, { onSnapshot: (step, bytes) => step === 3 && (snap = bytes) });
      const c = decodeCheckpoint(snap!, 'snap');
      // What sft --weights-only writes: the weights and the meta (config, step, data stream), no moments.
      const weightsOnly = encodeCheckpoint({ model: c.model, params: c.params, meta: c.meta });
      const steps: number[] = [];
      const one = await runSft(backend, { ...cfg, steps: 4 }, { onStep: (p) => steps.push(p.step) }, weightsOnly);
      expect(steps).toEqual([4]);
      // AdamW's first step from fresh moments (t = 1) moves each weight by lr·g/(|g| + ε) after the decay: lr for
      // almost every weight. Counted from the run's start (t = 4) it would be 0.58·lr, at t ≈ 2000 about 3·lr.
      const full = validateSftConfig(cfg);
      const lr = sftLearningRate(full, 4);
      let moved = 0;
      // (Weights without decay, the norms' gains among them, move by the Adam term alone.)
      for (let i = 0; i < c.params.length; i++) moved = Math.max(moved, Math.min(Math.abs(one.params[i] - c.params[i] * (1 - lr * full.weightDecay)), Math.abs(one.params[i] - c.params[i])));
      expect(moved).toBeGreaterThan(0.999 * lr);
      expect(moved).toBeLessThan(1.001 * lr);
      // To the end: the same data stream as the straight run (its generator's state), the restart recorded, other weights.
      const rest = await runSft(backend, cfg, {}, weightsOnly);
      const [a, b] = [decodeCheckpoint(straight.checkpoint, 'a').meta.sftState, decodeCheckpoint(rest.checkpoint, 'b').meta.sftState] as SftState[];
      expect(b.step).toBe(6);
      expect(b.rngState).toBe(a.rngState);
      expect(a.adamStart).toBeUndefined();
      expect(b.adamStart).toBe(3);
      expect(Array.from(rest.params)).not.toEqual(Array.from(straight.params));
      // A full snapshot of the continued run resumes with the restart's t, exactly: 3 + (1 + 2) = 6 steps.
      let snap5: Uint8Array | null = null;
      await runSft(backend, { ...cfg, evalEvery: 5 }, { onSnapshot: (step, bytes) => step === 5 && (snap5 = bytes) }, weightsOnly);
      const last = await runSft(backend, cfg, {}, snap5!);
      expect(Array.from(last.params)).toEqual(Array.from(rest.params));
    } finally {
      backend.destroy();
    }
  });

  it('stops after SFT_MAX_NONFINITE non-finite steps in a row, naming the step and the quantity', async () => {
    const cpu = await wasmBackend({ threads: 1 });
    // Updates from the 3rd on come back rejected with a NaN loss (as the engine answers a NaN step); the 2nd too, alone.
    const failing = interceptUpdates(cpu, async (call, update, b, loss, o) =>
      call === 2 || call >= 4 ? { ...(await update(b, loss, { ...o, update: false })), loss: NaN, applied: false } : update(b, loss, o),
    );
    const err = (await runSft(failing, { ...TINY, steps: 20 }).catch((e: unknown) => e)) as DivergenceError;
    expect(err).toBeInstanceOf(DivergenceError);
    expect([err.step, err.quantity, err.consecutive]).toEqual([3 + SFT_MAX_NONFINITE, 'loss', SFT_MAX_NONFINITE]);
    cpu.destroy();
  });

  it('holds lr constant, then anneals it linearly to lrFinal at the last step', () => {
    const cfg = { lr: 5e-3, lrFinal: 5e-4, lrDecayStart: 100, lrDecayEnd: 0, steps: 200 };
    expect(sftLearningRate(cfg, 1)).toBe(5e-3);
    expect(sftLearningRate(cfg, 100)).toBe(5e-3);
    expect(sftLearningRate(cfg, 150)).toBeCloseTo(2.75e-3, 12);
    expect(sftLearningRate(cfg, 200)).toBeCloseTo(5e-4, 12);
    expect(sftLearningRate({ ...cfg, lrDecayStart: 0 }, 200)).toBe(5e-3);
    // An anneal that ends early holds lrFinal for the remaining steps.
    expect(sftLearningRate({ ...cfg, lrDecayEnd: 150 }, 125)).toBeCloseTo(2.75e-3, 12);
    expect(sftLearningRate({ ...cfg, lrDecayEnd: 150 }, 150)).toBeCloseTo(5e-4, 12);
    expect(sftLearningRate({ ...cfg, lrDecayEnd: 150 }, 190)).toBeCloseTo(5e-4, 12);
  });

  it('rejects a bad config naming the field', () => {
    expect(() => validateSftConfig({ lr: -1 })).toThrow(/^lr: must be a number in/);
    expect(() => validateSftConfig({ style: { wrongStepRate: 2, verboseRate: 0 } })).toThrow(/^style\.wrongStepRate: must be a probability/);
    expect(() => validateSftConfig({ model: { ...TINY.model, vocabSize: 30 } })).toThrow(/^model\.vocabSize: must be 24/);
    expect(() => validateSftConfig({ steps: 10, lrDecayStart: 10 })).toThrow(/^lrDecayStart: must be an integer in \[0, 9\]/);
    expect(() => validateSftConfig({ steps: 10, lrDecayStart: 4, lrDecayEnd: 4 })).toThrow(/^lrDecayEnd: must be an integer in \[5, 10\]/);
    expect(() => validateSftConfig({ lrFinal: 0 })).toThrow(/^lrFinal: must be a number in/);
    expect(() => validateSftConfig({ batch: 8, microBatchRows: 9 })).toThrow(/^microBatchRows: must be an integer in \[1, 8\]/);
    expect(() => validateSftConfig({ microBatchRows: 0 })).toThrow(/^microBatchRows: must be an integer in \[1, 32\]/);
    expect(() => validateSftConfig({ stepz: 3 } as never)).toThrow(/^stepz: unknown sft config field/);
  });
});
