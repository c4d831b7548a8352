/**
 * Reference runs in the page: the sweeps' curves shipped as static files under
 * `${BASE_URL}reference/` (index.json and one <name>.json per sweep or finding; format in
 * src/sweep/reference-format.ts and docs/sweeps.md). Fetching, validation (a malformed or missing
 * file gives one message naming the file; the page keeps working), and the mapping of reference
 * curve metrics to the page's chart series keys. Pure except for the two fetch functions, which
 * take the fetch function and base URL as arguments.
 */
import {
  REFERENCE_INDEX_SCHEMA,
  REFERENCE_SCHEMA,
  REFERENCE_VERDICTS,
  referenceRung,
  type Num,
  type ReferenceCheck,
  type ReferenceCurve,
  type ReferenceFile,
  type ReferenceIndex,
  type ReferenceIndexEntry,
  type ReferencePremise,
  type ReferencePreset,
} from '../../sweep/reference-format';
import { isRungName, RUNG_NAMES, type RungName } from '../../rl/config';

export { verdictText, referenceRung, referenceNameAt } from '../../sweep/reference-format';
export type { ReferenceFile, ReferenceIndex, ReferenceIndexEntry, ReferenceCurve, ReferencePreset, ReferenceCheck, ReferencePremise, Num };

/** A reference file that cannot be used: the message names the file (as the page fetches it) and what is wrong. */
export class ReferenceFileError extends Error {
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
    this.name = 'ReferenceFileError';
  }
}

/** Path of a reference file as the page names it in messages (relative to the site root). */
export const referencePath = (file: string) => `reference/${file}`;
export const INDEX_PATH = referencePath('index.json');

// ---------------------------------------------------------------------------------------------
// Validation

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

class Checker {
  constructor(readonly file: string) {}
  fail(detail: string): never {
    throw new ReferenceFileError(this.file, detail);
  }
  obj(v: unknown, at: string): Obj {
    if (!isObj(v)) this.fail(`${at} must be an object, got ${typeName(v)}`);
    return v;
  }
  str(v: unknown, at: string): string {
    if (typeof v !== 'string') this.fail(`${at} must be a string, got ${typeName(v)}`);
    return v;
  }
  num(v: unknown, at: string): number {
    if (typeof v !== 'number' || !Number.isFinite(v)) this.fail(`${at} must be a number, got ${JSON.stringify(v) ?? typeName(v)}`);
    return v;
  }
  numOrNull(v: unknown, at: string): Num {
    return v === null ? null : this.num(v, at);
  }
  int(v: unknown, at: string): number {
    const n = this.num(v, at);
    if (!Number.isInteger(n)) this.fail(`${at} must be an integer, got ${n}`);
    return n;
  }
  intOrNull(v: unknown, at: string): number | null {
    return v === null || v === undefined ? null : this.int(v, at);
  }
  arr(v: unknown, at: string): unknown[] {
    if (!Array.isArray(v)) this.fail(`${at} must be an array, got ${typeName(v)}`);
    return v;
  }
  kind(v: unknown, at: string): 'finding' | 'sweep' {
    if (v !== 'finding' && v !== 'sweep') this.fail(`${at} must be "finding" or "sweep", got ${JSON.stringify(v)}`);
    return v;
  }
  rung(v: unknown, at: string): RungName {
    if (!isRungName(v)) this.fail(`${at} must be one of ${RUNG_NAMES.join(', ')}, got ${JSON.stringify(v)}`);
    return v;
  }
  verdict(v: unknown, at: string): ReferenceCheck['verdict'] {
    if (!REFERENCE_VERDICTS.includes(v as ReferenceCheck['verdict'])) this.fail(`${at} must be one of ${REFERENCE_VERDICTS.join(', ')}, got ${JSON.stringify(v)}`);
    return v as ReferenceCheck['verdict'];
  }
}

/** File names the index may point at: one plain name in the reference folder (no paths). */
const FILE_RE = /^[a-z0-9][a-z0-9._-]{0,63}\.json$/;

