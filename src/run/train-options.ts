/**
 * What one training run is asked to do, typed: the entry point `runTraining(options)` takes it
 * (src/cli/train.ts parses `magic-lab train`'s flags into it; the sweep runner builds it). A run
 * either starts (preset, optional partial-config file, seed, base weights, run directory) or
 * continues the run saved in a directory; both may stop early by steps or minutes.
 */
import type { BackendChoice } from '../model/engine';
import type { MatmulVariantChoice } from '../model/matmul-choice';
import type { RungName } from '../rl/config';

/** The engine and when to stop: common to a new run and a resumed one. */
export interface TrainCommon {
  /** Stop after this many steps in total. */
  steps?: number;
  /** Stop cleanly after the step that crosses this many minutes (counted from this call). */
  minutes?: number;
  /** No per-step progress line. */
  quiet?: boolean;
  /** Stop (exit 1, like a divergence) when the policy collapses (src/rl/collapse.ts); by default it is only warned about. */
  stopOnCollapse?: boolean;
  backend?: BackendChoice;
  /** CPU engine threads. */
  threads?: number;
  /** WebGPU matmul variant of a new run (default auto: timed, cached); a resumed run keeps its recorded one. */
  matmulVariant?: MatmulVariantChoice;
}

export interface TrainStart extends TrainCommon {
  kind: 'start';
  /** Preset name (default magic). */
  preset?: string;
  /** Model ladder rung the preset is taken at (default tiny; src/rl/config/rungs.ts). */
  rung?: RungName;
  /** JSON file holding a partial RunConfig merged over the preset. */
  configFile?: string;
  /** Run seed over the config's. */
  seed?: number;
  /** Run directory (default runs/<preset>-<time>). */
  out?: string;
  /** Start weights, or 'none' for random init (default: the base of the config's rung when its model matches). */
  base?: string;
  /** Folder of offline-filter results shared with other runs (src/run/filter-cache.ts); a sweep passes its pool's. */
  filterCache?: string;
}

export interface TrainResume extends TrainCommon {
  kind: 'resume';
  /** The run directory whose checkpoint.mlck continues. */
  dir: string;
}

export type TrainRunOptions = TrainStart | TrainResume;

/** The `magic-lab train` command line that asks for the same run (for logs and tests). */
export function trainRunArgv(o: TrainRunOptions): string[] {
  const args: string[] = [];
  if (o.kind === 'resume') args.push('--resume', o.dir);
  else {
    if (o.preset !== undefined) args.push('--preset', o.preset);
    if (o.rung !== undefined) args.push('--rung', o.rung);
    if (o.seed !== undefined) args.push('--seed', String(o.seed));
    if (o.out !== undefined) args.push('--out', o.out);
    if (o.configFile !== undefined) args.push('--config', o.configFile);
    if (o.base !== undefined) args.push('--base', o.base);
    if (o.filterCache !== undefined) args.push('--filter-cache', o.filterCache);
  }
  if (o.steps !== undefined) args.push('--steps', String(o.steps));
  if (o.minutes !== undefined) args.push('--minutes', String(o.minutes));
  if (o.quiet) args.push('--quiet');
  if (o.stopOnCollapse) args.push('--stop-on-collapse');
  if (o.backend !== undefined) args.push('--backend', o.backend);
  if (o.threads !== undefined) args.push('--threads', String(o.threads));
  if (o.matmulVariant !== undefined) args.push('--matmul-variant', o.matmulVariant);
  return args;
}
