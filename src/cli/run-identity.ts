/**
 * `train --resume DIR`: the checkpoint in DIR must be this run's, checked before anything in DIR
 * is cut or appended. DIR/config.json (written when the run started) names the run: its seed, its
 * model and every other field (compared as the validated config, so a config.json written before
 * a field existed still matches). The run state's step must lie within the config's schedule.
 *
 * The journal DIR/metrics.jsonl is checked against the checkpoint too, config.json or not: the run
 * state holds every step's critic/score/mean (scoreHistory) and the training time at its step
 * (elapsedMs, the journal's time_ms of that step, a wall-clock sum no other run shares). A
 * checkpoint of another run disagrees with the journal; one ahead of the journal (restored from a
 * backup, or a journal that lost its end) would leave a gap of steps no record describes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configDiffPaths, fixedRunSteps, validateRunConfig, type RunConfig } from '../rl/config';
import { FileReadError, readBoundedFile } from '../run/read-file';
import { JournalDamageError, journalRecords } from '../run/journal';
import { UsageError } from './args';

const MAX_CONFIG_BYTES = 16 * 1024 ** 2;

/**
 * Refuses (UsageError: exit 2, one line, nothing changed) a checkpoint whose config is not the one
 * DIR/config.json names, or whose step is past the schedule.
 */
export function checkResumeIdentity(dir: string, checkpointFile: string, ckConfig: RunConfig, ckStep: number | undefined, ckState?: ResumeState): void {
  const file = join(dir, 'config.json');
  if (existsSync(file)) {
    const text = new TextDecoder().decode(readBoundedFile(file, '--resume', MAX_CONFIG_BYTES));
    let dirConfig: RunConfig;
    try {
      dirConfig = validateRunConfig(JSON.parse(text));
    } catch (e) {
      throw new UsageError(`--resume: ${file} is not the run's config (${(e as Error).message.replace(/\s+/g, ' ')}); nothing was changed`);
    }
    const diff = configDiffPaths(dirConfig, ckConfig).slice(0, 3);
    if (diff.length) {
      const what = diff.includes('seed') ? `seed ${ckConfig.seed} (the run's is ${dirConfig.seed})` : diff.some((d) => d.startsWith('model')) ? `model ${JSON.stringify(ckConfig.model)} (the run's is ${JSON.stringify(dirConfig.model)})` : `a different config (${diff.join(', ')})`;
      throw new UsageError(`--resume: ${checkpointFile} belongs to another run: it has ${what} than ${file}; nothing was changed`);
    }
  }
  const last = fixedRunSteps(ckConfig);
  if (ckStep !== undefined && last !== null && ckStep > last) {
    throw new UsageError(`--resume: ${checkpointFile} is at step ${ckStep}, past the end of its schedule (${last} steps); nothing was changed`);
  }
  // A malformed run state is refused later, field by field (src/rl/run-checkpoint.ts).
  if (typeof ckState === 'object' && ckState !== null && Number.isInteger(ckState.step)) checkJournalIdentity(dir, checkpointFile, ckState);
}

/** The parts of a checkpoint's run state the journal records too. */
export interface ResumeState {
  step: number;
  elapsedMs?: number;
  scoreHistory?: number[];
}

/**
 * Refuses (UsageError, nothing changed) a checkpoint its run's journal does not describe: a step
 * past the journal's last step record, or a step whose score or training time in the journal is
 * not the checkpoint's (another run's checkpoint). Streamed: the journal may be hundreds of MB.
 */
export function checkJournalIdentity(dir: string, checkpointFile: string, st: ResumeState): void {
  const file = join(dir, 'metrics.jsonl');
  const refuse = (why: string) => new UsageError(`--resume: ${checkpointFile} ${why}; nothing was changed`);
  if (!existsSync(file)) {
    if (st.step > 0) throw refuse(`is at step ${st.step} but ${file} does not exist: the run's journal is gone (restore it, or start a new run from this checkpoint's weights)`);
    return;
  }
  let last = 0;
  try {
    for (const { record: r } of journalRecords(file)) {
      if (r.type !== 'step' || typeof r.step !== 'number') continue;
      const step = r.step;
      if (step > last) last = step;
      if (step > st.step || step < 1) continue;
      const score = r['critic/score/mean'];
      const ours = st.scoreHistory?.[step - 1];
      if (typeof score === 'number' && typeof ours === 'number' && score !== ours) {
        throw refuse(`belongs to another run: its score at step ${step} is ${ours}, ${file} records ${score}`);
      }
      if (step === st.step && typeof r.time_ms === 'number' && typeof st.elapsedMs === 'number' && r.time_ms !== st.elapsedMs) {
        throw refuse(`belongs to another run: its training time at step ${step} is ${st.elapsedMs} ms, ${file} records ${r.time_ms} ms`);
      }
    }
  } catch (e) {
    if (e instanceof JournalDamageError || e instanceof FileReadError) throw new UsageError(e.message);
    throw e;
  }
  if (st.step > last) throw refuse(`is at step ${st.step}, beyond the last step of ${file} (${last}): resuming would leave steps ${last + 1}–${st.step} without records (a checkpoint restored from a backup, or a journal that lost its end)`);
}
