/** Plain-value helpers the config's validator, presets and URL codec share. */

export type Rec = Record<string, unknown>;
export const isObj = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

// NaN is what an emptied number field in the page reports: say so, not "got NaN".
// Shortened (a field may hold a megabyte of junk: the message stays one readable line); a value JSON cannot write says its type.
export const describe = (v: unknown): string => {
  if (v === undefined) return 'nothing';
  if (typeof v === 'number') return Number.isNaN(v) ? 'an empty field' : String(v);
  let text: string | undefined;
  try {
    text = JSON.stringify(v);
  } catch {
    text = undefined;
  }
  // Too deeply nested for JSON.stringify's recursion, or a function / symbol / bigint.
  if (text === undefined) return Array.isArray(v) ? 'a deeply nested array' : `a ${typeof v === 'object' ? 'deeply nested object' : typeof v}`;
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

export function clone<T>(v: T): T {
  if (Array.isArray(v)) return v.map(clone) as T;
  if (isObj(v)) {
    const out: Rec = {};
    for (const k of Object.keys(v)) out[k] = clone(v[k]);
    return out as T;
  }
  return v;
}

export const join = (path: string, k: string) => (path ? `${path}.${k}` : k);

/** Path with array indices replaced by [] to look up templates and rules: stages[2].convergence → stages[].convergence. */
export const pattern = (path: string) => path.replace(/\[\d+\]/g, '[]');

export function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const k of Object.keys(v)) deepFreeze((v as Rec)[k]);
    Object.freeze(v);
  }
  return v;
}
