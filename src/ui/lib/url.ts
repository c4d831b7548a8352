/**
 * The page URL carries the preset, its rung (rung=, absent for tiny: older links open as before)
 * and the config (as a diff to the preset at that rung) so a link reproduces the setup. A value
 * that cannot be used is left out and named in ONE sentence; the others are kept.
 */
import { BACKEND_CHOICES, type BackendChoice } from '../../worker/protocol';
import { DEFAULT_PRESET, DEFAULT_RUN_CONFIG, DEFAULT_RUNG, decodeConfigFromUrlParams, encodeConfigToUrlParams, getPreset, isRungName, PRESET_PARAM, RUNG_NAMES, RUNG_PARAM, type RunConfig, type RungName } from '../../rl/config';

/**
 * URL parameters that belong to the page, not the config: run (the run to show), backend (auto,
 * webgpu or wasm), teacher mode's teacher, hide and try (lib/teach.ts), view (lib/view.ts) and
 * lesson (lib/lesson.ts). The address keeps each as it is while the config changes.
 */
export const PAGE_PARAMS = ['run', 'backend', 'teacher', 'hide', 'try', 'view', 'lesson'] as const;

/** The engine asked for by the URL's backend= (auto when absent or unknown). */
export function backendFromUrl(search: string): BackendChoice {
  const v = new URLSearchParams(search).get('backend');
  return v !== null && (BACKEND_CHOICES as readonly string[]).includes(v) ? (v as BackendChoice) : 'auto';
}

/** `search` with backend= set to `choice` (removed for auto). */
export function withBackend(search: string, choice: BackendChoice): string {
  const params = new URLSearchParams(search);
  if (choice === 'auto') params.delete('backend');
  else params.set('backend', choice);
  const s = params.toString();
  return s ? `?${s}` : '';
}

export interface UrlSetup {
  preset: string;
  rung: RungName;
  config: RunConfig;
  /** Set when part of the URL could not be used: ONE sentence naming each value left out (every other value is kept). */
  error: string | null;
}

/** Every config field path (`update.lr`, `stages`): objects' leaves; arrays are one field. */
function fieldPaths(node: unknown, path = '', out: string[] = []): string[] {
  if (node !== null && typeof node === 'object' && !Array.isArray(node)) {
    for (const [k, v] of Object.entries(node)) fieldPaths(v, path ? `${path}.${k}` : k, out);
  } else if (path) out.push(path);
  return out;
}
const FIELD_PATHS = fieldPaths(DEFAULT_RUN_CONFIG);

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length];
}

/**
 * The config field an unknown URL key most likely meant, or null: a field whose last name is the
 * key's last name (`lr` → `update.lr`), else the closest path within a few edits (`los.epsLow` → `loss.epsLow`).
 */
export function nearestField(key: string, paths: readonly string[] = FIELD_PATHS): string | null {
  const k = key.toLowerCase();
  const leaf = k.split('.').pop()!;
  const sameLeaf = paths.filter((p) => p.split('.').pop()!.toLowerCase() === leaf);
  if (sameLeaf.length) return sameLeaf.reduce((best, p) => (editDistance(k, p.toLowerCase()) < editDistance(k, best.toLowerCase()) ? p : best));
  let best: string | null = null;
  let bestD = Infinity;
  for (const p of paths) {
    const d = Math.min(editDistance(k, p.toLowerCase()), editDistance(leaf, p.split('.').pop()!.toLowerCase()) + (k.includes('.') ? 1 : 0));
    if (d < bestD) [best, bestD] = [p, d];
  }
  return bestD <= Math.max(1, Math.floor(k.length / 4)) ? best : null;
}

/** Is `key` a config field path (a leaf of the config, or the whole stages array)? */
const isFieldPath = (key: string) => FIELD_PATHS.includes(key);

const presetExists = (name: string, rung: string) => {
  try {
    getPreset(name, rung);
    return true;
  } catch {
    return false;
  }
};

const shown = (v: string) => (v.length > 24 ? `${v.slice(0, 24)}…` : v);

/**
 * The setup a link asks for. A value that cannot be used is left out and named (with the field it
 * probably meant when its key is no field); every other value is kept, so one typo does not throw
 * away the rest of a lesson's link.
 */
export function setupFromUrl(search: string): UrlSetup {
  const params = new URLSearchParams(search);
  try {
    const { preset, rung, config } = decodeConfigFromUrlParams(params, PAGE_PARAMS);
    return { preset, rung, config, error: null };
  } catch {
    // Fall through: keep what can be kept, one value at a time.
  }
  const problems: string[] = [];
  const single = (name: string, ok: (v: string) => boolean, what: string): string | null => {
    const values = params.getAll(name);
    if (values.length > 1) problems.push(`${name} (given ${values.length} times)`);
    else if (values.length === 1 && !ok(values[0])) problems.push(`${name}=${shown(values[0])} (${what})`);
    else return values[0] ?? null;
    return null;
  };
  const rung = (single(RUNG_PARAM, isRungName, `no such rung; rungs: ${RUNG_NAMES.join(', ')}`) ?? DEFAULT_RUNG) as RungName;
  const preset = single(PRESET_PARAM, (v) => presetExists(v, rung), `no such preset${rung === DEFAULT_RUNG ? '' : ` at rung ${rung}`}`) ?? DEFAULT_PRESET;
  const kept = new URLSearchParams([[PRESET_PARAM, preset], [RUNG_PARAM, rung]]);
  const counts = new Map<string, number>();
  for (const key of params.keys()) counts.set(key, (counts.get(key) ?? 0) + 1);
  for (const [key, value] of params) {
    if (key === PRESET_PARAM || key === RUNG_PARAM || (PAGE_PARAMS as readonly string[]).includes(key)) continue;
    const n = counts.get(key)!;
    if (n === -1) continue;
    if (n > 1) {
      // Which of the values was meant is unknown: none is used.
      problems.push(`${shown(key)} (given ${n} times)`);
      counts.set(key, -1);
      continue;
    }
    if (!isFieldPath(key)) {
      const near = nearestField(key);
      problems.push(`${shown(key)} (no such field${near ? `; did you mean ${near}?` : ''})`);
      continue;
    }
    const trial = new URLSearchParams(kept);
    trial.append(key, value);
    try {
      decodeConfigFromUrlParams(trial);
      kept.append(key, value);
    } catch (e) {
      const msg = (e as Error).message;
      problems.push(`${key}=${shown(value)} (${msg.startsWith(`${key}: `) ? msg.slice(key.length + 2) : msg})`);
    }
  }
  const { config } = decodeConfigFromUrlParams(kept);
  const list = problems.length > 1 ? `${problems.slice(0, -1).join(', ')} and ${problems[problems.length - 1]}` : problems[0];
  const error = problems.length ? `This link's ${list} ${problems.length === 1 ? 'was' : 'were'} left out; every other value is kept.` : null;
  return { preset, rung, config, error };
}

/** The query string (with '?') for a config at `rung` (by default its model's), keeping the page's own parameters. */
export function urlSearchFor(config: RunConfig, preset: string, current = '', rung?: RungName): string {
  const params = encodeConfigToUrlParams(config, preset, rung);
  const cur = new URLSearchParams(current);
  for (const k of PAGE_PARAMS) {
    const v = cur.get(k);
    if (v !== null) params.set(k, v);
  }
  return `?${params.toString()}`;
}
