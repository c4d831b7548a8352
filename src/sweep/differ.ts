/**
 * "These presets differ only in field X", checked before anything runs: `magic-lab sweep
 * --differ-only FIELD,…` for every preset or variant of a sweep against the first, and
 * `magic-lab ablate FINDING` for each check that declares `differIn`. Configs are compared as the
 * sweep resolves them (after --config and variants), at one seed.
 */
import { diffOutside, fieldRule, hasConfigPath } from '../rl/config';
import type { Finding } from './finding-types';
import { resolveRunConfig, type SweepSpec } from './plan';
import { SweepError } from './errors';

type Resolved = Pick<SweepSpec, 'config' | 'seeds' | 'variants' | 'rung'>;

const resolve = (o: Resolved, preset: string) => resolveRunConfig(preset, o.config, o.seeds[0] ?? 0, o.variants, o.rung ?? null);

/** The first path where b's resolved config differs from a's outside `fields`, or undefined. */
export function extraDifference(o: Resolved, a: string, b: string, fields: readonly string[]): string | undefined {
  return diffOutside(resolve(o, a), resolve(o, b), fields)[0];
}

/**
 * `--differ-only FIELD,…`: the list, each a field of the run config — present in the first
 * preset's config or a described optional field such as stages[1].klBeta (one SweepError naming
 * the first that is neither).
 */
export function parseDifferOnly(text: string, o: Resolved, first: string): string[] {
  const fields = text.split(',').map((f) => f.trim()).filter((f) => f !== '');
  if (!fields.length) throw new SweepError('--differ-only: expected a comma-separated list of config fields, e.g. loss.entropy');
  const cfg = resolve(o, first);
  const known = (f: string) => hasConfigPath(cfg, f) || fieldRule(f.replace(/\[\d+\]/g, '[]')) !== undefined;
  const bad = fields.find((f) => !known(f));
  if (bad !== undefined) throw new SweepError(`--differ-only: ${bad} is not a field of the run config (e.g. loss.entropy, rollout.temperature, stages[1].klBeta)`);
  return fields;
}

/** Every preset or variant of `presets` differs from the first only in `fields`; else one SweepError naming both and the first extra field. */
export function checkDifferOnly(o: Resolved, presets: readonly string[], fields: readonly string[]): void {
  const [first, ...rest] = presets;
  for (const p of rest) {
    const extra = extraDifference(o, first, p, fields);
    if (extra !== undefined) throw new SweepError(`--differ-only: ${p} differs from ${first} in ${extra}, not only in ${fields.join(', ')}`);
  }
}

/** Each check of `f` that declares differIn holds for the sweep's resolved configs; else one SweepError naming the check's presets and the first extra field. */
export function checkFindingDiffers(f: Finding, o: Resolved): void {
  for (const c of f.checks) {
    if ((c.kind !== 'paired' && c.kind !== 'equivalence') || !c.differIn) continue;
    const extra = extraDifference(o, c.a, c.b, c.differIn);
    if (extra !== undefined) throw new SweepError(`ablate ${f.id}: ${c.b} differs from ${c.a} in ${extra}, but the check "${c.says}" declares only ${c.differIn.join(', ')}`);
  }
}
