import { describe, it, expect } from 'vitest';
import { ConfigError } from '../../src/model/config';
import { estimatePolicy, formatBytes, gpuGradNormScratchFloats, gpuLossScratchFloats } from '../../src/model/resources';
import { gradNormScratchFloats } from '../../src/gpu/kernels/optimizer';
import { grpoLossScratchFloats } from '../../src/gpu/kernels/loss';
import { wasmBackend } from '../../src/model/cpu-policy';
import { getPreset, PRESETS, validateRunConfig, type RunConfig, type RunConfigInput } from '../../src/rl/config';
import {
  browserHostLimits,
  checkDataCapacity,
  checkEvalResources,
  checkRunResources,
  engineLimitsOf,
  estimateRun,
  ResourceError,
  runTrainShapes,
  referenceShapes,
  reserveLargestShape,
  type EngineLimits,
  type HostLimits,
} from '../../src/rl/resources';
import { refForwardRows, REF_FORWARD_ROWS } from '../../src/rl/micro-batch';
import { rolloutBatchSize } from '../../src/rl/trainer';
import { encodePrompt, EOS_ID, PAD_ID } from '../../src/tasks';

const GiB = 2 ** 30;
const MiB = 2 ** 20;
/** WebGPU's default limits: what every adapter gives at least. */
const WEBGPU_DEFAULT: EngineLimits = { engine: 'webgpu', maxStorageBufferBindingSize: 128 * MiB, maxBufferSize: 256 * MiB, software: false };
/** The CPU engine's memory in Node and a 64-bit browser (2 GiB), with many threads' scratch. */
const WASM: EngineLimits = { engine: 'wasm', memoryBytes: 2 * GiB - 131072, threads: 16 };
/** A 32-bit browser's (src/cpu/runtime.ts falls back to a quarter of 2 GiB). */
const WASM_SMALL: EngineLimits = { engine: 'wasm', memoryBytes: 512 * MiB - 131072, threads: 8 };
/** A modest laptop: 8 GiB (navigator.deviceMemory caps there), a 2 GiB JS heap. */
const LAPTOP: HostLimits = browserHostLimits({ deviceMemory: 8, jsHeapSizeLimit: 2 * GiB });

const refusal = (f: () => void): ResourceError => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ResourceError);
    expect(e).toBeInstanceOf(ConfigError);
    return e as ResourceError;
  }
  throw new Error('expected a ResourceError');
};
const over = (input: RunConfigInput, base = 'magic-tiny'): RunConfig => validateRunConfig(input, getPreset(base));

