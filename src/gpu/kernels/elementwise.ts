/** Builders for shaders/elementwise.wgsl: GELU forward/backward, residual add, gradient accumulate. */
import { ceilDiv, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

const SHADER = 'elementwise.wgsl';
const WG = 256;

/** Folds a 1-D launch of n invocations into (x, y) workgroups under the per-dimension limit. */
export function grid1d(rt: GpuRuntime, n: number, wgSize = WG): { params: number[]; workgroups: [number, number] } {
  const groups = Math.max(1, ceilDiv(n, wgSize));
  const max = rt.limits.maxComputeWorkgroupsPerDimension;
  const x = Math.min(groups, max);
  const y = ceilDiv(groups, x);
  return { params: [n, x], workgroups: [x, y] };
}

/** out[i] = gelu(inp[i]) */
export function geluForward(rt: GpuRuntime, a: { inp: Binding; out: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, a.n);
  return rt.dispatch({ kernel: { shader: SHADER, entry: 'gelu_forward' }, bindings: { 1: a.inp, 3: a.out }, params: g.params, workgroups: g.workgroups });
}

/** dinp[i] = gelu'(inp[i]) · dout[i] */
export function geluBackward(rt: GpuRuntime, a: { inp: Binding; dout: Binding; dinp: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, a.n);
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'gelu_backward' },
    bindings: { 1: a.inp, 2: a.dout, 3: a.dinp },
    params: g.params,
    workgroups: g.workgroups,
  });
}

/** out = a + b */
export function add(rt: GpuRuntime, x: { a: Binding; b: Binding; out: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, x.n);
  return rt.dispatch({ kernel: { shader: SHADER, entry: 'add' }, bindings: { 1: x.a, 2: x.b, 3: x.out }, params: g.params, workgroups: g.workgroups });
}

/** out += inp */
export function accumulate(rt: GpuRuntime, x: { inp: Binding; out: Binding; n: number }): Promise<Dispatch> {
  const g = grid1d(rt, x.n);
  return rt.dispatch({ kernel: { shader: SHADER, entry: 'accumulate' }, bindings: { 1: x.inp, 3: x.out }, params: g.params, workgroups: g.workgroups });
}