/** Validates index.json; throws ReferenceFileError naming `file`. */
export function validateReferenceIndex(json: unknown, file = INDEX_PATH): ReferenceIndex {
  const c = new Checker(file);
  const o = c.obj(json, 'the file');
  if (o.schema !== REFERENCE_INDEX_SCHEMA) c.fail(`schema must be "${REFERENCE_INDEX_SCHEMA}", got ${JSON.stringify(o.schema)}`);
  const entries = c.arr(o.entries, 'entries').map((e, i): ReferenceIndexEntry => {
    const at = `entries[${i}]`;
    const x = c.obj(e, at);
    const name = c.str(x.name, `${at}.name`);
    const fileName = c.str(x.file, `${at}.file`);
    if (!FILE_RE.test(fileName) || fileName === 'index.json') c.fail(`${at}.file must be a file name in the reference folder (lower-case, ending .json), got ${JSON.stringify(fileName)}`);
    const entry: ReferenceIndexEntry = {
      name,
      file: fileName,
      kind: c.kind(x.kind, `${at}.kind`),
      title: c.str(x.title, `${at}.title`),
      presets: c.arr(x.presets, `${at}.presets`).map((p, j) => c.str(p, `${at}.presets[${j}]`)),
      seeds: c.arr(x.seeds, `${at}.seeds`).map((s, j) => c.int(s, `${at}.seeds[${j}]`)),
      steps: c.intOrNull(x.steps, `${at}.steps`),
    };
    if (x.verdict !== undefined) entry.verdict = c.verdict(x.verdict, `${at}.verdict`);
    if (x.rung !== undefined) entry.rung = c.rung(x.rung, `${at}.rung`);
    return entry;
  });
  const names = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) c.fail(`two entries are named "${e.name}"`);
    names.add(e.name);
  }
  return { schema: REFERENCE_INDEX_SCHEMA, entries };
}

function validateCurve(c: Checker, v: unknown, at: string): ReferenceCurve {
  const o = c.obj(v, at);
  const steps = c.arr(o.steps, `${at}.steps`).map((s, i) => c.num(s, `${at}.steps[${i}]`));
  for (let i = 1; i < steps.length; i++) if (!(steps[i] > steps[i - 1])) c.fail(`${at}.steps must increase, got ${steps[i]} after ${steps[i - 1]}`);
  const series = (key: string, x: unknown) => {
    const a = c.arr(x, `${at}.${key}`);
    if (a.length !== steps.length) c.fail(`${at}.${key} has ${a.length} values for ${steps.length} steps`);
    return a.map((y, i) => c.numOrNull(y, `${at}.${key}[${i}]`));
  };
  const seedsObj = c.obj(o.seeds ?? {}, `${at}.seeds`);
  const seeds: Record<string, Num[]> = {};
  for (const [s, vs] of Object.entries(seedsObj)) seeds[s] = series(`seeds.${s}`, vs);
  return { steps, mean: series('mean', o.mean), lower: series('lower', o.lower), upper: series('upper', o.upper), seeds };
}

/**
 * Validates a reference file; throws ReferenceFileError naming `file`. With `entry` (its index
 * entry), the file must be the one the index describes.
 */
