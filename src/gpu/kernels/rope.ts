/**
 * Builders for shaders/rope.wgsl: rotary position embedding in Hugging Face's rotate_half convention,
 * forward and backward (the rotation by −angle), from cos/sin tables computed in float64 on the host.
 */
import { f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';
import { grid1d } from './elementwise';

const SHADER = 'rope.wgsl';
const WG = 64;

/**
 * cos and sin of p·θ^(−2j/hd) for p < positions, j < hd/2, as two f32 tables [positions, hd/2]: what
 * ropeRotate reads. The float64 twin is ropeTable (src/model/reference/ops/rope.ts).
 */
export function ropeTables(theta: number, headDim: number, positions: number): { cos: Float32Array; sin: Float32Array } {
  if (!(theta > 0) || !Number.isFinite(theta)) throw new RangeError(`ropeTables: theta must be a positive number, got ${theta}`);
  if (!Number.isInteger(headDim) || headDim < 2 || headDim % 2) throw new RangeError(`ropeTables: head size must be even, got ${headDim}`);
  if (!Number.isInteger(positions) || positions < 1) throw new RangeError(`ropeTables: positions must be a positive integer, got ${positions}`);
  const half = headDim / 2;
  const cos = new Float32Array(positions * half), sin = new Float32Array(positions * half);
  for (let j = 0; j < half; j++) {
    const invFreq = Math.pow(theta, (-2 * j) / headDim);
    for (let p = 0; p < positions; p++) {
      cos[p * half + j] = Math.cos(p * invFreq);
      sin[p * half + j] = Math.sin(p * invFreq);
    }
  }
  return { cos, sin };
}

/**
 * out = RoPE(x) (direction 1) or its backward Rᵀ·x (direction −1); x and out are [rows, heads, hd], row r at
 * position pos0 + r % T. The tables must cover position pos0 + T − 1 (`positions` is their row count; bind them
 * as exactly that many rows when using `state`). With `state` (a u32 storage buffer), pos0 is its word 0 at run
 * time instead, for decoding: a position whose rows the tables do not cover writes nothing.
 */
export function ropeRotate(
  rt: GpuRuntime,
  a: { x: Binding; out: Binding; cos: Binding; sin: Binding; rows: number; T: number; heads: number; headDim: number; positions: number; pos0?: number; state?: Binding; direction: 1 | -1 },
): Promise<Dispatch> {
  const pos0 = a.pos0 ?? 0;
  for (const [k, v] of Object.entries({ rows: a.rows, T: a.T, heads: a.heads, positions: a.positions })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`ropeRotate: ${k} must be a positive integer, got ${v}`);
  }
  if (!Number.isInteger(a.headDim) || a.headDim < 2 || a.headDim % 2) throw new Error(`ropeRotate: head size must be even, got ${a.headDim}`);
  if (!Number.isInteger(pos0) || pos0 < 0) throw new Error(`ropeRotate: pos0 must be a non-negative integer, got ${pos0}`);
  if (a.state && pos0 !== 0) throw new Error('ropeRotate: give pos0 or state, not both');
  if (pos0 + a.T > a.positions) throw new Error(`ropeRotate: positions up to ${pos0 + a.T - 1} need tables of ${pos0 + a.T} rows, they have ${a.positions}`);
  const half = a.headDim / 2;
  const g = grid1d(rt, a.rows * a.heads * half, WG);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: a.state ? 'rope_rotate_state' : 'rope_rotate' },
    bindings: a.state ? { 1: a.x, 2: a.cos, 3: a.sin, 4: a.out, 5: a.state } : { 1: a.x, 2: a.cos, 3: a.sin, 4: a.out },
    params: [...g.params, a.T, a.heads, half, pos0, f32bits(a.direction)],
    workgroups: g.workgroups,
    label: `rope ${a.direction > 0 ? 'forward' : 'backward'} ${a.rows}x${a.heads}x${a.headDim}`,
  });
}
