/**
 * Builders for shaders/matmul.wgsl: out (+)= op(A)·op(B) (+ bias), the linear-layer bias
 * gradient, and the per-runtime choice between the matmul variants (picked by timing, since
 * the fast variant on a real GPU is the slow one on SwiftShader and vice versa).
 */
import { MATMUL_VARIANTS, type MatmulVariant } from '../../util/engine-options';
import { ceilDiv, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

export { MATMUL_VARIANTS, type MatmulVariant };
export const MATMUL_SHADER = 'matmul.wgsl';
const SHADER = MATMUL_SHADER;

/** Output rows × columns covered by one workgroup of each variant (must match the shader). */
const OUTPUT_TILE: Record<MatmulVariant, number> = { blocked4x4: 32, tiled64: 64 };

export interface MatmulArgs {
  a: Binding;
  b: Binding;
  out: Binding;
  /** [N], added to every row. */
  bias?: Binding;
  M: number;
  N: number;
  K: number;
  /** A stored K×M (else M×K). */
  transA: boolean;
  /** B stored N×K (else K×N). */
  transB: boolean;
  /** out += result (else out = result). */
  accumulate: boolean;
  /** Default: the variant chosen for this runtime, else 'blocked4x4'. */
  variant?: MatmulVariant;
}

export interface MatmulShape {
  M: number;
  N: number;
  K: number;
  transA: boolean;
  transB: boolean;
}

const selected = new WeakMap<GpuRuntime, MatmulVariant>();

export function selectedMatmulVariant(rt: GpuRuntime): MatmulVariant {
  return selected.get(rt) ?? 'blocked4x4';
}

export function setMatmulVariant(rt: GpuRuntime, v: MatmulVariant): void {
  if (!MATMUL_VARIANTS.includes(v)) throw new Error(`unknown matmul variant "${v}"`);
  selected.set(rt, v);
}

/** Catches a wrong shape here, where the message can name it, instead of as silent robust-access garbage. */
function checkSize(kernel: string, what: string, b: Binding, floats: number): void {
  if (b.size < floats * 4) {
    throw new Error(`${kernel}: ${what} holds ${b.size / 4} floats, needs ${floats}`);
  }
}

function checkDims(kernel: string, dims: Record<string, number>): void {
  for (const [k, v] of Object.entries(dims)) {
    if (!Number.isInteger(v) || v < 0 || v >= 2 ** 31) throw new Error(`${kernel}: ${k}=${v} is not a valid size`);
  }
}

const offsetOf = (b: Binding) => ('buffer' in b ? b.offset : 0);

/**
 * Whether blocked4x4 can read A and B as vec4f: the dimension each operand is contiguous
 * along is a multiple of 4 and both bindings start 16-byte aligned (see matmul.wgsl).
 */
function vec4Aligned(x: MatmulArgs): boolean {
  const aAlong = x.transA ? x.M : x.K;
  const bAlong = x.transB ? x.K : x.N;
  return aAlong % 4 === 0 && bAlong % 4 === 0 && offsetOf(x.a) % 16 === 0 && offsetOf(x.b) % 16 === 0;
}

/** The shader's FLAG_* uniform bits (uniforms rather than override constants: see matmul.wgsl). */
function flags(f: { transA: boolean; transB: boolean; accumulate: boolean }): number {
  return (f.transA ? 1 : 0) | (f.transB ? 2 : 0) | (f.accumulate ? 4 : 0);
}

/** out[M×N] (+)= op(A)·op(B) (+ bias). */
export async function matmul(rt: GpuRuntime, args: MatmulArgs): Promise<Dispatch> {
  const { M, N, K, transA, transB, accumulate } = args;
  checkDims('matmul', { M, N, K });
  checkSize('matmul', 'A', args.a, M * K);
  checkSize('matmul', 'B', args.b, K * N);
  checkSize('matmul', 'out', args.out, M * N);
  if (args.bias) checkSize('matmul', 'bias', args.bias, N);
  const variant = args.variant ?? selectedMatmulVariant(rt);
  const tile = OUTPUT_TILE[variant];
  if (!tile) throw new Error(`unknown matmul variant "${variant}"`);
  const bindings: Record<number, Binding> = { 1: args.a, 2: args.b, 3: args.out };
  if (args.bias) bindings[4] = args.bias;
  const entry = (variant === 'blocked4x4' && vec4Aligned(args) ? 'blocked4x4_vec4' : variant) + (args.bias ? '_bias' : '');
  return rt.dispatch({
    kernel: { shader: SHADER, entry },
    bindings,
    params: [M, N, K, flags({ transA, transB, accumulate })],
    // x covers columns, y rows: 32- or 64-wide tiles keep M, N up to ~2M under the 65535 limit.
    workgroups: [ceilDiv(N, tile), ceilDiv(M, tile)],
    label: `matmul:${entry} ${M}x${N}x${K}${transA ? ' tA' : ''}${transB ? ' tB' : ''}${accumulate ? ' +=' : ''}`,
  });
}

/** Columns per bias_grad workgroup (must match BG_COLS in the shader). */
const BIAS_GRAD_COLS = 64;

/** dbias[c] (+)= Σ_r dout[r, c]  (bias gradient of a linear layer; dout is rows×cols). */
export async function biasGrad(
  rt: GpuRuntime,
  args: { dout: Binding; dbias: Binding; rows: number; cols: number; accumulate: boolean },
): Promise<Dispatch> {
  const { rows, cols } = args;
  checkDims('biasGrad', { rows, cols });
  checkSize('biasGrad', 'dout', args.dout, rows * cols);
  checkSize('biasGrad', 'dbias', args.dbias, cols);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'bias_grad' },
    bindings: { 1: args.dout, 3: args.dbias },
    params: [rows, cols, 0, flags({ transA: false, transB: false, accumulate: args.accumulate })],
    workgroups: [ceilDiv(cols, BIAS_GRAD_COLS)],
    label: `biasGrad ${rows}x${cols}${args.accumulate ? ' +=' : ''}`,
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Temporary buffers + one recorded matmul per variant for a shape, for timing. */
async function benchDispatches(rt: GpuRuntime, shape: MatmulShape, variants: readonly MatmulVariant[]) {
  const { M, N, K } = shape;
  const make = (floats: number) => {
    const buf = rt.device.createBuffer({
      label: 'matmul.bench',
      size: Math.max(16, Math.ceil(floats / 4) * 16),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    // Small non-zero values: denormals or NaNs could make some hardware take slow paths.
    const data = new Float32Array(floats);
    for (let i = 0; i < floats; i++) data[i] = ((i * 7919) % 13) / 13 - 0.5;
    rt.write(buf, data);
    return buf;
  };
  const a = make(M * K);
  const b = make(K * N);
  const out = make(M * N);
  const dispatches = new Map<MatmulVariant, Dispatch>();
  for (const v of variants) {
    dispatches.set(v, await matmul(rt, { a, b, out, M, N, K, transA: shape.transA, transB: shape.transB, accumulate: false, variant: v }));
  }
  return {
    dispatches,
    destroy: () => {
      a.destroy();
      b.destroy();
      out.destroy();
    },
  };
}

/** Median milliseconds of `repeats` timed runs of d, after one untimed warm-up run. */
async function medianMs(rt: GpuRuntime, d: Dispatch, repeats: number): Promise<number> {
  rt.run([d]);
  await rt.sync();
  return median(await rt.time([d], Math.max(1, repeats)));
}

const flops = (s: { M: number; N: number; K: number }) => 2 * s.M * s.N * s.K;

/**
 * Median GFLOP/s of one variant at one shape (for `npm run bench`). Transposes default to false.
 * Uses temporary buffers, destroyed before returning.
 */
export async function matmulGflops(
  rt: GpuRuntime,
  variant: MatmulVariant,
  shape: { M: number; N: number; K: number; transA?: boolean; transB?: boolean },
  repeats = 5,
): Promise<number> {
  const full: MatmulShape = { ...shape, transA: shape.transA ?? false, transB: shape.transB ?? false };
  const bench = await benchDispatches(rt, full, [variant]);
  try {
    const ms = await medianMs(rt, bench.dispatches.get(variant)!, repeats);
    return flops(full) / (Math.max(ms, 1e-6) * 1e6);
  } finally {
    bench.destroy();
  }
}

/**
 * Milliseconds of each variant over the given shapes: per shape one untimed warm-up run, then the
 * median of `repeats`, summed over the shapes.
 */
export async function timeMatmulVariants(rt: GpuRuntime, shapes: MatmulShape[], repeats = 3): Promise<Record<MatmulVariant, number>> {
  if (!shapes.length) throw new Error('timeMatmulVariants: no shapes to time');
  const ms = Object.fromEntries(MATMUL_VARIANTS.map((v) => [v, 0])) as Record<MatmulVariant, number>;
  for (const shape of shapes) {
    const bench = await benchDispatches(rt, shape, MATMUL_VARIANTS);
    try {
      for (const v of MATMUL_VARIANTS) ms[v] += await medianMs(rt, bench.dispatches.get(v)!, repeats);
    } finally {
      bench.destroy();
    }
  }
  return ms;
}

/** Times every variant at the given shapes (after warm-up, median of a few runs) and records the fastest as this runtime's default. */
export async function chooseMatmulVariant(rt: GpuRuntime, shapes: MatmulShape[]): Promise<{ chosen: MatmulVariant; gflops: Record<MatmulVariant, number> }> {
  if (!shapes.length) throw new Error('chooseMatmulVariant: no shapes to time');
  const ms = await timeMatmulVariants(rt, shapes, 3);
  const totalFlops = shapes.reduce((s, x) => s + flops(x), 0);
  const gflops = Object.fromEntries(
    MATMUL_VARIANTS.map((v) => [v, totalFlops / (Math.max(ms[v], 1e-6) * 1e6)]),
  ) as Record<MatmulVariant, number>;
  let chosen = MATMUL_VARIANTS[0];
  for (const v of MATMUL_VARIANTS) if (gflops[v] > gflops[chosen]) chosen = v;
  setMatmulVariant(rt, chosen);
  return { chosen, gflops };
}