export function validateReferenceFile(json: unknown, file: string, entry?: ReferenceIndexEntry): ReferenceFile {
  const c = new Checker(file);
  const o = c.obj(json, 'the file');
  if (o.schema !== REFERENCE_SCHEMA) c.fail(`schema must be "${REFERENCE_SCHEMA}", got ${JSON.stringify(o.schema)}`);
  const name = c.str(o.name, 'name');
  if (entry && name !== entry.name) c.fail(`name is "${name}" but the index lists this file as "${entry.name}"`);
  const kind = c.kind(o.kind, 'kind');
  const sch = c.obj(o.schedule, 'schedule');
  const presetsObj = c.obj(o.presets, 'presets');
  if (Object.keys(presetsObj).length === 0) c.fail('presets is empty');
  const presets: Record<string, ReferencePreset> = {};
  for (const [p, pv] of Object.entries(presetsObj)) {
    const at = `presets.${p}`;
    const po = c.obj(pv, at);
    const curvesObj = c.obj(po.curves, `${at}.curves`);
    const scalarsObj = c.obj(po.scalars ?? {}, `${at}.scalars`);
    presets[p] = {
      seeds: c.arr(po.seeds, `${at}.seeds`).map((s, i) => c.int(s, `${at}.seeds[${i}]`)),
      entropyTarget: c.numOrNull(po.entropyTarget ?? null, `${at}.entropyTarget`),
      scalars: Object.fromEntries(
        Object.entries(scalarsObj).map(([k, sv]) => {
          const so = c.obj(sv, `${at}.scalars.${k}`);
          return [k, { mean: c.numOrNull(so.mean, `${at}.scalars.${k}.mean`), lower: c.numOrNull(so.lower, `${at}.scalars.${k}.lower`), upper: c.numOrNull(so.upper, `${at}.scalars.${k}.upper`) }];
        }),
      ),
      curves: Object.fromEntries(Object.entries(curvesObj).map(([k, cv]) => [k, validateCurve(c, cv, `${at}.curves["${k}"]`)])),
    };
    if (presets[p].seeds.length === 0) c.fail(`${at}.seeds is empty`);
  }
  const ref: ReferenceFile = {
    schema: REFERENCE_SCHEMA,
    name,
    kind,
    title: c.str(o.title, 'title'),
    command: c.str(o.command ?? '', 'command'),
    schedule: {
      steps: c.intOrNull(sch.steps, 'schedule.steps'),
      minutes: sch.minutes === null || sch.minutes === undefined ? null : c.num(sch.minutes, 'schedule.minutes'),
      backend: sch.backend === null || sch.backend === undefined ? null : c.str(sch.backend, 'schedule.backend'),
      evalProblems: c.int(sch.evalProblems, 'schedule.evalProblems'),
      evalK: c.int(sch.evalK, 'schedule.evalK'),
    },
    interval: c.str(o.interval ?? '', 'interval'),
    presets,
  };
  if (o.rung !== undefined) ref.rung = c.rung(o.rung, 'rung');
  if (entry && referenceRung(ref) !== referenceRung(entry)) c.fail(`rung is "${referenceRung(ref)}" but the index lists this file at rung "${referenceRung(entry)}"`);
  if (kind === 'finding') {
    ref.claim = c.str(o.claim, 'claim');
    ref.rule = c.str(o.rule, 'rule');
    ref.verdict = c.verdict(o.verdict, 'verdict');
    // Premises (with their evidence) came with the fourth verdict; files without them stay valid.
    if (o.premises !== undefined) {
      ref.premises = c.arr(o.premises, 'premises').map((x, i) => {
        const at = `premises[${i}]`;
        const pr = c.obj(x, at);
        if (typeof pr.holds !== 'boolean') c.fail(`${at}.holds must be true or false, got ${JSON.stringify(pr.holds) ?? typeName(pr.holds)}`);
        return { says: c.str(pr.says, `${at}.says`), holds: pr.holds as boolean, evidence: c.str(pr.evidence, `${at}.evidence`) };
      });
    }
    ref.checks = c.arr(o.checks, 'checks').map((x, i) => {
      const at = `checks[${i}]`;
      const ch = c.obj(x, at);
      return {
        describe: c.str(ch.describe, `${at}.describe`),
        estimate: c.numOrNull(ch.estimate, `${at}.estimate`),
        lower: c.numOrNull(ch.lower, `${at}.lower`),
        upper: c.numOrNull(ch.upper, `${at}.upper`),
        verdict: c.verdict(ch.verdict, `${at}.verdict`),
      };
    });
  } else {
    if (typeof o.claim === 'string') ref.claim = o.claim;
    if (typeof o.rule === 'string') ref.rule = o.rule;
  }
  return ref;
}

// ---------------------------------------------------------------------------------------------
// Fetching

export type FetchFn = (url: string) => Promise<Pick<Response, 'ok' | 'status' | 'headers' | 'text'>>;

/**
 * The site's base URL (Vite's BASE_URL; '/' when undefined, as in Node tests). A relative base
 * (a build made with base './', which works under any sub-path) is resolved against the page's
 * base, so the reference files are found next to the page wherever it is served.
 */
export const defaultBase = (): string => {
  const base = (typeof import.meta !== 'undefined' && import.meta.env?.BASE_URL) || '/';
  return base.startsWith('.') && typeof document !== 'undefined' ? new URL(base, document.baseURI).href : base;
};

