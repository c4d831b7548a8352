/**
 * Packing an update batch (src/rl/update-batch.ts): padded (rows G × 2^k of the stage's T) and
 * packed (a row per response, each its own length, back to back) hold the same tokens, and the
 * padding holds no loss token, so on the CPU engine an update gives the same parameters, gradients,
 * AdamW moments and statistics bit for bit — alone, in micro-batches, for π_ref's forward and inside
 * whole runs (tiny presets).
 */
import { describe, expect, it } from 'vitest';
import { validateModelConfig, type ModelConfig } from '../../src/model/config';
import type { CpuPolicy } from '../../src/model/cpu-policy';
import { TRAIN_PLAN_CACHE } from '../../src/model/cpu-policy';
import { rowOffsets, type Backend, type PolicyEngine, type UpdateBatch } from '../../src/model/engine';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { initParams } from '../../src/model/init';
import { type RunConfig } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';
import { accumulatedUpdate, microForwardLogp } from '../../src/rl/micro-batch';
import { PACKED_T_MULTIPLE, packUpdateBatch, type KeptResponse } from '../../src/rl/update-batch';
import { PAD_ID } from '../../src/tasks';
import { Rng } from '../../src/util/rng';
import { freshSeed } from '../cpu/harness';
import { gpu } from '../gpu/harness';
import { ADAMW, cpuBackend, LOSS } from '../model/engines';
import { everyStepGradientConfig, stripPerf } from './trainer-fixtures';

const CFGS: ModelConfig[] = [
  validateModelConfig({ vocabSize: 11, contextLength: 48, nLayers: 2, dModel: 12, nHeads: 3, mlpRatio: 2, norm: 'rmsnorm', tiedEmbeddings: true }),
  validateModelConfig({ vocabSize: 13, contextLength: 48, nLayers: 2, dModel: 8, nHeads: 2, mlpRatio: 3, norm: 'layernorm', tiedEmbeddings: false }),
];

/** `groups` groups of G kept responses: prompts of 1–maxPrompt tokens, responses of 1–maxResponse. */
function keptResponses(rng: Rng, V: number, groups: number, G: number, maxPrompt: number, maxResponse: number): KeptResponse[] {
  const tok = () => 3 + (rng.int(0, 1 << 30) % (V - 3));
  const out: KeptResponse[] = [];
  for (let g = 0; g < groups; g++) {
    const prompt = [1, ...Array.from({ length: rng.int(0, 1 << 30) % maxPrompt }, tok)];
    for (let i = 0; i < G; i++) {
      const response = Array.from({ length: 1 + (rng.int(0, 1 << 30) % maxResponse) }, tok);
      const logp = response.map(() => -0.2 - 2 * rng.next());
      out.push({ roll: { problem: g, prompt, response, truncated: false, reward: i % 2, logp, entropy: logp.map(() => 1), text: '' }, adv: rng.normal() });
    }
  }
  return out;
}

