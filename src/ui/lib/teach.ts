/**
 * Teacher mode, TensorFlow Playground style: the URL says which controls the page leaves out, so a
 * teacher can share a page stripped to what one lesson needs.
 *
 *   hide=config,stages,chart-clipfrac   those controls are not rendered (any link, teacher or not)
 *   teacher=1                          shows the teacher bar: tick what to hide, copy the students' link
 *   try=temperature.b                  the Try-this setup the link loads (lib/experiments.ts)
 *
 * Pure: parsing and writing these page parameters (the config parameters are lib/url.ts's).
 */
import { DEFAULT_RUN_CONFIG } from '../../rl/config';
import { chartSpecs } from './chartdata';
import { GROUP_ORDER, GROUP_TITLES } from './fields';

export const TEACHER_PARAM = 'teacher';
export const HIDE_PARAM = 'hide';
export const TRY_PARAM = 'try';

export interface Hideable {
  id: string;
  label: string;
}

/** Every control a teacher can hide, in the order the teacher bar lists them. */
export const HIDEABLE: readonly Hideable[] = [
  { id: 'presets', label: 'Preset picker' },
  { id: 'stages', label: 'Stage schedule' },
  { id: 'config', label: 'Configuration (all of it)' },
  ...GROUP_ORDER.map((g) => ({ id: `config-${g}`, label: `Configuration: ${GROUP_TITLES[g]}` })),
  { id: 'explainer', label: 'How MAGIC works' },
  { id: 'try', label: 'Try this' },
  { id: 'coverage', label: 'Coverage lesson' },
  { id: 'findings', label: 'Findings tab' },
  { id: 'bench', label: 'Benchmark tab' },
  { id: 'timeline', label: 'Stage timeline' },
  { id: 'explain', label: 'Chart explanations' },
  ...chartSpecs(DEFAULT_RUN_CONFIG).map((c) => ({ id: `chart-${c.id}`, label: `Chart: ${c.title}` })),
  { id: 'rollouts', label: 'Rollout viewer' },
  { id: 'runs', label: 'Runs panel' },
  { id: 'checkpoints', label: 'Checkpoints' },
  { id: 'engine', label: 'Engine panel' },
];

const KNOWN = new Set(HIDEABLE.map((h) => h.id));

export interface Teaching {
  teacher: boolean;
  /** Known ids to hide, in HIDEABLE order, no duplicates. */
  hidden: string[];
  /** Ids in hide= that name no control (listed in the teacher bar, otherwise ignored). */
  unknown: string[];
  tryId: string | null;
}

/** The teaching parameters of a query string. */
export function teachingFromUrl(search: string): Teaching {
  const p = new URLSearchParams(search);
  const asked = p
    .getAll(HIDE_PARAM)
    .flatMap((v) => v.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  const t = p.get(TEACHER_PARAM);
  return {
    teacher: t !== null && t !== '0' && t !== 'false',
    hidden: HIDEABLE.map((h) => h.id).filter((id) => asked.includes(id)),
    unknown: [...new Set(asked.filter((id) => !KNOWN.has(id)))],
    tryId: p.get(TRY_PARAM) || null,
  };
}

/** `search` with the teaching parameters set (hide= in HIDEABLE order; absent when empty or false). Config parameters are kept. */
export function withTeaching(search: string, t: { teacher?: boolean; hidden?: readonly string[]; tryId?: string | null }): string {
  const p = new URLSearchParams(search);
  if (t.teacher !== undefined) {
    if (t.teacher) p.set(TEACHER_PARAM, '1');
    else p.delete(TEACHER_PARAM);
  }
  if (t.hidden !== undefined) {
    const ids = HIDEABLE.map((h) => h.id).filter((id) => t.hidden!.includes(id));
    if (ids.length) p.set(HIDE_PARAM, ids.join(','));
    else p.delete(HIDE_PARAM);
  }
  if (t.tryId !== undefined) {
    if (t.tryId) p.set(TRY_PARAM, t.tryId);
    else p.delete(TRY_PARAM);
  }
  // Commas stay readable in a shared link (URLSearchParams would write %2C).
  const s = p.toString().replace(/%2C/gi, ',');
  return s ? `?${s}` : '';
}

/** The link students get: the teacher's page without the teacher bar (and without run=, which names a run in the teacher's browser). */
export function studentSearch(search: string): string {
  const p = new URLSearchParams(withTeaching(search, { teacher: false }));
  p.delete('run');
  const s = p.toString().replace(/%2C/gi, ',');
  return s ? `?${s}` : '';
}

/** A predicate: is control `id` shown? A config group is hidden with the whole config too. */
export function shownFor(hidden: readonly string[]): (id: string) => boolean {
  const h = new Set(hidden);
  return (id) => !h.has(id) && !(id.startsWith('config-') && h.has('config'));
}
