/**
 * A Llama / Qwen2 decoder on WebGPU, one token per sequence at a time against per-layer KV caches: the
 * incremental path a sampler runs. Recorded once for (B, Tmax); the position is a u32 state word, so the
 * same dispatches replay at every step (the host writes the state, this step's tokens and, for scoring, the
 * next tokens). Each step gives log p(next | prefix), the entropy and log Σ e^z of each sequence's next-token
 * distribution; it equals the full forward's row at that position (tests/gpu/hf-decode.test.ts).
 *
 * With `sample`, the head samples instead of scoring (vocabHeadSample: temperature τ, the draw of
 * uniformAt(seed, b, pos), no top-p) and writes the sampled tokens INTO the tokens buffer, so the next step
 * reads them without the host: hfGpuGenerate runs a prompt and then generates.
 */
import { add } from '../../gpu/kernels/elementwise';
import { gqaDecode } from '../../gpu/kernels/gqa';
import { matmul } from '../../gpu/kernels/matmul';
import { normForward } from '../../gpu/kernels/norm';
import { ropeRotate, ropeTables } from '../../gpu/kernels/rope';
import { swigluForward } from '../../gpu/kernels/swiglu';
import { embedRows, vocabHeadForward, vocabHeadSample } from '../../gpu/kernels/vocab';
import type { Dispatch, GpuRuntime } from '../../gpu/runtime';
import { NO_TARGET } from '../reference/ops/vocab';
import type { HfGpuWeights } from './gpu-forward';
import { DEFAULT_VOCAB_CHUNK } from './reference-forward';

export interface HfGpuDecoder {
  B: number;
  Tmax: number;
  dispatches: Dispatch[];
  /**
   * Writes the position and this step's tokens (and the tokens to score, NO_TARGET for none), ready to run.
   * Without tokens (sampling decoders), the step reads the tokens the previous step sampled.
   */
  prepare(pos: number, tokens?: readonly number[], next?: readonly number[]): void;
  /** u32 [B]: this step's input tokens; after a sampling step, the sampled ones. */
  tokens: GPUBuffer;
  logp: GPUBuffer;
  entropy: GPUBuffer;
  lse: GPUBuffer;
}

