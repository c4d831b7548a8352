// GELU forward/backward and residual adds (twin: geluForward / geluBackward in src/model/reference/ops.ts).
// The matmul epilogues fuse the same math (src/cpu/assembly/matmul.ts); these stand-alone passes
// use the identical lane code, so fused and unfused results agree bit for bit.
import { at, gelu4, geluGrad4 } from './common';

/** Elements [i0, i1) of out = gelu(inp). */
export function geluForward(inp: usize, out: usize, i0: i32, i1: i32): void {
  let i = i0;
  for (; i + 4 <= i1; i += 4) v128.store(at(out, i), gelu4(v128.load(at(inp, i))));
  for (; i < i1; i++) store<f32>(at(out, i), f32x4.extract_lane(gelu4(v128.load32_splat(at(inp, i))), 0));
}

/** Elements [i0, i1) of dinp = dout · gelu'(inp). */
export function geluBackward(inp: usize, dout: usize, dinp: usize, i0: i32, i1: i32): void {
  let i = i0;
  for (; i + 4 <= i1; i += 4) v128.store(at(dinp, i), f32x4.mul(v128.load(at(dout, i)), geluGrad4(v128.load(at(inp, i)))));
  for (; i < i1; i++) {
    const v = f32x4.mul(v128.load32_splat(at(dout, i)), geluGrad4(v128.load32_splat(at(inp, i))));
    store<f32>(at(dinp, i), f32x4.extract_lane(v, 0));
  }
}

/** Elements [i0, i1) of out = a + b (out may alias a). */
export function add(a: usize, b: usize, out: usize, i0: i32, i1: i32): void {
  let i = i0;
  for (; i + 4 <= i1; i += 4) v128.store(at(out, i), f32x4.add(v128.load(at(a, i)), v128.load(at(b, i))));
  for (; i < i1; i++) store<f32>(at(out, i), load<f32>(at(a, i)) + load<f32>(at(b, i)));
}

/** Elements [i0, i1) of dst = src (f32 or u32 words). */
export function copy(src: usize, dst: usize, i0: i32, i1: i32): void {
  memory.copy(at(dst, i0), at(src, i0), <usize>(i1 - i0) << 2);
}
