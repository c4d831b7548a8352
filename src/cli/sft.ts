/** `magic-lab sft`: supervised warm start on imperfect synthetic traces; writes the base checkpoint. */
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { dirname } from 'node:path';
import { decodeCheckpoint, encodeCheckpoint, type WeightsDtype } from '../model/checkpoint';
import { ConfigError } from '../model/config';
import { DivergenceError } from '../rl/divergence';
import { rungSftDefaults, runSft, scaleSftSchedule, validateSftConfig, type SftConfig } from '../rl/sft';
import { DEFAULT_RUNG } from '../rl/config';
import { rungBasePath } from '../run/rung-base';
import { parseRungFlag, RUNG_FLAG } from './rung';
import { parseFlags, RunFailure, UsageError, type FlagSpec } from './args';
import { acquireBackend, BACKEND_FLAG, parseBackendChoice, THREADS_FLAG } from './backend';
import { acquireLock } from '../run/dir-lock';
import { readCheckpointFile } from '../run/read-file';

export const SFT_FLAGS: Record<string, FlagSpec> = {
  rung: { ...RUNG_FLAG, help: `${RUNG_FLAG.help}; the model, task mix and output file are the rung's` },
  config: { type: 'string', help: 'JSON file with SftConfig fields over the rung\'s (see src/rl/sft.ts)' },
  steps: { type: 'int', min: 1, help: 'optimizer steps' },
  seed: { type: 'int', min: 0, help: 'seed of data, traces and init' },
  'eval-every': { type: 'int', min: 0, help: 'held-out avg@k every N steps' },
  out: { type: 'string', help: 'checkpoint file to write (default: the rung\'s base, public/checkpoints/base.mlck for tiny, base-small.mlck, base-medium.mlck)' },
  resume: { type: 'string', help: 'continue the warm start saved in this checkpoint (up to --steps in total): a .stepN snapshot exactly; a weights-only one with its data stream and fresh AdamW moments' },
  'weights-only': { type: 'bool', help: 'write the final checkpoint without its AdamW state (a third of the size; how the small base ships — RL never reads a base\'s AdamW, and the .stepN snapshots keep it for --resume)' },
  f16: { type: 'bool', help: 'with --weights-only: store the weights as IEEE half floats (half the size again; how the on-demand medium base ships — it loads as the rounded f32 values)' },
  backend: BACKEND_FLAG,
  threads: THREADS_FLAG,
  help: { type: 'bool', help: 'show this help' },
};

/** A JSON config far beyond any real one (a run config is a few KiB). */
const MAX_JSON_BYTES = 16 * 1024 ** 2;

