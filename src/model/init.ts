import { Rng } from '../util/rng';
import { INIT_STD, layoutParams, type ModelConfig } from './config';

/** Deterministic seeded initialisation into the flat layout (padding stays zero). */
export function initParams(cfg: ModelConfig, seed: number): Float32Array {
  const layout = layoutParams(cfg);
  const params = new Float32Array(layout.totalFloats);
  const rng = new Rng(seed);
  const residualStd = INIT_STD / Math.sqrt(2 * cfg.nLayers);
  for (const t of layout.tensors) {
    const view = params.subarray(t.offset, t.offset + t.size);
    if (t.init === 'ones') view.fill(1);
    else if (t.init === 'normal' || t.init === 'normal-residual') {
      const std = t.init === 'normal' ? INIT_STD : residualStd;
      for (let i = 0; i < view.length; i++) view[i] = rng.normal() * std;
    }
  }
  return params;
}
