/**
 * Small deterministic PRNGs shared by every layer (tasks, model init, RL data cursor).
 * A run must replay bit-for-bit from its seed, so nothing here touches Math.random.
 */

/** SplitMix32-style hash of a 32-bit integer: used to derive independent streams from one seed. */
export function hash32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/**
 * Mulberry32 generator. Its whole state is one uint32, so it can be saved in a checkpoint
 * (`state`) and restored (`new Rng(0, state)`) to continue the same stream.
 */
export class Rng {
  state: number;
  constructor(seed: number, state?: number) {
    this.state = state !== undefined ? state >>> 0 : hash32(seed >>> 0);
  }
  /** Uniform uint32. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Uniform float in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }
  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** Standard normal via Box-Muller (one value per call; simple over fast). */
  normal(): number {
    const u1 = 1 - this.next(); // (0, 1]: log is finite
    const u2 = this.next();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }
  /** Pick one element uniformly. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** Fisher-Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}
