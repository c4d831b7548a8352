/**
 * scripts/peers/jaxjs-gpt.mjs drawToken: the 'lt' form the bench times on jax-js-WebGPU (because
 * random.categorical's argmax kernel never compiles on SwiftShader) is the same draw as
 * random.categorical: same key → same tokens, and at a tiny temperature the argmax. Run on jax-js's
 * CPU backend in Node: this is the draw's logic, not the WebGPU kernel.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import * as jax from '@jax-js/jax';
// @ts-expect-error: a plain .mjs benchmark module without types
import { drawToken } from '../../scripts/peers/jaxjs-gpt.mjs';

const { numpy: np, random } = jax;
const B = 64;
const V = 32;
const L = Float32Array.from({ length: B * V }, (_, i) => 3 * Math.sin(i * 1.7));
const logits = () => np.array(L).reshape([B, V]);
const draw = async (seed: number, form: string, temperature = 1) => Array.from(await drawToken(random.key(seed), logits(), temperature, form).data());

describe('drawToken (scripts/peers/jaxjs-gpt.mjs)', () => {
  beforeAll(async () => {
    await jax.init('cpu');
    jax.defaultDevice('cpu');
  });

  it("'lt' draws what random.categorical draws from the same key", async () => {
    for (const seed of [1, 9]) {
      const want = await draw(seed, 'categorical');
      expect(await draw(seed, 'lt')).toEqual(want);
      expect(new Set(want).size, 'the draws vary across rows').toBeGreaterThan(4);
    }
  });

  it("'lt' at τ = 1e-5 is each row's argmax; an unknown form is refused by name", async () => {
    const argmax = Array.from({ length: B }, (_, b) => {
      const row = Array.from(L.subarray(b * V, (b + 1) * V));
      return row.indexOf(Math.max(...row));
    });
    expect(await draw(3, 'lt', 1e-5)).toEqual(argmax);
    expect(() => drawToken(random.key(0), logits(), 1, 'argmax')).toThrow(/drawToken: unknown draw argmax/);
  });
});