describe('resource check', () => {
  it('passes every preset on WebGPU default limits, on the CPU engine (even a 32-bit browser’s) and on a modest laptop', () => {
    for (const [name, cfg] of Object.entries(PRESETS)) {
      for (const engine of [WEBGPU_DEFAULT, { ...WEBGPU_DEFAULT, software: true }, WASM, WASM_SMALL]) {
        expect(() => checkRunResources(cfg, { engine, host: LAPTOP }), `${name} on ${engine.engine}`).not.toThrow();
      }
      expect(() => checkEvalResources(cfg, { problems: Math.min(256, cfg.data.testSize), k: 8, batch: 128 }, { engine: WASM_SMALL, host: LAPTOP })).not.toThrow();
    }
  });

  it('estimates what the CPU engine allocates for every shape a run builds, to within a few percent', async () => {
    const backend = await wasmBackend({ threads: 2 });
    try {
      for (const name of ['magic-tiny', 'off-policy-nsgd4-tiny']) {
        const cfg = PRESETS[name];
        const rt = backend.rt as unknown as { top: number };
        const before = rt.top;
        const p = await backend.createPolicy(cfg.model, name);
        // As the trainer does: the arena sized once for the largest shape, every shape laid out in it.
        reserveLargestShape(p, cfg);
        for (const s of runTrainShapes(cfg)) await p.forward(new Uint32Array(s.rows * s.T), new Uint32Array(s.rows * s.T), s.rows, s.T, 1);
        const B = rolloutBatchSize(cfg);
        await p.generate({ prompts: Array.from({ length: B }, () => encodePrompt('1+2=')), maxResponseLength: 2, temperature: 1, topP: 1, seed: 1, eosId: EOS_ID, padId: PAD_ID });
        const actual = rt.top - before;
        const est = estimateRun(cfg, 'wasm', backend.threads).policy.total;
        expect(est / actual, name).toBeGreaterThanOrEqual(1);
        expect(est / actual, name).toBeLessThan(1.1);
        p.destroy();
      }
    } finally {
      backend.destroy();
    }
  });

  it('plans the shapes the trainer builds: rows G·2^k up to the largest mini-batch, the rollout batch D_R·G', () => {
    const cfg = over({ rollout: { batchPrompts: 5, groupSize: 4 }, update: { miniBatches: 2 } });
    const prompt = runTrainShapes(cfg)[0].T - cfg.stages[0].maxResponseLength;
    // 5·4 = 20 kept responses / 2 mini-batches = 10 → 3 groups → rows up to 4·4.
    expect(runTrainShapes(cfg)).toEqual([4, 8, 16].map((rows) => ({ rows, T: prompt + 16 })).concat([4, 8, 16].map((rows) => ({ rows, T: prompt + 24 }))));
    expect(estimateRun(cfg, 'wasm').policy.buffers.filter((b) => b.name === 'KV cache')[0].shape).toContain(`${rolloutBatchSize(cfg)}·`);
  });

  it('with update.microBatchRows, no training shape has more rows (the trainer splits larger mini-batches)', () => {
    const cfg = over({ rollout: { batchPrompts: 5, groupSize: 4 }, update: { miniBatches: 2, microBatchRows: 8 } });
    const prompt = runTrainShapes(cfg)[0].T - cfg.stages[0].maxResponseLength;
    expect(runTrainShapes(cfg)).toEqual([4, 8].map((rows) => ({ rows, T: prompt + 16 })).concat([4, 8].map((rows) => ({ rows, T: prompt + 24 }))));
    const whole = over({ rollout: { batchPrompts: 5, groupSize: 4 }, update: { miniBatches: 2 } });
    expect(estimateRun(cfg, 'wasm').policy.total).toBeLessThan(estimateRun(whole, 'wasm').policy.total);
    // A micro size above every mini-batch changes nothing.
    expect(runTrainShapes(over({ rollout: { batchPrompts: 5, groupSize: 4 }, update: { miniBatches: 2, microBatchRows: 64 } }))).toEqual(runTrainShapes(whole));
  });

  it('restates the WebGPU scratch sizes of src/gpu/kernels exactly', () => {
    for (const n of [1, 100, 2048, 106_000, 1e7]) {
      expect(gpuGradNormScratchFloats(n)).toBe(gradNormScratchFloats(n));
      expect(gpuLossScratchFloats(n)).toBe(grpoLossScratchFloats(n));
    }
  });

  it('refuses a batch whose activations exceed the adapter’s binding size, naming the field, the size and the limit', () => {
    const cfg = over({ model: { contextLength: 1024, dModel: 256, nHeads: 16 }, rollout: { batchPrompts: 64, groupSize: 16 }, stages: [{ maxResponseLength: 900, steps: 2 }] });
    const e = refusal(() => checkRunResources(cfg, { engine: WEBGPU_DEFAULT }));
    expect(e.field).toBe('rollout.batchPrompts');
    expect(e.message).toMatch(/^rollout\.batchPrompts: the largest GPU buffer would be [\d.]+ GiB \(attention probabilities, rows·H·T·T = 1024·16·\d+·\d+ f32\); this adapter's maxStorageBufferBindingSize is 128 MiB$/);
  });

  it('blames the model when one sequence already does not fit', () => {
    const cfg = over({ model: { dModel: 4096, nLayers: 64, nHeads: 16 } });
    expect(refusal(() => checkRunResources(cfg, { engine: WEBGPU_DEFAULT })).message).toMatch(/^model: the largest GPU buffer would be 48 GiB \(parameters, \d+ f32\); this adapter's maxStorageBufferBindingSize is 128 MiB$/);
    expect(refusal(() => checkRunResources(cfg, { engine: { engine: 'wasm', memoryBytes: 2 * GiB, threads: 2 } })).message).toMatch(/^model: the CPU engine would need \d+ GiB \(weights and AdamW state .*\); its WebAssembly memory holds at most 2 GiB$/);
    // A model whose weights fit one buffer but whose checkpoint could not be read back by Node.
    const big = over({ model: { dModel: 2048, nLayers: 64, nHeads: 16 } });
    const host: HostLimits = { heapBytes: 64 * GiB, heapSource: 'test', memoryBytes: 1024 * GiB, memorySource: 'test', fileBytes: 2 ** 31 - 1 };
    expect(refusal(() => checkRunResources(big, { engine: { ...WEBGPU_DEFAULT, maxStorageBufferBindingSize: 64 * GiB, maxBufferSize: 64 * GiB }, host })).message).toMatch(/^model: a checkpoint would be [\d.]+ GiB .* 2 GiB or more cannot be read back/);
  });

  it('refuses the CPU engine when the run’s plans exceed its memory', () => {
    const cfg = over({ model: { dModel: 512, nLayers: 8, nHeads: 8, contextLength: 256 }, rollout: { batchPrompts: 16, groupSize: 8 } });
    const e = refusal(() => checkRunResources(cfg, { engine: { engine: 'wasm', memoryBytes: 2 * GiB, threads: 2 } }));
    expect(e.field).toBe('rollout.batchPrompts');
    expect(e.message).toMatch(/the CPU engine would need [\d.]+ GiB \(weights and AdamW state [\d.]+ MiB; training batches [\d.]+ GiB, largest .*; decoding [\d.]+ GiB, KV cache B·T·C = 128·256·512 f32 per layer, K and V\); its WebAssembly memory holds at most 2 GiB/);
    // A stage's own batch is the field when it sets the largest batch.
    const staged = over({ model: { dModel: 512, nLayers: 8, nHeads: 8, contextLength: 256 }, stages: [{ maxResponseLength: 16, steps: 2 }, { maxResponseLength: 24, steps: 2, batchPrompts: 64 }] });
    expect(refusal(() => checkRunResources(staged, { engine: { engine: 'wasm', memoryBytes: 2 * GiB, threads: 2 } })).field).toBe('stages[1].batchPrompts');
  });

  it('refuses more rollouts than the JS heap holds: a step’s D_R·G, the offline filter’s trainSize·N, an evaluation’s testProblems·k', () => {
    const host = LAPTOP;
    let e = refusal(() => checkRunResources(over({ rollout: { batchPrompts: 100_000, groupSize: 1024 } }), { host }, { engineKnown: false }));
    expect(e.message).toMatch(/^rollout\.batchPrompts: the run would hold [\d.]+ GiB of JS objects, [\d.]+ GiB of it stage 1's rollouts \(D_R·G = 100000·1024 = 102400000 responses of up to 24 tokens\); this process may use 1 GiB \(half of this browser's JS heap limit 2 GiB\)$/);
    e = refusal(() => checkRunResources(over({ data: { difficulty: 4, trainSize: 200_000, offlineFilter: { enabled: true, samples: 1024 } } }), { host }, { engineKnown: false }));
    expect(e.field).toBe('data.offlineFilter.samples');
    e = refusal(() => checkRunResources(over({ data: { difficulty: 4, testSize: 100_000 }, eval: { testProblems: 100_000, k: 1024 } }), { host }, { engineKnown: false }));
    expect(e.field).toBe('eval.k');
    // Refill rounds multiply a step's rollouts.
    const refill = estimateRun(over({ rejection: { mode: 'refill', maxRefillRounds: 3 } }), 'wasm').heap[1];
    expect(refill.what).toContain('× 4 refill rounds');
    expect(refusal(() => checkEvalResources(PRESETS['magic-tiny'], { problems: 8, k: 10_000_000, batch: 128 }, { host })).field).toBe('--k');
  });

  it('refuses more problems than the families can generate, naming the family, the count and the limit', () => {
    let e = refusal(() => checkDataCapacity({ families: ['addition', 'countdown', 'arith'], difficulty: 1, trainSize: 1_000_000, testSize: 8 }));
    expect(e.message).toBe(
      'data.trainSize: 1000000 training + 8 test problems over 3 families need 333337 distinct addition problems; addition has only 55 at difficulty 1, of which it shares 45 with arith (≈ 45 drawn there first): 10 left (lower data.trainSize / data.testSize, raise data.difficulty or add families)',
    );
    e = refusal(() => checkDataCapacity({ families: ['countdown'], difficulty: 3, trainSize: 1000, testSize: 400_000 }));
    expect(e.field).toBe('data.testSize');
    expect(e.message).toContain('countdown has 731070 at difficulty 3 and a run may draw at most half of them (365535)');
    // addition and arith share 45 keys at difficulty 1: arith draws some of addition's 55 first
    // (buildDataset finds only ~40 of 50 addition problems for 100 + 10; 70 + 10 builds).
    expect(() => checkDataCapacity({ families: ['addition', 'arith'], difficulty: 1, trainSize: 70, testSize: 10 })).not.toThrow();
    expect(refusal(() => checkDataCapacity({ families: ['addition', 'arith'], difficulty: 1, trainSize: 100, testSize: 10 })).message).toContain(
      'addition has only 55 at difficulty 1, of which it shares 45 with arith (≈ 15 drawn there first): 40 left',
    );
    // The check runs first, whatever the limits.
    expect(refusal(() => checkRunResources(over({ data: { trainSize: 1000 } }))).field).toBe('data.trainSize');
  });

  it('reads an open engine’s limits', async () => {
    const backend = await wasmBackend({ threads: 1, build: 'single' });
    try {
      const l = engineLimitsOf(backend);
      expect(l).toEqual({ engine: 'wasm', memoryBytes: 2 * GiB - 131072, threads: 1 });
    } finally {
      backend.destroy();
    }
    expect(engineLimitsOf({ name: 'wasm', description: 'fake', threads: 1, createPolicy: async () => null as never, destroy: () => {} })).toBeNull();
  });

  it('formats sizes', () => {
    expect(formatBytes(900)).toBe('900 B');
    expect(formatBytes(128 * MiB)).toBe('128 MiB');
    expect(formatBytes(3.2 * GiB)).toBe('3.2 GiB');
    expect(formatBytes(1.5 * 1024 * GiB)).toBe('1.5 TiB');
    expect(estimatePolicy(PRESETS.magic.model, { train: [], decode: [] }, 'webgpu').largest.name).toBe('parameters');
  });
});

describe('resource check of the model ladder', () => {
  it("passes the small rung's default config on WebGPU default limits on a modest laptop", () => {
    // (The medium rung fits by micro-batches: the next case.)
    const cfg = getPreset('magic', 'small');
    expect(() => checkRunResources(cfg, { engine: WEBGPU_DEFAULT, host: LAPTOP })).not.toThrow();
    expect(() => checkEvalResources(cfg, { problems: 64, k: 8, batch: 128 }, { engine: WASM_SMALL, host: LAPTOP })).not.toThrow();
    expect(() => checkRunResources(getPreset('magic', 'tiny'), { engine: WASM_SMALL, host: LAPTOP })).not.toThrow();
  });

  it("passes the medium rung's default (micro-batches of 16 rows) on WebGPU's default limits and the CPU engine's 2 GiB; the whole mini-batch fits neither", () => {
    const cfg = getPreset('magic', 'medium');
    expect(cfg.update.microBatchRows).toBe(16);
    expect(() => checkRunResources(cfg, { engine: WEBGPU_DEFAULT, host: LAPTOP })).not.toThrow();
    expect(() => checkRunResources(cfg, { engine: { ...WEBGPU_DEFAULT, software: true }, host: LAPTOP })).not.toThrow();
    expect(() => checkRunResources(cfg, { engine: WASM, host: LAPTOP })).not.toThrow();
    expect(() => checkRunResources(cfg, { engine: { ...WASM, threads: 2 }, host: LAPTOP })).not.toThrow();
    expect(estimateRun(cfg, 'webgpu').policy.largest.bytes).toBeLessThanOrEqual(WEBGPU_DEFAULT.engine === 'webgpu' ? WEBGPU_DEFAULT.maxStorageBufferBindingSize : 0);
    const whole = { ...cfg, update: { ...cfg.update, microBatchRows: null } };
    expect(refusal(() => checkRunResources(whole, { engine: WEBGPU_DEFAULT, host: LAPTOP })).message).toMatch(/attention probabilities, rows·H·T·T = 128·8·277·277 f32\); this adapter's maxStorageBufferBindingSize is 128 MiB; train in micro-batches instead: update\.microBatchRows = 32 fits \(the same update, its gradient accumulated over micro-batches\) — the medium rung's model/);
    // The refusal's suggestion is the largest power of two that fits: on the CPU engine's 2 GiB, more than 16 rows.
    const cpuHint = refusal(() => checkRunResources(whole, { engine: WASM, host: LAPTOP })).message.match(/WebAssembly memory holds at most 2 GiB; train in micro-batches instead: update\.microBatchRows = (\d+) fits .* — the medium rung's model/);
    expect(cpuHint).not.toBeNull();
    const r = Number(cpuHint![1]);
    const at = (rows: number) => ({ ...cfg, update: { ...cfg.update, microBatchRows: rows } });
    expect(() => checkRunResources(at(r), { engine: WASM })).not.toThrow();
    expect(() => checkRunResources(at(2 * r), { engine: WASM })).toThrow(ResourceError);
  });

  it("passes grpo and kl-on at the small rung on the CPU engine's 2 GiB: π_ref forwards in chunks of refForwardRows rows, not whole mini-batches", () => {
    for (const name of ['grpo', 'kl-on']) {
      const cfg = getPreset(name, 'small');
      expect(cfg.update.microBatchRows, name).toBeNull();
      for (const threads of [1, 2, 16]) expect(() => checkRunResources(cfg, { engine: { ...WASM, threads }, host: LAPTOP }), `${name} at ${threads} threads`).not.toThrow();
      const est = estimateRun(cfg, 'wasm', 1);
      // π_ref's largest training buffer is a 32-row forward's; the actor's, the whole 128-row mini-batch's.
      expect(est.reference!.largest.shape).toMatch(/= 32·4·178·178 f32/);
      expect(est.policy.largest.shape).toMatch(/= 128·4·178·178 f32/);
      expect(est.reference!.total).toBeLessThan(est.policy.total / 3);
      expect(referenceShapes(cfg).every((s) => s.rows <= REF_FORWARD_ROWS)).toBe(true);
    }
    // With micro-batches of fewer rows, π_ref forwards no more than they hold.
    expect(refForwardRows(null)).toBe(REF_FORWARD_ROWS);
    expect(refForwardRows(16)).toBe(16);
    expect(refForwardRows(64)).toBe(REF_FORWARD_ROWS);
    expect(referenceShapes(getPreset('magic', 'medium')).length).toBe(0);
  });

  it('refuses the small rung on an artificially tiny engine with one line naming the rung', () => {
    const cfg = getPreset('magic', 'small');
    const tinyGpu: EngineLimits = { engine: 'webgpu', maxStorageBufferBindingSize: 4 * MiB, maxBufferSize: 4 * MiB, software: false };
    const gpu = refusal(() => checkRunResources(cfg, { engine: tinyGpu, host: LAPTOP }));
    expect(gpu.message).toMatch(/maxStorageBufferBindingSize is 4 MiB — the small rung's model \(~0\.8M parameters, context 256\); pick a smaller rung$/);
    expect(gpu.message.split('\n')).toHaveLength(1);
    const cpu = refusal(() => checkRunResources(cfg, { engine: { engine: 'wasm', memoryBytes: 16 * MiB, threads: 1 }, host: LAPTOP }));
    expect(cpu.message).toMatch(/WebAssembly memory holds at most 16 MiB — the small rung's model/);
    const ev = refusal(() => checkEvalResources(cfg, { problems: 8, k: 1, batch: 128 }, { engine: { engine: 'wasm', memoryBytes: 4 * MiB, threads: 1 } }));
    expect(ev.message).toMatch(/the small rung's model/);
    // Tiny's refusals read as before the ladder: no rung named.
    const tiny = refusal(() => checkRunResources(getPreset('magic'), { engine: { engine: 'wasm', memoryBytes: 1 * MiB, threads: 1 } }));
    expect(tiny.message).not.toMatch(/rung/);
  });
});
