/**
 * The non-finite optimizer steps both engines' AdamW kernels must reject (tests/gpu/optimizer.test.ts,
 * tests/cpu/kernels.test.ts): a ±Inf / NaN gradient element, or a non-finite loss with finite
 * gradients. `poison` edits the step's gradient in place and returns its loss.
 */
import type { Rng } from '../src/util/rng';

export interface NonfiniteStep {
  what: string;
  poison: (g: Float64Array, rng: Rng) => number;
}

export const NONFINITE_STEPS: readonly NonfiniteStep[] = [
  { what: 'an Infinity gradient', poison: (g, rng) => ((g[rng.nextU32() % g.length] = Infinity), 0.5) },
  { what: 'a -Infinity gradient', poison: (g, rng) => ((g[rng.nextU32() % g.length] = -Infinity), 0.5) },
  { what: 'a NaN gradient', poison: (g, rng) => ((g[rng.nextU32() % g.length] = NaN), 0.5) },
  { what: 'a NaN loss', poison: () => NaN },
  { what: 'an Infinity loss', poison: () => Infinity },
  { what: 'a -Infinity loss', poison: () => -Infinity },
];