describe('packing a mini-batch', () => {
  it('packed rows hold every token of the padded rows, back to back, and T is the longest row rounded up', () => {
    const seed = freshSeed();
    const rng = new Rng(seed);
    const G = 4;
    const kept = keptResponses(rng, 11, 3, G, 6, 9);
    const mb = [0, 2, 3, 5, 6, 7, 8, 9, 11, 1];
    const T = 6 + 30;
    const opts = { T, groupSize: G, aggregation: 'token-mean' as const, temperature: 1 };
    const padded = packUpdateBatch(kept, mb, opts);
    const packed = packUpdateBatch(kept, mb, { ...opts, packed: true });
    const seqLength = (i: number) => kept[i].roll.prompt.length + kept[i].roll.response.length;
    const longest = Math.max(...mb.map(seqLength));
    const msg = `seed ${seed}`;
    expect(padded.batch.rows, msg).toBe(16);
    expect(padded.batch.T, msg).toBe(T);
    expect(padded.batch.lengths, msg).toBeUndefined();
    expect(packed.batch.rows, msg).toBe(10);
    expect(Array.from(packed.batch.lengths!), msg).toEqual(mb.map(seqLength));
    expect(packed.batch.T, msg).toBe(Math.ceil(longest / PACKED_T_MULTIPLE) * PACKED_T_MULTIPLE);
    expect(packed.batch.T, msg).toBeLessThan(T);
    const offsets = rowOffsets(packed.batch);
    expect(packed.batch.tokens.length, msg).toBe(offsets[10]);
    expect(packed.tokens, msg).toBe(padded.tokens);
    for (let r = 0; r < padded.batch.rows; r++) {
      for (let t = 0; t < T; t++) {
        const p = r * T + t;
        if (r < packed.batch.rows && t < packed.batch.lengths![r]) {
          const e = offsets[r] + t;
          expect([packed.batch.tokens[e], packed.batch.targets[e], packed.batch.mask[e], packed.batch.weights[e], packed.batch.advantages![e], packed.old[e]], `${msg} row ${r} t ${t}`).toEqual([
            padded.batch.tokens[p], padded.batch.targets[p], padded.batch.mask[p], padded.batch.weights[p], padded.batch.advantages![p], padded.old[p],
          ]);
        } else {
          // What packing leaves out is padding: no token, no loss.
          expect([padded.batch.tokens[p], padded.batch.targets[p], padded.batch.mask[p], padded.batch.weights[p]], `${msg} row ${r} t ${t}`).toEqual([PAD_ID, PAD_ID, 0, 0]);
        }
      }
    }
    // The rounded length never passes the stage's T.
    expect(packUpdateBatch(kept, mb, { ...opts, T: longest + 1, packed: true }).batch.T).toBe(longest + 1);
  });

  it('packed rows are checked: each length within T, the arrays Σ lengths long', async () => {
    const cfg = CFGS[0];
    const pol = await (await cpuBackend(1)).createPolicy(cfg, 'checks');
    pol.setParams(initParams(cfg, 3));
    const tokens = Uint32Array.from([3, 4, 5, 6, 7]);
    const batch: UpdateBatch = { rows: 2, T: 3, lengths: Uint32Array.from([2, 4]), temperature: 1, tokens: tokens.slice(0, 5), targets: tokens.slice(0, 5), mask: new Float32Array(5), weights: new Float32Array(5) };
    await expect(pol.update({ ...batch, tokens: tokens.slice(0, 6 - 1) }, { kind: 'ce' }, { step: 1, adamw: ADAMW })).rejects.toThrow(/lengths\[1\] = 4 must be between 1 and T = 3/);
    await expect(pol.forward(tokens, tokens, 2, 4, 1, Uint32Array.from([2, 2]))).rejects.toThrow(/Σ lengths = 4 entries, got 5/);
    pol.destroy();
  });

  it('the WebGPU engine, which has no packed rows, refuses them', async () => {
    const cfg = CFGS[0];
    const backend = webgpuBackend(await gpu());
    const pol = await backend.createPolicy(cfg, 'no-packing');
    pol.setParams(initParams(cfg, 3));
    expect(pol.packedRows).toBeUndefined();
    const tokens = Uint32Array.from([3, 4, 5, 6]);
    const batch: UpdateBatch = { rows: 2, T: 2, lengths: Uint32Array.from([2, 2]), temperature: 1, tokens, targets: tokens, mask: new Float32Array(4), weights: new Float32Array(4) };
    await expect(pol.update(batch, { kind: 'ce' }, { step: 1, adamw: ADAMW })).rejects.toThrow(/takes rows × T, not packed rows/);
    await expect(pol.forward(tokens, tokens, 2, 2, 1, batch.lengths)).rejects.toThrow(/takes rows × T, not packed rows/);
    pol.destroy();
  });
});

/**
 * Packs `mb` both ways and updates a fresh copy of the same policy with each, two AdamW steps
 * (off-policy, KL and entropy terms on): whole, or in micro-batches of `micro` rows; also π_ref's
 * log-probs of the batch in chunks of `micro` rows.
 */
