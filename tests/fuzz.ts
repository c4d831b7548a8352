/**
 * A small deterministic fuzzer for the file loaders (checkpoints, run exports): seeded mutations
 * of valid files — random bytes, truncations, bit flips, and structural edits of their JSON — and
 * a harness that runs a loader on each and sorts the outcome. No dependency: the lab's own Rng.
 */
import { expect } from 'vitest';
import { Rng } from '../src/util/rng';

export { Rng };

/** `n` random bytes. */
export function randomBytes(rng: Rng, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.nextU32() & 0xff;
  return b;
}

/** A copy of `bytes` with 1–3 bits flipped at random positions in [from, to). */
export function flipBits(rng: Rng, bytes: Uint8Array, from = 0, to = bytes.length): Uint8Array {
  const out = bytes.slice();
  const n = rng.int(1, 3);
  for (let k = 0; k < n; k++) out[rng.int(from, to - 1)] ^= 1 << rng.int(0, 7);
  return out;
}

/** Characters a text mutation draws from: JSON syntax, digits, whitespace, line ends, non-ASCII. */
const CHARS = ['{', '}', '[', ']', '"', ',', ':', '0', '1', '9', '-', '.', 'e', 'a', 'n', ' ', '\n', '\r', '\t', '\\', 'é', '€', '\u0000', '\uFEFF', 'null', 'true'];

/** A string of random JSON-ish characters. */
export function randomText(rng: Rng, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += rng.pick(CHARS);
  return s;
}

/** A copy of `text` with 1–3 characters replaced at random positions in [from, to). */
export function flipChars(rng: Rng, text: string, from = 0, to = text.length): string {
  const chars = [...text];
  const n = rng.int(1, 3);
  for (let k = 0; k < n; k++) {
    const i = rng.int(from, Math.min(to, chars.length) - 1);
    let c = rng.pick(CHARS);
    if (c === chars[i]) c = chars[i] === 'x' ? 'y' : 'x';
    chars[i] = c;
  }
  return chars.join('');
}

/** Values a JSON edit puts in place of another: wrong types, edge numbers, empty and odd containers. */
const VALUES: unknown[] = [-1, 0, 1, 2, 0.5, 1.5, -0.25, 7, 99, 1e9, 1e308, -1e308, 2 ** 32, 2 ** 53 + 2, 'x', '', '0', 'crc32:00000000', null, true, false, [], {}, [0], [1, 1], [-1], { a: 1 }];

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isContainer = (v: unknown): v is Json[] | Record<string, Json> => typeof v === 'object' && v !== null;

/**
 * One random structural edit of a JSON value (a deep copy is returned): a node reached by a random
 * walk from the root is replaced, tweaked, deleted, duplicated, or given an unknown sibling.
 * Returns the edited value and the edited path (for messages).
 */
export function mutateJson(rng: Rng, value: unknown): { value: unknown; path: string } {
  const root = structuredClone(value) as Json;
  const holder: { root: Json } = { root };
  let parent: Record<string, Json> | Json[] = holder as unknown as Record<string, Json>;
  let key: string | number = 'root';
  const path: string[] = [];
  for (;;) {
    const cur: Json = (parent as Record<string, Json>)[key as string];
    if (!isContainer(cur)) break;
    const keys: (string | number)[] = Array.isArray(cur) ? cur.map((_, i) => i) : Object.keys(cur);
    if (keys.length === 0 || (path.length > 0 && rng.next() < 0.2)) break;
    parent = cur;
    key = rng.pick(keys);
    path.push(String(key));
  }
  const p = parent as Record<string | number, Json>;
  const cur = p[key];
  const op = rng.int(0, 6);
  if (op === 0 && typeof cur === 'number') p[key] = cur + rng.pick([-1, 1, 0.5, -0.5, 1e-7]);
  else if (op === 1 && path.length > 0) {
    if (Array.isArray(p)) p.splice(key as number, 1);
    else delete p[key];
  } else if (op === 2 && Array.isArray(p)) p.splice(key as number, 0, structuredClone(cur));
  else if (op === 3 && isContainer(cur) && !Array.isArray(cur)) (cur as Record<string, Json>)[rng.pick(['extra', 'constructor', '__proto__', 'kind'])] = rng.pick(VALUES) as Json;
  else if (op === 4 && Array.isArray(cur)) cur.push(rng.pick(VALUES) as Json);
  else if (op === 5 && typeof cur === 'string') p[key] = cur + rng.pick(['x', '', ' ', '0']);
  else p[key] = structuredClone(rng.pick(VALUES)) as Json;
  return { value: holder.root, path: path.join('.') };
}

/** Outcome counts of a fuzz run, and every distinct refusal message's start (to see what was exercised). */
export interface FuzzTally {
  accepted: number;
  refused: number;
  messages: Set<string>;
  slowestMs: number;
}

export const newTally = (): FuzzTally => ({ accepted: 0, refused: 0, messages: new Set(), slowestMs: 0 });

/**
 * Runs `load` on `input`: it must either return (and `check` must accept what it returned) or throw
 * an `errorType` whose one-line message starts with `prefix` — never another exception, never slowly.
 */
export function fuzzCase<T>(
  tally: FuzzTally,
  label: string,
  load: () => T,
  errorType: new (...args: never[]) => Error,
  prefix: string,
  check: (value: T) => void,
): 'accepted' | 'refused' {
  const t0 = performance.now();
  let value: T;
  try {
    value = load();
  } catch (e) {
    const ms = performance.now() - t0;
    tally.slowestMs = Math.max(tally.slowestMs, ms);
    if (!(e instanceof errorType)) throw new Error(`${label}: threw ${(e as Error)?.name ?? typeof e} instead of ${errorType.name}: ${(e as Error)?.stack ?? String(e)}`);
    const msg = (e as Error).message;
    expect(msg.startsWith(prefix), `${label}: message must name the file: ${msg}`).toBe(true);
    expect(msg.includes('\n'), `${label}: one line: ${msg}`).toBe(false);
    tally.refused++;
    tally.messages.add(msg.slice(prefix.length).replace(/\d+/g, 'N').slice(0, 48));
    return 'refused';
  }
  tally.slowestMs = Math.max(tally.slowestMs, performance.now() - t0);
  check(value);
  tally.accepted++;
  return 'accepted';
}
