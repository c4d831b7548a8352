/**
 * How deep parsed JSON nests, walked without recursion: a file whose JSON nests tens of thousands
 * deep must be refused with a message, not overflow the stack of a recursive validator later.
 */

/** The deepest nesting of arrays/objects in `value` (a scalar is 0), or `limit + 1` once past `limit`. */
export function jsonDepth(value: unknown, limit = Infinity): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    const depth = d + 1;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return limit + 1;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth]);
  }
  return deepest;
}

/** Nesting a file format of ours never needs (a checkpoint header, a config, a log record reach < 10). */
export const MAX_JSON_DEPTH = 64;
