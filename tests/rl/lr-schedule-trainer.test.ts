/**
 * update.lrSchedule in the trainer (CPU engine, magic-tiny): every optimizer step of RL step k
 * gets η·lrFactor(k), logged as actor/lr, across stages and across a checkpoint and resume.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import { getPreset, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { lrFactor } from '../../src/rl/lr-schedule';
import { MagicTrainer } from '../../src/rl/trainer';
import { interceptUpdates } from '../update-hook';

let shared: Promise<WasmBackend> | null = null;
const cpu = () => (shared ??= wasmBackend({ threads: 1 }));
afterAll(async () => (await shared)?.destroy());

/** Two stages (3 + 4 steps), every group kept, N_SGD = 2, a cosine with a 2-step warmup. */
function config(): RunConfig {
  const tiny = getPreset('magic-tiny');
  return validateRunConfig({
    ...tiny,
    stages: [
      { maxResponseLength: 8, steps: 3 },
      { maxResponseLength: 10, steps: 4 },
    ],
    rejection: { mode: 'off' },
    loss: { ...tiny.loss, entropy: { ...tiny.loss.entropy, mode: 'constant', constantCoef: 0.05 } },
    update: { ...tiny.update, lr: 1e-2, miniBatches: 2, lrSchedule: { mode: 'cosine', warmupSteps: 2, minRatio: 0.25 } },
    eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
  });
}

/** Runs `steps` RL steps from `checkpoint` (or the start), recording every optimizer step's lr. */
async function run(cfg: RunConfig, steps: number, checkpoint?: Uint8Array) {
  const lrs: number[] = [];
  const backend = interceptUpdates(await cpu(), (_call, update, b, loss, o) => (lrs.push(o.adamw.lr), update(b, loss, o)), 'actor');
  const t = await MagicTrainer.create(backend, cfg, checkpoint ? { checkpoint } : {});
  const records = [];
  for (let i = 0; i < steps; i++) records.push((await t.trainStep()).record);
  return { t, lrs, records };
}

describe('learning-rate schedule in the trainer', () => {
  it('applies η·lrFactor(k) to both optimizer steps of RL step k and logs it as actor/lr', async () => {
    const cfg = config();
    const { lrs, records } = await run(cfg, 7);
    const want = Array.from({ length: 7 }, (_, i) => 1e-2 * lrFactor(cfg.update.lrSchedule, i + 1, 7));
    expect(lrs).toEqual(want.flatMap((x) => [x, x]));
    expect(records.map((r) => r['actor/lr'])).toEqual(want);
    // warmup, peak at W, then down to the floor at the last step
    expect(want[0]).toBeCloseTo(0.5e-2, 15);
    expect(want[1]).toBe(1e-2);
    expect(want[6]).toBeCloseTo(0.25e-2, 15);
  });

  it('a resumed run continues on the same curve (bit-identical records)', async () => {
    const cfg = config();
    const straight = await run(cfg, 7);
    const first = await run(cfg, 3);
    const bytes = await first.t.saveCheckpoint();
    const rest = await run(getPreset('magic-tiny'), 4, bytes);
    expect([...first.lrs, ...rest.lrs]).toEqual(straight.lrs);
    const strip = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('timing_s/') && k !== 'time_ms'));
    expect([...first.records, ...rest.records].map(strip)).toEqual(straight.records.map(strip));
  });

  it('the default (constant) schedule leaves η unchanged at every step', async () => {
    const cfg = validateRunConfig({ ...config(), update: { ...config().update, lrSchedule: { mode: 'constant', warmupSteps: 0, minRatio: 0 } } });
    const { lrs, records } = await run(cfg, 3);
    expect(lrs).toEqual(new Array(6).fill(1e-2));
    expect(records.every((r) => r['actor/lr'] === 1e-2)).toBe(true);
  });
});