/** Records the decode step for B sequences of up to Tmax positions (buffers `hf.dec.*`; caches start empty). */
export async function recordHfDecoder(
  rt: GpuRuntime,
  gw: HfGpuWeights,
  B: number,
  Tmax: number,
  chunk = DEFAULT_VOCAB_CHUNK,
  sample?: { temperature: number; seed: number },
): Promise<HfGpuDecoder> {
  const c = gw.config;
  if (!Number.isInteger(B) || B < 1) throw new RangeError(`hf GPU decoder: B must be a positive integer, got ${B}`);
  if (!Number.isInteger(Tmax) || Tmax < 1 || Tmax > c.maxPositions) throw new RangeError(`hf GPU decoder: Tmax must be 1 … ${c.maxPositions} (max_position_embeddings), got ${Tmax}`);
  const d = c.hiddenSize, hd = c.headDim, H = c.numHeads, Hkv = c.numKvHeads, M = c.intermediateSize;
  const buf = (name: string, floats: number) => rt.buffer(`hf.dec.${name}`, floats * 4);
  const tokens = buf('tokens', B), targets = buf('targets', B), state = buf('state', 1);
  const tables = ropeTables(c.ropeTheta, hd, Tmax);
  const cosBuf = buf('rope.cos', tables.cos.length), sinBuf = buf('rope.sin', tables.sin.length);
  rt.write(cosBuf, tables.cos);
  rt.write(sinBuf, tables.sin);
  // Bound as exactly Tmax rows: the state-driven RoPE writes nothing past them.
  const cos = { buffer: cosBuf, offset: 0, size: tables.cos.byteLength }, sin = { buffer: sinBuf, offset: 0, size: tables.sin.byteLength };

  const ds: Promise<Dispatch | Dispatch[]>[] = [];
  const linear = (x: GPUBuffer, W: GPUBuffer, out: GPUBuffer, inDim: number, outDim: number, bias?: GPUBuffer | null) =>
    ds.push(matmul(rt, { a: x, b: W, out, bias: bias ?? undefined, M: B, N: outDim, K: inDim, transA: false, transB: true, accumulate: false }));
  const rope = (x: GPUBuffer, out: GPUBuffer, heads: number) => ds.push(ropeRotate(rt, { x, out, cos, sin, rows: B, T: 1, heads, headDim: hd, positions: Tmax, state, direction: 1 }));
  const [h, h1, n, tmp, rstd] = [buf('h', B * d), buf('h1', B * d), buf('n', B * d), buf('tmp', B * d), buf('rstd', B)];
  const [qPre, q, kPre, k, v, ao] = [buf('qPre', B * H * hd), buf('q', B * H * hd), buf('kPre', B * Hkv * hd), buf('k', B * Hkv * hd), buf('v', B * Hkv * hd), buf('ao', B * H * hd)];
  const [gate, up, act, scores] = [buf('gate', B * M), buf('up', B * M), buf('act', B * M), buf('scores', B * H * Tmax)];
  ds.push(embedRows(rt, { tokens, table: gw.embed, out: h, N: B }));
  gw.layers.forEach((L, l) => {
    const kcache = buf(`L${l}.kcache`, B * Tmax * Hkv * hd), vcache = buf(`L${l}.vcache`, B * Tmax * Hkv * hd);
    ds.push(normForward(rt, { kind: 'rmsnorm', inp: h, weight: L.inputNorm!, out: n, rstd, rows: B, C: d, eps: c.rmsNormEps }));
    linear(n, L.q!, qPre, d, H * hd, L.qBias);
    linear(n, L.k!, kPre, d, Hkv * hd, L.kBias);
    linear(n, L.v!, v, d, Hkv * hd, L.vBias);
    rope(qPre, q, H);
    rope(kPre, k, Hkv);
    ds.push(gqaDecode(rt, { B, Tmax, H, Hkv, hd, q, k, v, kcache, vcache, out: ao, scores, state }));
    linear(ao, L.o!, tmp, H * hd, d);
    ds.push(add(rt, { a: h, b: tmp, out: h1, n: B * d }));
    ds.push(normForward(rt, { kind: 'rmsnorm', inp: h1, weight: L.postNorm!, out: n, rstd, rows: B, C: d, eps: c.rmsNormEps }));
    linear(n, L.gate!, gate, d, M);
    linear(n, L.up!, up, d, M);
    ds.push(swigluForward(rt, { gate, up, out: act, n: B * M }));
    linear(act, L.down!, tmp, M, d);
    ds.push(add(rt, { a: h1, b: tmp, out: h, n: B * d }));
  });
  ds.push(normForward(rt, { kind: 'rmsnorm', inp: h, weight: gw.norm, out: n, rstd, rows: B, C: d, eps: c.rmsNormEps }));
  const logp = buf('logp', B), entropy = buf('entropy', B), lse = buf('lse', B);
  if (sample) ds.push(vocabHeadSample(rt, { hidden: n, head: gw.head, N: B, chunk, ...sample, state, sampled: tokens, logp, entropy, lse, label: 'hf.dec' }));
  else ds.push(vocabHeadForward(rt, { hidden: n, head: gw.head, targets, N: B, chunk, logp, entropy, lse, label: 'hf.dec' }));
  const dispatches = (await Promise.all(ds)).flat();
  return {
    B,
    Tmax,
    dispatches,
    logp,
    entropy,
    lse,
    tokens,
    prepare(pos, toks, next) {
      if (!Number.isInteger(pos) || pos < 0 || pos >= Tmax) throw new RangeError(`hf GPU decoder: position ${pos} is outside [0, ${Tmax})`);
      if ((toks && toks.length !== B) || (next && next.length !== B)) throw new RangeError(`hf GPU decoder: ${B} tokens per step`);
      if (!toks && !sample) throw new RangeError('hf GPU decoder: a scoring decoder needs the tokens of each step');
      for (const id of [...(toks ?? []), ...(next ?? [])]) {
        if (id !== NO_TARGET && (!Number.isInteger(id) || id < 0 || id >= c.vocabSize)) throw new RangeError(`hf GPU decoder: token ${id} is outside the vocabulary [0, ${c.vocabSize})`);
      }
      if (toks?.includes(NO_TARGET)) throw new RangeError('hf GPU decoder: every sequence needs a token at each step');
      rt.write(state, Uint32Array.of(pos));
      if (toks) rt.write(tokens, Uint32Array.from(toks));
      rt.write(targets, Uint32Array.from(next ?? new Array(B).fill(NO_TARGET)));
    },
  };
}

/**
 * Runs B equal-length prompts through the decoder, then samples `steps` tokens per sequence at temperature τ
 * (draw uniformAt(seed, b, pos) at position pos). Returns the sampled tokens and their log-probs. The tokens
 * feed the next step on the GPU; each step's sampled tokens are also read back for the result.
 */
export async function hfGpuGenerate(
  rt: GpuRuntime,
  gw: HfGpuWeights,
  prompts: readonly (readonly number[])[],
  steps: number,
  opts: { temperature: number; seed: number; chunk?: number },
): Promise<{ tokens: number[][]; logprobs: number[][] }> {
  const B = prompts.length, P = prompts[0]?.length ?? 0;
  if (B < 1 || P < 1 || prompts.some((p) => p.length !== P)) throw new RangeError('hfGpuGenerate: prompts must be non-empty and of one length');
  if (!Number.isInteger(steps) || steps < 1) throw new RangeError(`hfGpuGenerate: steps must be a positive integer, got ${steps}`);
  const dec = await recordHfDecoder(rt, gw, B, P + steps - 1, opts.chunk, { temperature: opts.temperature, seed: opts.seed });
  const tokens: number[][] = prompts.map(() => []), logprobs: number[][] = prompts.map(() => []);
  for (let pos = 0; pos < P + steps - 1; pos++) {
    dec.prepare(pos, pos < P ? prompts.map((p) => p[pos]) : undefined);
    rt.run(dec.dispatches);
    if (pos < P - 1) continue;
    const t = await rt.readU32(dec.tokens, 0, B), lp = await rt.readF32(dec.logp, 0, B);
    for (let b = 0; b < B; b++) tokens[b].push(t[b]), logprobs[b].push(lp[b]);
  }
  return { tokens, logprobs };
}
