/**
 * `magic-lab bench --rl-parts N`: is the RL step as fast as its parts? In one process on one engine,
 * N rounds of: one RL step of the magic preset (evaluation off; its `timing_s/*` record), then the
 * same work alone on the engine — the step's rollout decode (the very generate calls the trainer
 * made, from a copy of the weights the step started from) and its actor update (the very update
 * calls, N_SGD optimizer steps, from those weights and the step's starting AdamW moments), on the
 * actor itself, whose end-of-step weights and moments are then put back — and one held-out eval
 * (the preset's, through the trainer). Rounds alternate step and alone work, so load
 * drifts on a shared machine hit both. The trainer is not changed: its policy is wrapped in a
 * recorder that passes every call through and keeps the arguments (a read-only hook).
 */
import { existsSync, readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../model/checkpoint';
import type { Backend, GenerateRequest, GenerateResult, PolicyEngine, UpdateBatch, UpdateLoss, UpdateOptions } from '../model/engine';
import { decodeSlots } from '../model/engine-types';
import { DEFAULT_RUNG, getPreset, type RungName } from '../rl/config';
import type { RunConfig } from '../rl/config';
import { weightsChecksum } from '../rl/offline-sampling';
import { MagicTrainer } from '../rl/trainer';
import { rlPartsReport, type RlPartsReport, type RlPartsRound } from './rl-parts-report';
import { defaultBaseFor } from './rung-base';

/** The shipped base of a config's rung when its model matches (else undefined: a fresh init). */
export function shippedBaseFor(config: RunConfig): Uint8Array | undefined {
  const baseFile = defaultBaseFor(config);
  if (!existsSync(baseFile)) return undefined;
  const bytes = new Uint8Array(readFileSync(baseFile));
  return JSON.stringify(decodeCheckpoint(bytes, baseFile).model) === JSON.stringify(config.model) ? bytes : undefined;
}

/** What a recorded policy was asked to do since the last take(). */
export interface RecordedCalls {
  /** tokens: generated; slots: the decode slots the engine computed (decodeSlots). */
  generate: { req: GenerateRequest; tokens: number; slots: number }[];
  update: { batch: UpdateBatch; loss: UpdateLoss; o: UpdateOptions }[];
}

/** A policy that passes every call through to `inner` and records generate and update calls. */
export function recordingPolicy(inner: PolicyEngine): { policy: PolicyEngine; take(): RecordedCalls } {
  let calls: RecordedCalls = { generate: [], update: [] };
  const generate = async (req: GenerateRequest): Promise<GenerateResult> => {
    const res = await inner.generate(req);
    calls.generate.push({ req, tokens: generatedTokens(res), slots: decodeSlots(res) });
    return res;
  };
  const update = (batch: UpdateBatch, loss: UpdateLoss, o: UpdateOptions) => {
    calls.update.push({ batch, loss, o });
    return inner.update(batch, loss, o);
  };
  const policy = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'generate') return generate;
      if (prop === 'update') return update;
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return {
    policy,
    take() {
      const out = calls;
      calls = { generate: [], update: [] };
      return out;
    },
  };
}

export const generatedTokens = (res: GenerateResult) => res.responses.reduce((a, r) => a + r.length, 0);

export interface RlPartsOptions {
  /** Rounds (the first is warm-up, left out of the medians). */
  rounds: number;
  rung?: RungName;
  clock?: () => number;
  log?: (s: string) => void;
}

export interface RlPartsResult {
  preset: 'magic';
  rung: RungName;
  backend: string;
  threads: number;
  /** The preset's eval: problems × k × temperatures. */
  eval: { testProblems: number; k: number; temperatures: number[] };
  rounds: RlPartsRound[];
  /** Whether every round's alone work repeated the step's exactly: same generated tokens, same weights after the update. */
  replay_exact: { gen: boolean; update_actor: boolean };
  /** The actor's weights after the last round ("crc32:…"): the same as N plain steps give, so the bench did not disturb the run. */
  end_weights: string;
  report: RlPartsReport;
}

