/**
 * Metric names of Skywork-OR1's fork (and of verl before v0.4) that the lab names otherwise:
 *   actor/entropy_loss        the rollout's mean token entropy (dp_actor.py logs it under this name;
 *                             the fork's EntController reads it) → actor/entropy
 *   val/<source>_t<τ>         ray_trainer._validate_with_temperatures: the mean reward over n_val samples
 *                             per prompt at τ (0.6 and 1.0), per data_source split on "-" and rejoined
 *                             with "/" at every depth ("magic-lab/countdown" → "magic", "magic/lab/countdown")
 *                             → the lab's val/avg@n/t<τ> for the one top-level source (the aggregate),
 *                             val/<source>/avg@n/t<τ> for the others; n (n_val) must be known (--val-n)
 * A name is only taken when the file does not already have it.
 */
import { formatTemperature } from '../rl/metrics';

const FORK_VAL = /^val\/([^@]+?)_t(\d+(?:\.\d+)?)$/;

/** verl name → lab name for the fork's keys among `keys`; what was done goes to `notes`. */
export function forkRenames(keys: ReadonlySet<string>, n: number | undefined, notes: string[]): Map<string, string> {
  const renames = new Map<string, string>();
  const take = (from: string, to: string) => {
    if (keys.has(to) || [...renames.values()].includes(to)) notes.push(`${from}: the file already has ${to}; kept under verl's name`);
    else {
      renames.set(from, to);
      notes.push(`${from} → ${to}`);
    }
  };
  if (keys.has('actor/entropy_loss')) take('actor/entropy_loss', 'actor/entropy');
  const byTemperature = new Map<string, string[]>();
  for (const k of keys) {
    const m = FORK_VAL.exec(k);
    if (m) byTemperature.set(m[2], [...(byTemperature.get(m[2]) ?? []), k]);
  }
  for (const [t, ks] of byTemperature) {
    if (n === undefined) {
      notes.push(`Skywork-OR1 validation keys at τ ${t} (${ks.join(', ')}) kept under verl's names: give --val-n (the run's actor_rollout_ref.rollout.n_val)`);
      continue;
    }
    const tau = formatTemperature(Number(t));
    const sources = ks.map((k) => FORK_VAL.exec(k)![1]);
    const top = sources.filter((s) => !s.includes('/'));
    for (const [i, k] of ks.entries()) {
      const s = sources[i];
      if (!s.includes('/') && top.length === 1) take(k, `val/avg@${n}/t${tau}`);
      else take(k, `val/${s}/avg@${n}/t${tau}`);
    }
  }
  return renames;
}
