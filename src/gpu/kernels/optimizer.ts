/**
 * Builders for shaders/optimizer.wgsl: the global gradient norm (two-stage, deterministic) and
 * AdamW with gradient clipping read from that norm on the GPU, which skips a non-finite step
 * (norm or loss ±Inf / NaN) without writing anything. Float64 twins: clipGradNorm, stepIsFinite
 * and adamwStep (with its gate) in src/model/reference/ops.ts.
 */
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';
import type { AdamWOptions } from '../../util/engine-options';

const SHADER = 'optimizer.wgsl';
const WG = 256;
/** Stage-1 workgroups are capped so stage 2 (one workgroup) stays a single pass. */
const MAX_NORM_GROUPS = 256;
/** Elements each stage-1 invocation sums at least, before another workgroup is added. */
const NORM_ELEMS_PER_THREAD = 8;

function normGroups(n: number): number {
  return Math.min(MAX_NORM_GROUPS, Math.max(1, ceilDiv(n, WG * NORM_ELEMS_PER_THREAD)));
}

function checkCount(n: number, what: string): void {
  if (!Number.isInteger(n) || n < 1) throw new Error(`${what}: n must be a positive integer, got ${n}`);
}

/** Floats of scratch gradNorm needs for n gradients (one partial sum per stage-1 workgroup). */
export function gradNormScratchFloats(n: number): number {
  return normGroups(n);
}

/** norm[0] = √Σ grads² over n floats, deterministic two-stage reduction (no atomics), into `norm` (f32 [1]); scratch sized by gradNormScratchFloats(n). */
export async function gradNorm(rt: GpuRuntime, a: { grads: Binding; n: number; scratch: Binding; norm: Binding }): Promise<Dispatch[]> {
  checkCount(a.n, 'gradNorm');
  const groups = normGroups(a.n);
  // The rest of the shared Params struct is unused by these entries but must be bound.
  const params = [a.n, groups, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
  return [
    await rt.dispatch({
      kernel: { shader: SHADER, entry: 'grad_norm_partial' },
      bindings: { 2: a.grads, 6: a.scratch },
      params,
      workgroups: groups,
    }),
    await rt.dispatch({
      kernel: { shader: SHADER, entry: 'grad_norm_final' },
      bindings: { 5: a.norm, 6: a.scratch },
      params,
      workgroups: 1,
    }),
  ];
}

export type { AdamWOptions };

function checkAdamW(step: number, o: AdamWOptions): void {
  if (!Number.isInteger(step) || step < 1) throw new Error(`adamw: step must be an integer ≥ 1, got ${step}`);
  for (const k of ['lr', 'eps', 'weightDecay'] as const) {
    if (!Number.isFinite(o[k]) || o[k] < 0) throw new Error(`adamw: ${k} must be finite and ≥ 0, got ${o[k]}`);
  }
  for (const k of ['beta1', 'beta2'] as const) {
    if (!(o[k] >= 0 && o[k] < 1)) throw new Error(`adamw: ${k} must be in [0, 1), got ${o[k]}`);
  }
  if (!(o.maxGradNorm > 0)) throw new Error(`adamw: maxGradNorm must be > 0 (Infinity = no clipping), got ${o.maxGradNorm}`);
}

/** Uniform words; bias corrections and 1 − β are computed here in float64. */
function adamwWords(n: number, rowGroups: number, decayEnd: number, step: number, o: AdamWOptions): number[] {
  const clip = Number.isFinite(o.maxGradNorm);
  return [
    n,
    rowGroups,
    decayEnd,
    clip ? 1 : 0,
    f32bits(o.lr),
    f32bits(o.beta1),
    f32bits(1 - o.beta1),
    f32bits(o.beta2),
    f32bits(1 - o.beta2),
    f32bits(o.eps),
    f32bits(o.weightDecay),
    f32bits(1 / (1 - o.beta1 ** step)),
    f32bits(1 / (1 - o.beta2 ** step)),
    f32bits(clip ? o.maxGradNorm : 0),
  ];
}

/**
 * In-place AdamW over the flat params (n floats) reading the clip scale from norm[0] ON THE GPU
 * (no readback); `update` sets the step t (≥1, for bias correction) and options each step
 * without re-recording. `loss` (f32 [1], another buffer than `norm`) holds the step's loss: when
 * it or norm[0] is not finite the kernel writes nothing — params, m and v keep their bits (a
 * rejected step; the caller reads the same two values back to know).
 */
export async function adamw(
  rt: GpuRuntime,
  a: { params: Binding; grads: Binding; m: Binding; v: Binding; norm: Binding; loss: Binding; n: number; decayEnd: number; opts: AdamWOptions },
): Promise<{ dispatches: Dispatch[]; update(rt: GpuRuntime, step: number, opts: AdamWOptions): void }> {
  checkCount(a.n, 'adamw');
  if (!Number.isInteger(a.decayEnd) || a.decayEnd < 0 || a.decayEnd > a.n) {
    throw new Error(`adamw: decayEnd must be an integer in [0, n=${a.n}], got ${a.decayEnd}`);
  }
  checkAdamW(1, a.opts);
  const groups = ceilDiv(a.n, WG);
  const rowGroups = Math.min(groups, rt.limits.maxComputeWorkgroupsPerDimension);
  const workgroups: [number, number] = [rowGroups, ceilDiv(groups, rowGroups)];
  const { n, decayEnd } = a;
  const d = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'adamw' },
    bindings: { 1: a.params, 2: a.grads, 3: a.m, 4: a.v, 5: a.norm, 7: a.loss },
    params: adamwWords(n, rowGroups, decayEnd, 1, a.opts),
    workgroups,
  });
  return {
    dispatches: [d],
    update(rt2: GpuRuntime, step: number, opts: AdamWOptions) {
      checkAdamW(step, opts);
      rt2.setParams(d, adamwWords(n, rowGroups, decayEnd, step, opts));
    },
  };
}
