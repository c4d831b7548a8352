/**
 * The WebGPU matmul variant of a run (src/model/matmul-choice.ts, src/rl/run-checkpoint.ts): recorded
 * in its checkpoint, and a resume builds with the recorded one — not the cache, not a new timing — so
 * it replays bit for bit; a checkpoint from before the record resumes with the old by-adapter-kind rule.
 */
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint, CheckpointError } from '../../src/model/checkpoint';
import { webgpuBackend } from '../../src/model/gpu-engine';
import { variantByAdapterKind, type VariantCache } from '../../src/model/matmul-choice';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { loadCheckpoint, policyOptionsFor } from '../../src/rl/run-checkpoint';
import { runSft } from '../../src/rl/sft';
import { MagicTrainer } from '../../src/rl/trainer';
import { gpu } from '../gpu/harness';
import { stripPerf } from './trainer-fixtures';

// As tests/rl/trainer.test.ts's replay: every group kept, a constant entropy bonus (every step updates), short responses.
const tiny = getPreset('magic-tiny');
const cfg = validateRunConfig({
  ...tiny,
  stages: [{ maxResponseLength: 6, steps: 3 }],
  rejection: { mode: 'off' },
  loss: { ...tiny.loss, entropy: { ...tiny.loss.entropy, mode: 'constant', constantCoef: 0.05 } },
  update: { ...tiny.update, lr: 1e-2 },
  eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
});

/** A cache that answers `variant` for every key and counts reads. */
function cacheSaying(variant: string) {
  const c = { reads: 0, writes: 0 };
  const cache: VariantCache = {
    get: () => (c.reads++, variant),
    put: () => void c.writes++,
  };
  return { cache, c };
}

const withoutEngineMeta = (bytes: Uint8Array) => {
  const ck = decodeCheckpoint(bytes);
  const { engine: _engine, ...meta } = ck.meta;
  return encodeCheckpoint({ ...ck, meta });
};

describe('the matmul variant of a run', () => {
  it('is recorded in the checkpoint; a resume uses it even when the cache says otherwise, and replays bit for bit', async () => {
    const rt = await gpu();
    const other = variantByAdapterKind(rt.adapter) === 'blocked4x4' ? 'tiled64' : 'blocked4x4';
    const given = webgpuBackend(rt, { matmulVariant: other });
    const a = await MagicTrainer.create(given, cfg);
    expect(a.policy.matmulVariant).toBe(other);
    const straight = [];
    for (let i = 0; i < 2; i++) straight.push(stripPerf((await a.trainStep()).record));
    a.destroy();

    const b = await MagicTrainer.create(given, cfg);
    const resumed = [stripPerf((await b.trainStep()).record)];
    const bytes = await b.saveCheckpoint();
    b.destroy();
    expect(decodeCheckpoint(bytes).meta.engine).toEqual({ matmulVariant: other });
    expect(policyOptionsFor(loadCheckpoint(bytes).meta)).toEqual({ matmulVariant: other });

    const { cache, c } = cacheSaying(variantByAdapterKind(rt.adapter));
    const cached = webgpuBackend(rt, { cache });
    const r = await MagicTrainer.create(cached, getPreset('magic-tiny'), { checkpoint: bytes });
    expect(r.policy.matmulVariant).toBe(other);
    resumed.push(stripPerf((await r.trainStep()).record));
    expect(resumed).toEqual(straight);
    expect(c.reads).toBe(0); // neither the cache nor a timing was asked
    expect(cached.variantTiming()).toBeNull();
    expect(decodeCheckpoint(await r.saveCheckpoint()).meta.engine).toEqual({ matmulVariant: other });
    r.destroy();

    // A checkpoint from before the record resumes with the old rule (software → blocked4x4, else tiled64).
    const old = await MagicTrainer.create(cached, cfg, { checkpoint: withoutEngineMeta(bytes) });
    expect(old.policy.matmulVariant).toBe(variantByAdapterKind(rt.adapter));
    old.destroy();
  });

  it('a new run takes the backend\'s choice: from the cache when it has one, else timed once per device', async () => {
    const rt = await gpu();
    const { cache, c } = cacheSaying('tiled64');
    const t = await MagicTrainer.create(webgpuBackend(rt, { cache }), cfg);
    expect(t.policy.matmulVariant).toBe('tiled64');
    expect(c.reads).toBe(1);
    t.destroy();
  });

  it('meta.engine is checked: an unknown variant or field is one CheckpointError naming it', async () => {
    const rt = await gpu();
    const t = await MagicTrainer.create(webgpuBackend(rt, { matmulVariant: 'blocked4x4' }), cfg);
    const ck = decodeCheckpoint(await t.saveCheckpoint());
    t.destroy();
    const withEngine = (engine: unknown) => encodeCheckpoint({ ...ck, meta: { ...ck.meta, engine } });
    expect(() => loadCheckpoint(withEngine({ matmulVariant: 'tiled128' }), 'run.mlck')).toThrow(/run\.mlck.*meta\.engine\.matmulVariant must be one of blocked4x4, tiled64, got "tiled128"/);
    expect(() => loadCheckpoint(withEngine({ matmulVariant: 'tiled64', x: 1 }))).toThrow(CheckpointError);
    expect(() => loadCheckpoint(withEngine('tiled64'))).toThrow(/meta\.engine must be/);
  });

  it('an SFT snapshot records it too, and its exact continuation builds with it', async () => {
    const rt = await gpu();
    const other = variantByAdapterKind(rt.adapter) === 'blocked4x4' ? 'tiled64' : 'blocked4x4';
    const sft = {
      model: { vocabSize: 24, contextLength: 64, nLayers: 1, dModel: 16, nHeads: 2, mlpRatio: 2, norm: 'rmsnorm' as const, tiedEmbeddings: true },
      ...{ difficulty: 1, trainSize: 30, testSize: 8, batch: 8, lr: 5e-3, evalK: 1, evalProblems: 2, evalMaxResponseLength: 8, steps: 4 },
    };
    const given = webgpuBackend(rt, { matmulVariant: other });
    const straight = await runSft(given, sft);
    let snap: Uint8Array | null = null;
    await runSft(given, { ...sft, evalEvery: 2 }, { onSnapshot: (step, bytes) => step === 2 && (snap = bytes) });
    expect(decodeCheckpoint(snap!).meta.engine).toEqual({ matmulVariant: other });
    const { cache, c } = cacheSaying(variantByAdapterKind(rt.adapter));
    const resumed = await runSft(webgpuBackend(rt, { cache }), sft, {}, snap!);
    expect(Array.from(resumed.params)).toEqual(Array.from(straight.params));
    expect(c.reads).toBe(0);
    // The variants sum in different orders: the other one ends on other bits, so the equality above tells them apart.
    const byKind = await runSft(webgpuBackend(rt, { matmulVariant: variantByAdapterKind(rt.adapter) }), sft);
    expect(Array.from(byKind.params)).not.toEqual(Array.from(straight.params));
  });
});
