/**
 * Where a config validation error is shown: the ConfigError's field (`data.trainSize`,
 * `eval.temperatures[1]`, `stages[2].convergence.window`) mapped to the control that edits it — a
 * config field (ConfigField.tsx) or a stage row's input (StageRow.tsx) — which is marked invalid
 * with the message beside it. Pure.
 */
import { CONFIG_FIELDS } from './fields';

/**
 * The field a config error message names: a ConfigError's message is `<field>: <what is wrong>`
 * (`stages[1].steps: must be …`; a ResourceError is one too). Null when it names none.
 */
export function errorField(message: string | null): string | null {
  const m = message === null ? null : /^([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*|\[\d+\])*): /.exec(message);
  return m ? m[1] : null;
}

/** Whether the error's field is the config field `path` or inside it (`eval.temperatures[1]` is in `eval.temperatures`). */
export function errorIsIn(errorField: string | null, path: string): boolean {
  if (errorField === null) return false;
  return errorField === path || errorField.startsWith(`${path}.`) || errorField.startsWith(`${path}[`);
}

/** The stage and its field an error names (`stages[2].convergence.window` → 2, 'convergence.window'; `stages[2]` → 2, ''). */
export function stageErrorAt(errorField: string | null): { index: number; key: string } | null {
  const m = errorField === null ? null : /^stages\[(\d+)\](?:\.(.+))?$/.exec(errorField);
  return m ? { index: Number(m[1]), key: m[2] ?? '' } : null;
}

/**
 * The control to show for an error: a config field's path, 'stages' for the stage schedule
 * (StageEditor's focus target), or null when no control edits that field.
 */
export function errorTarget(errorField: string | null): string | null {
  if (errorField === null) return null;
  if (errorField === 'stages' || stageErrorAt(errorField)) return 'stages';
  return CONFIG_FIELDS.find((f) => errorIsIn(errorField, f.path))?.path ?? null;
}

/** The stage row input (its test id's suffix, `stage-<i>-<suffix>`) that edits a stage field. */
export const STAGE_INPUTS: Readonly<Record<string, string>> = {
  maxResponseLength: 'maxlen',
  steps: 'steps',
  convergence: 'mode',
  'convergence.window': 'window',
  'convergence.minImprovement': 'delta',
  'convergence.maxSteps': 'maxsteps',
  batchPrompts: 'batch',
  groupSize: 'group',
  temperature: 'temp',
};
