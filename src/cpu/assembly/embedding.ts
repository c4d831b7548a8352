// Token + position embeddings (twin: encoderForward / encoderBackward in src/model/reference/ops.ts).
import { at } from './common';

/** Rows [r0, r1) of out[r] = wte[tokens[r]] + wpe[r mod T] (r = b·T + t). */
export function encoderForward(tokens: usize, wte: usize, wpe: usize, out: usize, T: i32, C: i32, r0: i32, r1: i32): void {
  const row = <usize>C << 2;
  for (let r = r0; r < r1; r++) {
    const tok = load<u32>(at(tokens, r));
    const e = wte + <usize>tok * row;
    const p = wpe + <usize>(r % T) * row;
    const o = out + <usize>r * row;
    addRow(e, p, o, C);
  }
}

/** Decode: out[b] = wte[tokens[b·stride + pos]] + wpe[pos] for sequences [b0, b1). */
export function encoderDecode(tokens: usize, wte: usize, wpe: usize, out: usize, stride: i32, pos: i32, C: i32, b0: i32, b1: i32): void {
  const row = <usize>C << 2;
  for (let b = b0; b < b1; b++) {
    const tok = load<u32>(at(tokens, b * stride + pos));
    addRow(wte + <usize>tok * row, wpe + <usize>pos * row, out + <usize>b * row, C);
  }
}

@inline function addRow(x: usize, y: usize, o: usize, C: i32): void {
  let c = 0;
  for (; c + 4 <= C; c += 4) v128.store(at(o, c), f32x4.add(v128.load(at(x, c)), v128.load(at(y, c))));
  for (; c < C; c++) store<f32>(at(o, c), load<f32>(at(x, c)) + load<f32>(at(y, c)));
}

/**
 * Channels [c0, c1) of dwte[tokens[r]] += dout[r], dwpe[r mod T] += dout[r], rows in order, so
 * every element is summed in a fixed order (a channel split needs no atomics).
 */
export function encoderBackward(dout: usize, tokens: usize, dwte: usize, dwpe: usize, rows: i32, T: i32, C: i32, c0: i32, c1: i32): void {
  const row = <usize>C << 2;
  for (let r = 0; r < rows; r++) {
    const tok = load<u32>(at(tokens, r));
    const d = dout + <usize>r * row;
    const e = dwte + <usize>tok * row;
    const p = dwpe + <usize>(r % T) * row;
    let c = c0;
    for (; c + 4 <= c1; c += 4) {
      const g = v128.load(at(d, c));
      v128.store(at(e, c), f32x4.add(v128.load(at(e, c)), g));
      v128.store(at(p, c), f32x4.add(v128.load(at(p, c)), g));
    }
    for (; c < c1; c++) {
      const g = load<f32>(at(d, c));
      store<f32>(at(e, c), load<f32>(at(e, c)) + g);
      store<f32>(at(p, c), load<f32>(at(p, c)) + g);
    }
  }
}