export function readJsonFile(path: string, flag: string): Record<string, unknown> {
  let text: string;
  try {
    // Stat'ed first: a device (/dev/zero) or directory is one line, not an endless read.
    const st = statSync(path);
    if (!st.isFile()) throw new UsageError(`${flag}: ${path} is ${st.isDirectory() ? 'a directory' : 'a device, pipe or socket'}, not a JSON file`);
    if (st.size > MAX_JSON_BYTES) throw new UsageError(`${flag}: ${path} is ${st.size} bytes; a config is at most ${MAX_JSON_BYTES}`);
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw new UsageError(`${flag}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    const v = JSON.parse(text);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('top level must be an object');
    return v;
  } catch (e) {
    // JSON.parse quotes the text it choked on, newlines included: keep the message one line.
    throw new UsageError(`${flag}: ${path} is not a JSON object (${(e as Error).message.replace(/\s+/g, ' ')})`);
  }
}

export async function sft(argv: string[], log: (s: string) => void = console.log): Promise<void> {
  const flags = parseFlags(argv, SFT_FLAGS, 'sft');
  const rung = parseRungFlag(flags.rung) ?? DEFAULT_RUNG;
  const input: Partial<SftConfig> = flags.config ? (readJsonFile(String(flags.config), '--config') as Partial<SftConfig>) : {};
  if (flags.steps !== undefined) {
    input.steps = flags.steps as number;
    // A shortened run keeps its rung's schedule in proportion (3500–4500 of 5000 would not fit in 3 steps).
    const base = { ...rungSftDefaults(rung), ...input } as SftConfig;
    if (input.lrDecayStart === undefined && input.lrDecayEnd === undefined && rungSftDefaults(rung).steps !== input.steps) {
      const scaled = scaleSftSchedule({ ...rungSftDefaults(rung) }, input.steps);
      if (scaled.lrDecayStart !== base.lrDecayStart || scaled.lrDecayEnd !== base.lrDecayEnd) {
        Object.assign(input, scaled);
        log(`--steps ${input.steps}: the learning-rate decay scaled with the run (steps ${base.lrDecayStart}–${base.lrDecayEnd} of ${rungSftDefaults(rung).steps} → ${scaled.lrDecayStart}–${scaled.lrDecayEnd}); set lrDecayStart / lrDecayEnd in --config to choose them`);
      }
    }
  }
  if (flags.seed !== undefined) input.seed = flags.seed as number;
  if (flags['eval-every'] !== undefined) input.evalEvery = flags['eval-every'] as number;
  // Half floats only where no AdamW moments are kept (a snapshot to --resume stays exact, in f32).
  if (flags.f16 && !flags['weights-only']) throw new UsageError('--f16 stores a weights-only base: add --weights-only');
  let cfg: SftConfig;
  try {
    cfg = validateSftConfig(input as Partial<SftConfig> & Record<string, unknown>, rungSftDefaults(rung));
  } catch (e) {
    if (e instanceof ConfigError) throw new UsageError(`config: ${e.message}`);
    throw e;
  }
  const out = String(flags.out ?? rungBasePath(rung));
  let resume: Uint8Array | undefined;
  let unlock = () => {};
  if (flags.resume) {
    resume = readCheckpointFile(String(flags.resume), '--resume');
    // One writer per warm start: a second `sft --resume` onto the same output is refused (exit 2).
    mkdirSync(dirname(out), { recursive: true });
    unlock = acquireLock(`${out}.lock`, `sft output ${out}`, log);
  }
  try {
    await runSftTo(cfg, out, flags, resume, log);
  } finally {
    unlock();
  }
}

async function runSftTo(cfg: SftConfig, out: string, flags: Record<string, unknown>, resume: Uint8Array | undefined, log: (s: string) => void): Promise<void> {
  const backend = await acquireBackend(parseBackendChoice(flags.backend), { threads: flags.threads as number | undefined });
  try {
    log(`sft on ${backend.description}: ${cfg.steps} steps × ${cfg.batch} traces (wrong-step ${cfg.style.wrongStepRate}, verbose ${cfg.style.verboseRate})`);
    const t0 = performance.now();
    let lossEma = NaN;
    const res = await runSft(backend, cfg, {
      onStep: (p) => {
        lossEma = Number.isNaN(lossEma) ? p.loss : 0.95 * lossEma + 0.05 * p.loss;
        if (p.step % 25 === 0 || p.step === 1) log(`step ${p.step}/${cfg.steps}  loss ${lossEma.toFixed(4)}  ${p.tokensPerS.toFixed(0)} tok/s  ${((performance.now() - t0) / 60000).toFixed(1)} min`);
      },
      onEval: (step, rec) => log(`eval @${step}: ${Object.entries(rec).map(([k, v]) => `${k}=${v.toFixed(3)}`).join('  ')}`),
      onSnapshot: (step, bytes) => {
        mkdirSync(dirname(out), { recursive: true });
        replaceFileWhole(`${out}.step${step}`, bytes);
      },
    }, resume, flags.resume === undefined ? undefined : String(flags.resume)).catch((e: unknown) => {
      if (e instanceof DivergenceError) throw new RunFailure(`${e.message}; not saved — continue from the last snapshot (${out}.stepN, written every evalEvery steps) with --resume`);
      throw e;
    });
    mkdirSync(dirname(out), { recursive: true });
    const bytes = flags['weights-only'] ? withoutAdam(res.checkpoint, flags.f16 ? 'f16' : 'f32') : res.checkpoint;
    replaceFileWhole(out, bytes);
    log(`wrote ${out} (${bytes.length} bytes) in ${((performance.now() - t0) / 60000).toFixed(1)} min`);
  } finally {
    backend.destroy();
  }
}

/** The same checkpoint without its AdamW moments: parameters (as `weightsDtype`) and meta (the SFT config, state and eval) kept. */
function withoutAdam(bytes: Uint8Array, weightsDtype: WeightsDtype): Uint8Array {
  const c = decodeCheckpoint(bytes, 'sft result');
  return encodeCheckpoint({ model: c.model, params: c.params, meta: c.meta, weightsDtype });
}