/** Runs the rounds on `backend` (which the caller owns). */
export async function benchRlParts(backend: Backend, o: RlPartsOptions): Promise<RlPartsResult> {
  const clock = o.clock ?? (() => performance.now());
  const log = o.log ?? (() => {});
  const preset = getPreset('magic', o.rung);
  const config: RunConfig = { ...preset, eval: { ...preset.eval, everySteps: 0 } };
  let recorder: ReturnType<typeof recordingPolicy> | null = null;
  const recorded: Backend = new Proxy(backend, {
    get(target, prop) {
      if (prop === 'createPolicy') {
        return async (...args: Parameters<Backend['createPolicy']>) => {
          const p = await target.createPolicy(...args);
          if (args[1] !== 'actor') return p;
          recorder = recordingPolicy(p);
          return recorder.policy;
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const trainer = await MagicTrainer.create(recorded, config, { checkpoint: shippedBaseFor(config), clock });
  const rec = recorder as ReturnType<typeof recordingPolicy> | null;
  if (!rec) throw new Error('rl-parts: the trainer made no actor policy');
  rec.take(); // the offline filter's decodes, if any
  // The alone work runs on the actor itself (its buffers, its plans: no second policy's memory),
  // from a copy of the step's starting weights and moments; the step's end state is put back after.
  const actor = trainer.policy;
  const rounds: RlPartsRound[] = [];
  const exact = { gen: true, update_actor: true };
  let endWeights = '';
  try {
    for (let i = 0; i < o.rounds; i++) {
      const params = await actor.getParams();
      const adam = await actor.getAdamState();
      const { record } = await trainer.trainStep();
      const calls = rec.take();
      const genTokens = calls.generate.reduce((a, c) => a + c.tokens, 0);
      const genSlots = calls.generate.reduce((a, c) => a + c.slots, 0);
      const after = { params: await actor.getParams(), adam: await actor.getAdamState() };
      // (a) the rollout decode alone: the same requests, from the same weights.
      actor.setParams(params);
      let t = clock();
      let aloneTokens = 0;
      for (const c of calls.generate) aloneTokens += generatedTokens(await actor.generate(c.req));
      const gen = (clock() - t) / 1000;
      if (aloneTokens !== genTokens) exact.gen = false;
      // (b) the actor update alone: the same calls (N_SGD optimizer steps, micro-batches), same weights and moments.
      actor.setParams(params);
      actor.setAdamState(adam.m, adam.v);
      t = clock();
      for (const c of calls.update) await actor.update(c.batch, c.loss, c.o);
      const update_actor = (clock() - t) / 1000;
      if (!sameArray(await actor.getParams(), after.params)) exact.update_actor = false;
      actor.setParams(after.params);
      actor.setAdamState(after.adam.m, after.adam.v);
      rec.take(); // the replays went through the recorder too
      // (c) the preset's held-out eval, as a run's testing phase runs it.
      t = clock();
      await trainer.evaluate();
      const evalS = (clock() - t) / 1000;
      const evalCalls = rec.take().generate;
      const evalTokens = evalCalls.reduce((a, c) => a + c.tokens, 0);
      const evalSlots = evalCalls.reduce((a, c) => a + c.slots, 0);
      const step = Object.fromEntries(Object.entries(record).filter(([k]) => k.startsWith('timing_s/'))) as Record<string, number>;
      rounds.push({ step, alone: { gen, update_actor }, genTokens, genSlots, eval: { s: evalS, tokens: evalTokens, slots: evalSlots } });
      log(`  round ${i + 1}/${o.rounds}${i === 0 ? ' (warm-up)' : ''}: step ${step['timing_s/step'].toFixed(3)} s (gen ${step['timing_s/gen'].toFixed(3)}, upd ${step['timing_s/update_actor'].toFixed(3)}); alone gen ${gen.toFixed(3)}, upd ${update_actor.toFixed(3)}; eval ${evalS.toFixed(3)} s`);
    }
    endWeights = weightsChecksum(await actor.getParams());
  } finally {
    trainer.destroy();
  }
  const ev = config.eval;
  return {
    preset: 'magic',
    rung: o.rung ?? DEFAULT_RUNG,
    backend: backend.description,
    threads: backend.threads,
    eval: { testProblems: ev.testProblems, k: ev.k, temperatures: [...ev.temperatures] },
    rounds,
    replay_exact: exact,
    end_weights: endWeights,
    report: rlPartsReport(rounds),
  };
}

function sameArray(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !(Number.isNaN(a[i]) && Number.isNaN(b[i]))) return false;
  return true;
}