async function updateBothWays(backend: Backend, cfg: ModelConfig, seed: number, micro: number | null) {
  const rng = new Rng(seed);
  const G = 4;
  const kept = keptResponses(rng, cfg.vocabSize, 5, G, 7, 14);
  const mb = Array.from({ length: 18 }, (_, i) => (i * 7) % 20);
  const T = 7 + 40;
  const opts = { T, groupSize: G, aggregation: 'seq-mean-token-mean' as const, temperature: 0.9 };
  const p32 = initParams(cfg, seed);
  for (let i = 0; i < p32.length; i++) p32[i] += 0.2 * rng.normal();
  const out = [];
  for (const packed of [false, true]) {
    const { batch, old } = packUpdateBatch(kept, mb, { ...opts, packed });
    // π_ref: the sampling log-probs shifted, at the same positions (zero elsewhere, as the trainer's forward leaves padding).
    const full: UpdateBatch = { ...batch, oldLogp: old, refLogp: old.map((x, i) => (batch.mask[i] ? x - 0.1 : 0)) };
    const pol = (await backend.createPolicy(cfg, `packed-${packed}`)) as CpuPolicy;
    pol.setParams(p32);
    const ref = await microForwardLogp(pol, batch, micro);
    const stats = [];
    for (let step = 1; step <= 2; step++) stats.push(await accumulatedUpdate(pol, full, { kind: 'grpo', opts: LOSS }, { step, adamw: ADAMW }, micro));
    const adam = await pol.getAdamState();
    // Response positions only, row by row, so both layouts compare.
    const offsets = rowOffsets(batch);
    const responseRef = mb.flatMap((_, r) => Array.from(ref.subarray(offsets[r], offsets[r + 1])).filter((__, t) => batch.mask[offsets[r] + t] !== 0));
    out.push({ shape: [batch.rows, batch.T], params: await pol.getParams(), grads: pol.getGrads(), m: adam.m, v: adam.v, stats, responseRef });
    pol.destroy();
  }
  return out;
}

const bytes = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);

