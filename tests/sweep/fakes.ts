/**
 * Fakes of `runTraining(options, log)` (read as its command line) and `evalCommand(argv, log)` for the sweep runner's tests: they
 * read the same flags and write the same files (config.json, metrics.jsonl with step and eval
 * records, checkpoint.mlck every 2 steps and at the end, truncation of records past the
 * checkpoint on --resume), with deterministic numbers, and can be told to die mid-run.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from '../../src/model/checkpoint';
import { getPreset, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { trainRunArgv } from '../../src/run/train-options';
import { scheduleSteps, type EvalFn, type TrainFn } from '../../src/sweep/runner';
import { hash32 } from '../../src/util/rng';

function flagsOf(argv: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith('--')) throw new Error(`fake: unexpected ${argv[i]}`);
    const name = argv[i].slice(2);
    if (name === 'quiet') out.quiet = 'true';
    else out[name] = argv[++i];
  }
  return out;
}

/** A number in [0, 1) from some integers. */
function u(...xs: number[]): number {
  let h = 0x12345;
  for (const x of xs) h = hash32((h ^ (x >>> 0)) >>> 0);
  return h / 4294967296;
}

const strHash = (s: string) => crc32(new TextEncoder().encode(s));

export interface FakeTrainOptions {
  /** Throw after writing this step's record (the checkpoint is the last multiple of 2 before it). */
  killAt?: { preset: string; seed: number; step: number };
  /** Every argv the fake was called with. */
  calls?: string[][];
}

const CHECKPOINT_EVERY = 2;
const EVAL_EVERY = 2;