export async function fetchJson(path: string, fetchFn: FetchFn, base: string): Promise<unknown> {
  let res: Awaited<ReturnType<FetchFn>>;
  try {
    res = await fetchFn(`${base}${path}`);
  } catch (e) {
    throw new ReferenceFileError(path, `could not be fetched (${(e as Error).message})`);
  }
  if (!res.ok) throw new ReferenceFileError(path, `not found (HTTP ${res.status})`);
  // A static server may answer a missing file with the app's index.html (SPA fallback).
  if ((res.headers.get('content-type') ?? '').includes('text/html')) throw new ReferenceFileError(path, 'not found (the server answered with a web page)');
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ReferenceFileError(path, `not valid JSON (${(e as Error).message})`);
  }
}

export async function fetchReferenceIndex(fetchFn: FetchFn = fetch, base = defaultBase()): Promise<ReferenceIndex> {
  return validateReferenceIndex(await fetchJson(INDEX_PATH, fetchFn, base), INDEX_PATH);
}

export async function fetchReferenceFile(entry: ReferenceIndexEntry, fetchFn: FetchFn = fetch, base = defaultBase()): Promise<ReferenceFile> {
  const path = referencePath(entry.file);
  return validateReferenceFile(await fetchJson(path, fetchFn, base), path, entry);
}

// ---------------------------------------------------------------------------------------------
// Metric mapping

const AVG_RE = /^val\/avg@(\d+)\/t([0-9.]+)$/;

/**
 * The chart series key (among `seriesKeys`, a chart's series) that a reference curve metric draws
 * on, or null when the chart has no such series. Step metrics match by name (`actor/entropy`,
 * `critic/score/mean`, …). Held-out avg@k matches the page's avg@k' at the same temperature
 * whatever k and k': avg@k is the mean accuracy over k samples per problem, an estimate of the
 * same per-sample accuracy for any k (pass@k is not, so it matches only the same k).
 */
export function chartKeyForReferenceMetric(metric: string, seriesKeys: readonly string[]): string | null {
  if (seriesKeys.includes(metric)) return metric;
  const m = AVG_RE.exec(metric);
  if (!m) return null;
  const t = Number(m[2]);
  for (const key of seriesKeys) {
    const k = AVG_RE.exec(key);
    if (k && Number(k[2]) === t) return key;
  }
  return null;
}

/** Human name of a reference curve metric (legends, the Findings view). */
export function referenceMetricLabel(metric: string): string {
  const m = AVG_RE.exec(metric);
  if (m) return `held-out avg@${m[1]} τ=${Number(m[2])}`;
  return (
    {
      'actor/entropy': 'entropy',
      'actor/entropy_coeff_realized': 'α (realised)',
      'critic/score/mean': 'train reward',
      'response_length/mean': 'mean length',
      'response_length/clip_ratio': 'truncated',
    }[metric] ?? metric
  );
}

/** "reference: magic (5 seeds)" */
export const referenceLegend = (preset: string, seeds: number) => `reference: ${preset} (${seeds} seed${seeds === 1 ? '' : 's'})`;

/** The paper's number of a finding, from its title ("4. A constant entropy coefficient …"): null when unnumbered. */
export function paperNumber(e: Pick<ReferenceIndexEntry, 'kind' | 'title'>): number | null {
  const m = e.kind === 'finding' ? /^\s*(\d+)\.\s/.exec(e.title) : null;
  return m ? Number(m[1]) : null;
}

/** Index entries in the paper's order: its numbered findings 1–7, then the other findings, then the sweeps (each in file order). */
/**
 * The reference list grouped by model rung (tiny, small, medium, then any other, each in paperOrder), so a finding
 * run at two rungs reads as one finding per rung heading rather than every finding twice in one list.
 */
export function groupByRung<T extends Pick<ReferenceIndexEntry, 'kind' | 'title'> & { rung?: string }>(entries: readonly T[]): { rung: string; entries: T[] }[] {
  const order = ['tiny', 'small', 'medium'];
  const rungs = [...new Set(entries.map((e) => referenceRung(e)))].sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99) || a.localeCompare(b));
  return rungs.map((rung) => ({ rung, entries: paperOrder(entries.filter((e) => referenceRung(e) === rung)) }));
}

export function paperOrder<T extends Pick<ReferenceIndexEntry, 'kind' | 'title'>>(entries: readonly T[]): T[] {
  const rank = (e: T) => {
    const n = paperNumber(e);
    return n !== null ? n : e.kind === 'finding' ? 1e6 : 2e6;
  };
  return entries.map((e, i) => ({ e, i })).sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i).map((x) => x.e);
}
