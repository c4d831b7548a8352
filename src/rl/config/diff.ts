/**
 * Where two run configs differ, as field paths: what "these presets differ only in field X"
 * means, checked by tests/rl/config.test.ts (each preset against its base), `magic-lab sweep
 * --differ-only` and the findings' `differIn` (src/sweep/findings.ts).
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every field path where two configs differ: objects key by key, arrays of equal length element
 * by element (`stages[1].klBeta`), an array whose length changed as a whole (`stages`); a key on
 * one side only counts as changed.
 */
export function configDiffPaths(a: unknown, b: unknown, path = ''): string[] {
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) return a.flatMap((x, i) => configDiffPaths(x, b[i], `${path}[${i}]`));
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => configDiffPaths(a[k], b[k], path ? `${path}.${k}` : k));
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}

/** A declared field covers itself and its sub-paths: `loss.entropy` covers `loss.entropy.mode` and `stages` covers `stages[1].klBeta`. */
export function fieldCovers(field: string, path: string): boolean {
  return path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`);
}

/** The paths where a and b differ that none of `fields` covers (empty: they differ only in those fields). */
export function diffOutside(a: unknown, b: unknown, fields: readonly string[]): string[] {
  return configDiffPaths(a, b).filter((p) => !fields.some((f) => fieldCovers(f, p)));
}

/** Whether `path` (dots and [i] indices, as configDiffPaths writes them) names a field of `config`. */
export function hasConfigPath(config: unknown, path: string): boolean {
  const parts = path.match(/[^.[\]]+|\[\d+\]/g);
  if (!parts || path.trim() === '') return false;
  let v: unknown = config;
  for (const part of parts) {
    if (part.startsWith('[')) {
      const i = Number(part.slice(1, -1));
      if (!Array.isArray(v) || i >= v.length) return false;
      v = v[i];
    } else {
      if (!isObject(v) || !Object.prototype.hasOwnProperty.call(v, part)) return false;
      v = v[part];
    }
  }
  return true;
}
