/**
 * Reference runs for the page: a compact file per sweep or finding under public/reference/
 * (`<name>.json`), and an index of them (`index.json`). Per preset per curve metric: a step grid
 * (at most 40 points), the mean over seeds, its 95% band, and every seed's curve on the same grid
 * (the page's extra curves, run-metrics.ts PAGE_CURVE_KEYS, without their seeds), rounded to 4 decimals; plus a few scalar results and, for a finding, its verdict. At a rung
 * other than tiny the file is <name>-<rung>.json and carries `rung`. Made only
 * from a real sweep's summary (`magic-lab sweep … --reference NAME`, `magic-lab ablate … --reference`).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import type { FindingResult } from './findings';
import {
  REFERENCE_INDEX_SCHEMA,
  REFERENCE_POINTS,
  REFERENCE_SCALARS,
  REFERENCE_SCHEMA,
  r4,
  referenceNameAt,
  type ReferenceCurve,
  type ReferenceFile,
  type ReferenceIndex,
  type ReferenceIndexEntry,
} from './reference-format';
import { PAGE_CURVE_KEYS } from './run-metrics';
import { aggregateCurves, type Summary } from './summary';

const PAGE_KEYS: ReadonlySet<string> = new Set(PAGE_CURVE_KEYS);

// The format itself (types, schema names, r4, checkReferenceName) is pure and shared with the page.
export * from './reference-format';

export const DEFAULT_REFERENCE_DIR = 'public/reference';

export function referenceFromSummary(
  s: Summary,
  o: { name: string; title: string; kind: 'finding' | 'sweep'; claim?: string; rule?: string; result?: FindingResult; rung?: string | null },
): ReferenceFile {
  // Tiny's files keep their name and bytes (no `rung`); another rung's are named and marked by it.
  const rung = o.rung && o.rung !== 'tiny' ? o.rung : null;
  const presets: ReferenceFile['presets'] = {};
  for (const [p, ps] of Object.entries(s.presets)) {
    const curves: Record<string, ReferenceCurve> = {};
    for (const [key, perPreset] of Object.entries({ ...s.curves, ...(s.pageCurves ?? {}) })) {
      const band = perPreset[p];
      if (!band) continue;
      const runs = Object.entries(band.seeds).map(([seed, values]) => ({ seed: Number(seed), steps: band.steps, values: values.map((v) => (v === null ? NaN : v)) }));
      const b = aggregateCurves(runs, REFERENCE_POINTS);
      curves[key] = {
        steps: b.steps,
        mean: b.mean.map(r4),
        lower: b.lower.map(r4),
        upper: b.upper.map(r4),
        // The page's extra curves (clip fractions, groups, …) carry the mean and band only: the file stays small.
        seeds: PAGE_KEYS.has(key) ? {} : Object.fromEntries(Object.entries(b.seeds).map(([seed, vs]) => [seed, vs.map(r4)])),
      };
    }
    presets[p] = {
      seeds: ps.seeds,
      entropyTarget: r4(ps.entropyTarget),
      scalars: Object.fromEntries(REFERENCE_SCALARS.map((id) => [id, { mean: r4(ps.metrics[id]?.mean ?? NaN), lower: r4(ps.metrics[id]?.lower ?? NaN), upper: r4(ps.metrics[id]?.upper ?? NaN) }])),
      curves,
    };
  }
  const ref: ReferenceFile = {
    schema: REFERENCE_SCHEMA,
    name: referenceNameAt(o.name, rung),
    kind: o.kind,
    title: rung ? `${o.title} (${rung} rung)` : o.title,
    ...(rung ? { rung } : {}),
    command: s.command,
    schedule: { steps: s.sweep.steps, minutes: s.sweep.minutes, backend: s.sweep.backend, evalProblems: s.sweep.evalProblems, evalK: s.sweep.evalK },
    interval: 'mean over seeds ± Student-t 95% (pointwise for curves)',
    presets,
  };
  if (o.claim) ref.claim = o.claim;
  if (o.rule) ref.rule = o.rule;
  if (o.result) {
    ref.verdict = o.result.verdict;
    if (o.result.premises) ref.premises = o.result.premises.map((p) => ({ says: p.premise.says, holds: p.holds, evidence: p.evidence }));
    ref.checks = o.result.checks.map((c) => ({ describe: c.describe, estimate: r4(c.estimate), lower: r4(c.lower), upper: r4(c.upper), verdict: c.verdict }));
  }
  return ref;
}

function writeAtomic(file: string, text: string): void {
  replaceFileWhole(file, text);
}

export function readReferenceIndex(dir: string): ReferenceIndex {
  const file = join(dir, 'index.json');
  if (!existsSync(file)) return { schema: REFERENCE_INDEX_SCHEMA, entries: [] };
  const idx = JSON.parse(readFileSync(file, 'utf8')) as ReferenceIndex;
  return { schema: REFERENCE_INDEX_SCHEMA, entries: Array.isArray(idx.entries) ? idx.entries : [] };
}

/** Writes DIR/<name>.json and puts its entry in DIR/index.json (replacing one of the same name; sorted by name). */
export function writeReference(dir: string, ref: ReferenceFile): { file: string; bytes: number } {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${ref.name}.json`);
  const text = JSON.stringify(ref) + '\n';
  writeAtomic(file, text);
  const idx = readReferenceIndex(dir);
  const entry: ReferenceIndexEntry = {
    name: ref.name,
    file: `${ref.name}.json`,
    kind: ref.kind,
    title: ref.title,
    ...(ref.rung ? { rung: ref.rung } : {}),
    presets: Object.keys(ref.presets),
    seeds: [...new Set(Object.values(ref.presets).flatMap((p) => p.seeds))].sort((a, b) => a - b),
    steps: ref.schedule.steps,
  };
  if (ref.verdict) entry.verdict = ref.verdict;
  idx.entries = [...idx.entries.filter((e) => e.name !== ref.name), entry].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  writeAtomic(join(dir, 'index.json'), JSON.stringify(idx, null, 2) + '\n');
  return { file, bytes: Buffer.byteLength(text) };
}
