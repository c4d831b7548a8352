/** Phase timings (timing_s/*): the timer on a fake clock, and the trainer on the CPU engine with a fake and a real clock. */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { PhaseTimer, phaseShares, phaseSummary, TIMING_PHASES, timingKey, TIMING_STEP_KEY } from '../../src/rl/phase-timer';
import { MagicTrainer, type StepRecord } from '../../src/rl/trainer';

/** A clock that moves `tick` ms each time it is read. */
function fakeClock(tick = 1) {
  let t = 0;
  return () => (t += tick);
}

const PHASE_KEYS = TIMING_PHASES.map(timingKey);
const phaseSum = (r: Record<string, number>) => PHASE_KEYS.reduce((a, k) => a + (r[k] ?? 0), 0);
const untimed = (r: Record<string, number>) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('timing_s/') && !k.startsWith('perf/') && k !== 'time_ms'));

describe('PhaseTimer', () => {
  it('sums each phase over its runs, in seconds, with testing only when it ran', async () => {
    let now = 0;
    const timer = new PhaseTimer(() => now);
    await timer.time('gen', async () => void (now += 300));
    timer.timeSync('reward', () => void (now += 50));
    await timer.time('gen', async () => void (now += 200));
    now += 50; // outside every phase
    expect(timer.keys()).toEqual({ 'timing_s/gen': 0.5, 'timing_s/reward': 0.05, 'timing_s/old_log_prob': 0, 'timing_s/ref': 0, 'timing_s/adv': 0, 'timing_s/update_actor': 0, 'timing_s/step': 0.6 });
    timer.add('testing', 400);
    expect(timer.keys()['timing_s/testing']).toBe(0.4);
    expect(timer.keys()[TIMING_STEP_KEY]).toBe(0.6);
  });

  it('counts a phase that throws, and rethrows', async () => {
    let now = 0;
    const timer = new PhaseTimer(() => now);
    await expect(timer.time('update_actor', async () => ((now += 7), Promise.reject(new Error('boom'))))).rejects.toThrow('boom');
    expect(timer.keys()['timing_s/update_actor']).toBe(0.007);
  });

  it('shares and the progress-line summary', () => {
    const r = { 'timing_s/gen': 0.62, 'timing_s/reward': 0.01, 'timing_s/update_actor': 0.3, 'timing_s/step': 1 };
    expect(phaseShares(r).map((p) => p.phase)).toEqual(['gen', 'reward', 'update_actor']);
    expect(phaseSummary(r)).toBe('gen 62% upd 30%');
    expect(phaseSummary({ 'perf/step_s': 1 })).toBe('');
    expect(phaseSummary({ 'timing_s/gen': 0, 'timing_s/step': 0 })).toBe('');
  });
});

describe('MagicTrainer phase timings (magic-tiny, CPU engine)', () => {
  let backend: WasmBackend | null = null;
  afterAll(() => backend?.destroy());
  // From the shipped tiny base (as `magic-lab train --preset magic-tiny` starts), every group kept so every step updates.
  const checkpoint = () => new Uint8Array(readFileSync(join(__dirname, '../../public/checkpoints/base-tiny.mlck')));
  const cfg = () => validateRunConfig({ ...getPreset('magic-tiny'), rejection: { ...getPreset('magic-tiny').rejection, mode: 'off' }, eval: { ...getPreset('magic-tiny').eval, everySteps: 2 } });

  it('a fake clock: every phase in every record, testing on evaluating steps, the phases within the step; nothing else moves', async () => {
    backend ??= await wasmBackend({ threads: 1 });
    const faked = await MagicTrainer.create(backend, cfg(), { clock: fakeClock(1), checkpoint: checkpoint() });
    const real = await MagicTrainer.create(backend, cfg(), { checkpoint: checkpoint() });
    const a: StepRecord[] = [];
    const b: StepRecord[] = [];
    while (!faked.done) {
      const ra = await faked.trainStep();
      const rb = await real.trainStep();
      expect('timing_s/testing' in ra.record, `step ${ra.record.step}`).toBe(ra.eval !== undefined);
      expect(ra.eval).toEqual(rb.eval);
      expect(ra.samples).toEqual(rb.samples);
      a.push(ra.record);
      b.push(rb.record);
    }
    expect(a.length).toBeGreaterThanOrEqual(3);
    for (const r of a) {
      const rec = r as unknown as Record<string, number>;
      for (const k of PHASE_KEYS.filter((k) => k !== 'timing_s/testing')) expect(rec[k], k).toBeGreaterThanOrEqual(0);
      expect(rec['timing_s/gen']).toBeGreaterThan(0);
      expect(rec['timing_s/update_actor']).toBeGreaterThan(0);
      // Each clock read is 1 ms, so the phases (each read twice) cannot cover the step's own reads.
      expect(phaseSum(rec)).toBeLessThan(rec[TIMING_STEP_KEY]);
      // perf/step_s is the step without its evaluation; timing_s/step includes it (as verl counts).
      expect(rec['perf/step_s']).toBeLessThanOrEqual(rec[TIMING_STEP_KEY]);
    }
    expect(a.map(untimed)).toEqual(b.map(untimed));
    faked.destroy();
    real.destroy();
  }, 120_000);

  it('every engine call falls inside a phase: with a clock that moves only while the engine works, the phases are the whole step', async () => {
    // How close the phases come to the step on a real clock is a benchmark (scripts/phase-times.mjs, BENCHMARKS.md
    // "The RL step by phase"), not a test: on a shared machine that ratio moves with the load.
    backend ??= await wasmBackend({ threads: 1 });
    let now = 0;
    const t = await MagicTrainer.create(backend, cfg(), { clock: () => now, checkpoint: checkpoint() });
    const engine = t.policy as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
    for (const name of ['generate', 'update', 'forward']) {
      const call = engine[name].bind(t.policy);
      engine[name] = async (...args: unknown[]) => {
        const out = await call(...args);
        now += 100;
        return out;
      };
    }
    const recs: Record<string, number>[] = [];
    while (!t.done) recs.push((await t.trainStep()).record as unknown as Record<string, number>);
    t.destroy();
    expect(recs.length).toBeGreaterThanOrEqual(3);
    for (const r of recs) {
      expect(r[TIMING_STEP_KEY], `step ${r.step}`).toBeGreaterThan(0);
      expect(phaseSum(r), `step ${r.step}`).toBeCloseTo(r[TIMING_STEP_KEY], 9);
    }
  }, 120_000);
});
