/**
 * Lessons: a teacher's sequence of Try-this cards as a small JSON file or URL (lesson=<JSON> or
 * lesson=<relative .json path>), stepped through with "next". Pure, but for the fetch.
 *
 *   { "title": "Entropy in three steps",
 *     "hidden": ["config", "findings"],                      controls left out (lib/teach.ts ids)
 *     "cards": [ { "card": "temperature",                    a Try-this card id (lib/experiments.ts)
 *                  "arms": ["a", "b"],                       optional: the arms to play (default all)
 *                  "questions": ["Which arm's entropy falls faster?"] } ] }
 */
import { ALL_CARDS } from './collapse-card';
import { HIDEABLE } from './teach';

export const LESSON_PARAM = 'lesson';

export interface LessonCard {
  card: string;
  arms?: string[];
  questions: string[];
}

export interface Lesson {
  title: string;
  hidden: string[];
  cards: LessonCard[];
}

/** A lesson that cannot be used: the message names the field (lesson.cards[1].card) and what is wrong. */
export class LessonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LessonError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeName = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
const fail = (at: string, detail: string): never => {
  throw new LessonError(`${at}: ${detail}`);
};

function strings(v: unknown, at: string): string[] {
  if (!Array.isArray(v)) fail(at, `must be an array of strings, got ${typeName(v)}`);
  return (v as unknown[]).map((x, i) => (typeof x === 'string' && x.trim() ? x : fail(`${at}[${i}]`, `must be a non-empty string, got ${JSON.stringify(x) ?? typeName(x)}`)));
}

const KNOWN_KEYS = { lesson: ['title', 'hidden', 'cards'], card: ['card', 'arms', 'questions'] };

function noExtra(o: Obj, allowed: readonly string[], at: string) {
  const extra = Object.keys(o).find((k) => !allowed.includes(k));
  if (extra) fail(`${at}.${extra}`, `unknown field (allowed: ${allowed.join(', ')})`);
}

/** Validates a lesson; throws LessonError naming the first bad field. */
export function parseLesson(json: unknown): Lesson {
  if (!isObj(json)) return fail('lesson', `must be an object, got ${typeName(json)}`);
  noExtra(json, KNOWN_KEYS.lesson, 'lesson');
  const title = json.title;
  if (typeof title !== 'string' || !title.trim()) fail('lesson.title', `must be a non-empty string, got ${JSON.stringify(title) ?? typeName(title)}`);
  const hidden = json.hidden === undefined ? [] : strings(json.hidden, 'lesson.hidden');
  const known = new Set(HIDEABLE.map((h) => h.id));
  hidden.forEach((h, i) => known.has(h) || fail(`lesson.hidden[${i}]`, `no control "${h}" to hide`));
  if (!Array.isArray(json.cards) || json.cards.length === 0) fail('lesson.cards', `must be a non-empty array, got ${typeName(json.cards)}`);
  const cards = (json.cards as unknown[]).map((c, i): LessonCard => {
    const at = `lesson.cards[${i}]`;
    if (!isObj(c)) return fail(at, `must be an object, got ${typeName(c)}`);
    noExtra(c, KNOWN_KEYS.card, at);
    const e = ALL_CARDS.find((x) => x.id === c.card);
    if (!e) fail(`${at}.card`, `no Try-this card ${JSON.stringify(c.card)} (cards: ${ALL_CARDS.map((x) => x.id).join(', ')})`);
    const keys = e!.setups.map((s) => s.key);
    const arms = c.arms === undefined ? undefined : strings(c.arms, `${at}.arms`);
    arms?.forEach((a, j) => keys.includes(a) || fail(`${at}.arms[${j}]`, `card ${e!.id} has no arm "${a}" (arms: ${keys.join(', ')})`));
    if (arms && arms.length < 2) fail(`${at}.arms`, 'must name at least two arms to compare');
    const questions = c.questions === undefined ? [] : strings(c.questions, `${at}.questions`);
    return { card: e!.id, ...(arms ? { arms } : {}), questions };
  });
  return { title: (title as string).trim(), hidden, cards };
}

/** What lesson= holds: inline JSON, or a relative path to a .json file on this site (no other hosts). */
export function lessonSource(value: string): { json: string } | { path: string } {
  const v = value.trim();
  if (v.startsWith('{')) return { json: v };
  if (/^[A-Za-z0-9_][A-Za-z0-9_./-]*\.json$/.test(v) && !v.split('/').includes('..')) return { path: v };
  return fail('lesson', `must be lesson JSON or a relative .json path, got ${JSON.stringify(v.slice(0, 60))}`);
}

/** Reads the lesson of lesson=value (fetching a path relative to `base`); throws LessonError. */
export async function loadLesson(value: string, fetchFn: typeof fetch = fetch, base = '/'): Promise<Lesson> {
  const src = lessonSource(value);
  let text: string;
  let where = 'lesson';
  if ('json' in src) text = src.json;
  else {
    where = src.path;
    const res = await fetchFn(`${base}${src.path}`).catch((e: Error) => fail(where, `could not be fetched: ${e.message}`));
    if (!res.ok) fail(where, `could not be fetched: HTTP ${res.status}`);
    text = await res.text();
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return fail(where, `is not JSON: ${(e as Error).message}`);
  }
  try {
    return parseLesson(json);
  } catch (e) {
    throw where === 'lesson' ? e : new LessonError(`${where}: ${(e as Error).message}`);
  }
}