export function fakeTrain(o: FakeTrainOptions = {}): TrainFn {
  return async (request, log) => {
    // The typed request as train's command line: the tests compare what the sweep asked for.
    const argv = trainRunArgv(request);
    o.calls?.push(argv);
    const f = flagsOf(argv);
    let dir: string;
    let cfg: RunConfig;
    let start = 0;
    let preset = f.preset;
    const metrics = () => join(dir, 'metrics.jsonl');
    if (f.resume) {
      dir = f.resume;
      const ck = JSON.parse(readFileSync(join(dir, 'checkpoint.mlck'), 'utf8')) as { step: number; preset: string };
      preset = ck.preset;
      cfg = validateRunConfig(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')));
      start = ck.step;
      const keep = readFileSync(metrics(), 'utf8')
        .split('\n')
        .filter((l) => l.trim() && JSON.parse(l).step <= start);
      writeFileSync(metrics(), keep.map((l) => l + '\n').join(''));
    } else {
      dir = f.out;
      if (existsSync(join(dir, 'checkpoint.mlck'))) throw new Error(`fake: ${dir} already holds a run`);
      // As train: records without a checkpoint are never overwritten.
      if (existsSync(join(dir, 'metrics.jsonl')) && readFileSync(join(dir, 'metrics.jsonl'), 'utf8').trim()) throw new Error(`fake: ${dir} holds records of a run without a checkpoint`);
      const partial = f.config ? JSON.parse(readFileSync(f.config, 'utf8')) : {};
      cfg = validateRunConfig({ seed: Number(f.seed) }, validateRunConfig(partial, getPreset(f.preset, f.rung ?? undefined)));
      writeFileSync(join(dir, 'config.json'), JSON.stringify(cfg, null, 2) + '\n');
      writeFileSync(metrics(), '');
    }
    const ph = strHash(preset);
    const evalRecord = (step: number) => ({
      type: 'eval',
      step,
      'val/avg@2/t1.0': 0.1 + 0.3 * u(ph, cfg.seed, step, 1),
      'val/avg@2/t0.6': 0.2 + 0.3 * u(ph, cfg.seed, step, 2),
      'val/pass@2/t1.0': 0.5,
    });
    log(`training ${f.resume ? 'resumed' : 'started'} in ${dir} on FakeAdapter${f.resume ? ` at step ${start}` : ' from the base checkpoint'}`);
    if (!f.resume) appendFileSync(metrics(), JSON.stringify(evalRecord(0)) + '\n');
    const total = Math.min(scheduleSteps(cfg), f.steps ? Number(f.steps) : Infinity);
    let evaluatedAt = -1;
    for (let step = start + 1; step <= total; step++) {
      const rec = {
        type: 'step',
        step,
        time_ms: 1000 * step + (ph % 100),
        'actor/entropy': 0.3 * u(ph, cfg.seed, step, 3) + (preset.startsWith('grpo') ? 0 : 0.1),
        'actor/entropy_coeff_realized': u(ph, cfg.seed, step, 4),
        'critic/score/mean': u(ph, cfg.seed, step, 5),
        'response_length/mean': 10 + 5 * u(ph, cfg.seed, step, 6),
        'response_length/clip_ratio': step === 1 ? null : 0.1 * u(ph, cfg.seed, step, 7),
        'perf/tokens_per_s': 200,
        'perf/step_s': 1 + u(ph, cfg.seed, step, 8),
      };
      appendFileSync(metrics(), JSON.stringify(rec) + '\n');
      log(`step ${step}  stage 0  entropy ${rec['actor/entropy'].toFixed(3)}`);
      if (o.killAt && o.killAt.preset === preset && o.killAt.seed === cfg.seed && o.killAt.step === step) throw new Error('killed');
      if (step % EVAL_EVERY === 0) {
        appendFileSync(metrics(), JSON.stringify(evalRecord(step)) + '\n');
        evaluatedAt = step;
      }
      if (step % CHECKPOINT_EVERY === 0) writeFileSync(join(dir, 'checkpoint.mlck'), JSON.stringify({ step, preset, seed: cfg.seed }));
    }
    if (evaluatedAt !== total) appendFileSync(metrics(), JSON.stringify(evalRecord(total)) + '\n');
    writeFileSync(join(dir, 'checkpoint.mlck'), JSON.stringify({ step: total, preset, seed: cfg.seed }));
    log(`done: ${total} steps`);
  };
}

export interface FakeEvalOptions {
  /** Throw on this call number (1-based), once. */
  failOnCall?: number;
  calls?: string[][];
  /** Write a coverage report where --json says (per-problem counts drawn from the checkpoint and seed), as `eval --json` does. */
  coverage?: boolean;
}

export function fakeEval(o: FakeEvalOptions = {}): EvalFn {
  let n = 0;
  return async (argv, log) => {
    n++;
    o.calls?.push(argv);
    if (o.failOnCall === n) throw new Error('killed during eval');
    const f = flagsOf(argv);
    const h = crc32(new Uint8Array(readFileSync(f.checkpoint)));
    const k = Number(f.k);
    const rec: Record<string, number> = {};
    for (const t of f.temperatures.split(',').map(Number)) {
      const tl = Number.isInteger(t) ? t.toFixed(1) : String(t);
      // Multiples of 1/(problems·k), as a real avg@k is.
      const denom = Number(f.problems) * k;
      rec[`val/avg@${k}/t${tl}`] = Math.round(u(h, Number(f.seed), t * 10) * denom) / denom;
      rec[`val/pass@${k}/t${tl}`] = Math.min(1, rec[`val/avg@${k}/t${tl}`] * 1.5);
      rec[`val/maj@${k}/t${tl}`] = rec[`val/avg@${k}/t${tl}`];
      rec[`val/response_length/mean/t${tl}`] = 12;
      rec[`val/response_length/clip_ratio/t${tl}`] = 0.02;
    }
    if (o.coverage && f.json) {
      const temperatures: Record<string, { problems: { id: string; n: number; correct: number }[] }> = {};
      for (const t of f.temperatures.split(',').map(Number)) {
        const tl = Number.isInteger(t) ? t.toFixed(1) : String(t);
        temperatures[tl] = { problems: Array.from({ length: Number(f.problems) }, (_, i) => ({ id: `sort:${i}`, n: k, correct: Math.floor(u(h, Number(f.seed), t * 10, i) * (k + 1)) })) };
      }
      writeFileSync(f.json, JSON.stringify({ schema: 'magic-lab-eval/1', temperatures }));
    }
    log(`fake eval of ${f.checkpoint}`);
    return rec;
  };
}