describe('a packed update equals the padded one bit for bit (CPU engine)', () => {
  // 5 threads: more than either model's heads (3, 2), so attention's rows × heads units are split across rows.
  for (const [threads, micro] of [[1, null], [2, null], [3, null], [5, null], [2, 5]] as const) {
    it(`${threads} thread${threads > 1 ? 's' : ''}, ${micro ? `micro-batches of ${micro} rows` : 'whole'}, both model variants`, async () => {
      const backend = await cpuBackend(threads);
      for (const cfg of CFGS) {
        const seed = freshSeed();
        const [padded, packed] = await updateBothWays(backend, cfg, seed, micro);
        const msg = `seed ${seed} ${cfg.norm}`;
        expect(padded.shape, msg).toEqual([32, 47]);
        expect(packed.shape[0], msg).toBe(18);
        expect(packed.shape[1], msg).toBeLessThan(47);
        expect(padded.stats[1].gradNorm, msg).toBeGreaterThan(0);
        expect(padded.stats[0].clipfrac + padded.stats[1].clipfrac, `${msg}: the clip acts`).toBeGreaterThan(0);
        for (const k of ['params', 'grads', 'm', 'v'] as const) expect(bytes(packed[k]).equals(bytes(padded[k])), `${msg} ${k}`).toBe(true);
        expect(packed.stats, msg).toEqual(padded.stats);
        expect(packed.responseRef.length, msg).toBeGreaterThan(18);
        expect(packed.responseRef, `${msg} π_ref`).toEqual(padded.responseRef);
      }
    });
  }

  it('a packed call frees what it records: the allocator ends each call where it began', async () => {
    const cfg = CFGS[1];
    const backend = await cpuBackend(2);
    const pol = (await backend.createPolicy(cfg, 'frees')) as CpuPolicy;
    pol.setParams(initParams(cfg, 9));
    const kept = keptResponses(new Rng(9), cfg.vocabSize, 3, 4, 5, 9);
    const { batch } = packUpdateBatch(kept, Array.from({ length: 12 }, (_, i) => i), { T: 5 + 30, groupSize: 4, aggregation: 'token-mean', temperature: 1, packed: true });
    const heap = () => {
      const { top, free } = backend.rt as unknown as { top: number; free: { off: number; size: number }[] };
      return JSON.stringify({ top, free });
    };
    const call = async (step: number) => {
      await pol.update(batch, { kind: 'grpo', opts: LOSS }, { step, adamw: ADAMW });
      await pol.forward(batch.tokens, batch.targets, batch.rows, batch.T, 1, batch.lengths);
    };
    await call(1);
    const after = heap();
    for (let step = 2; step <= 6; step++) await call(step);
    expect(heap()).toBe(after);
    pol.destroy();
  });

  it('keeps at most TRAIN_PLAN_CACHE shapes recorded, and a dropped shape records again when it returns', async () => {
    const cfg = CFGS[0];
    const pol = (await (await cpuBackend(1)).createPolicy(cfg, 'cache')) as CpuPolicy;
    pol.setParams(initParams(cfg, 5));
    const forwardAt = async (T: number) => {
      const tokens = Uint32Array.from({ length: 2 * T }, (_, i) => 3 + (i % 8));
      return (await pol.forward(tokens, tokens, 2, T, 1)).logp;
    };
    // The arena first, for the largest shape: a larger shape later would re-record every plan.
    pol.reserveTrain(2, 40);
    const first = await forwardAt(3);
    for (let T = 4; T < 4 + TRAIN_PLAN_CACHE + 3; T++) await forwardAt(T);
    expect(pol.trainPlanCount).toBe(TRAIN_PLAN_CACHE);
    expect(bytes(await forwardAt(3)).equals(bytes(first))).toBe(true);
    expect(pol.trainPlanCount).toBe(TRAIN_PLAN_CACHE);
    pol.destroy();
  });
});

/** 3 prompts × G 4, so padding adds rows (12 → 16) whatever the responses' lengths. */
const config = (update: Partial<RunConfig['update']>) => everyStepGradientConfig({ maxResponseLength: 24, batchPrompts: 3 }, update);

/** A run of `steps` on the CPU engine, its policies told to pad (packedRows false) or not; counts the positions updated. */
async function run(cfg: RunConfig, steps: number, packed: boolean) {
  const backend = await cpuBackend(2);
  let positions = 0;
  const spy: Backend = {
    ...backend,
    name: backend.name,
    createPolicy: async (model, name, opts) => {
      const p = await backend.createPolicy(model, name, opts);
      if (!packed) Object.defineProperty(p, 'packedRows', { value: false });
      const update = p.update.bind(p);
      (p as { update: PolicyEngine['update'] }).update = (batch, loss, o) => {
        positions += batch.tokens.length;
        return update(batch, loss, o);
      };
      return p;
    },
  };
  const t = await MagicTrainer.create(spy, cfg);
  const records = [];
  for (let i = 0; i < steps; i++) records.push(stripPerf((await t.trainStep()).record));
  const params = await t.policy.getParams();
  t.destroy();
  return { records, params, positions };
}

describe('a run with packed update batches matches the padded run bit for bit (CPU engine)', () => {
  for (const [label, update] of [
    ['on-policy', {}],
    ['off-policy, 2 mini-batches', { miniBatches: 2 }],
    ['on-policy in micro-batches of 5 rows', { microBatchRows: 5 }],
  ] as const) {
    it(label, async () => {
      const padded = await run(config(update), 3, false);
      const packed = await run(config(update), 3, true);
      expect(padded.records.every((r) => r['actor/grad_norm'] > 0)).toBe(true);
      expect(packed.positions).toBeLessThan(padded.positions);
      expect(packed.records).toEqual(padded.records);
      expect(bytes(packed.params).equals(bytes(padded.params))).toBe(true);
    });
  }
});
