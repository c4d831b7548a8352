/**
 * `train --resume DIR`: the checkpoint in DIR must be this run's, checked before anything in DIR
 * is cut or appended. DIR/config.json (written when the run started) names the run: its seed, its
 * model and every other field (compared as the validated config, so a config.json written before
 * a field existed still matches). The run state's step must lie within the config's schedule.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { configDiffPaths, fixedRunSteps, validateRunConfig, type RunConfig } from '../rl/config';
import { readBoundedFile } from '../run/read-file';
import { UsageError } from './args';

const MAX_CONFIG_BYTES = 16 * 1024 ** 2;

/**
 * Refuses (UsageError: exit 2, one line, nothing changed) a checkpoint whose config is not the one
 * DIR/config.json names, or whose step is past the schedule.
 */
export function checkResumeIdentity(dir: string, checkpointFile: string, ckConfig: RunConfig, ckStep: number | undefined): void {
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
}
