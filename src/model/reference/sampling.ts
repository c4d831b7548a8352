import type { SamplerOptions } from '../engine-types';
/**
 * Float64 twin of shaders/sampling.wgsl: the counter-based PRNG (bit-identical), the
 * temperature / top-p sampling rule, and the per-sequence decoding state machine. The GPU must
 * pick exactly the tokens this file picks for the same logits and seed.
 */

export type { SamplerOptions } from '../engine-types';

/** Sequence status word in seqs[b·4 + 2]. */
export const SEQ_RUNNING = 0;
export const SEQ_ENDED = 1;
export const SEQ_TRUNCATED = 2;

/** PCG RXS-M-XS hash (Jarzynski & Olano 2020), a bijection on u32; same constants as the shader. */
export function pcgHash(x: number): number {
  const state = (Math.imul(x >>> 0, 747796405) + 2891336453) >>> 0;
  const word = Math.imul((state >>> ((state >>> 28) + 4)) ^ state, 277803737) >>> 0;
  return ((word >>> 22) ^ word) >>> 0;
}

/** Uniform in [0, 1) with 24 bits (exact in f32), a pure function of (seed, row, pos): row is the sequence's id. */
export function uniformAt(seed: number, row: number, pos: number): number {
  const h = pcgHash((pcgHash((pcgHash(seed >>> 0) ^ row) >>> 0) ^ pos) >>> 0);
  return (h >>> 8) / 16777216;
}

/**
 * Samples one token. z = logits/τ, p = softmax(z). With topP < 1, token j is kept iff the
 * probability of the tokens ranked strictly before it (higher logit — the same order as higher
 * p for τ > 0, without rounding ties — or equal logit and lower index) is < topP. Then
 * target = u·Σ_kept p and the pick is the first kept j (index order) whose running sum of kept
 * p exceeds target, else the last kept token. logp and entropy are of the full τ-scaled
 * distribution (no top-p truncation).
 */
export function sampleToken(logits: ArrayLike<number>, temperature: number, topP: number, u: number): { token: number; logp: number; entropy: number } {
  const V = logits.length;
  let zmax = -Infinity;
  for (let j = 0; j < V; j++) zmax = Math.max(zmax, logits[j] / temperature);
  const p = new Float64Array(V);
  let S = 0;
  let SZ = 0;
  for (let j = 0; j < V; j++) {
    const d = logits[j] / temperature - zmax;
    const w = Math.exp(d);
    p[j] = w;
    S += w;
    SZ += w * d;
  }
  for (let j = 0; j < V; j++) p[j] /= S;
  const kept = new Uint8Array(V).fill(1);
  if (topP < 1) {
    const order = Array.from({ length: V }, (_, j) => j).sort((a, b) => logits[b] - logits[a] || a - b);
    let before = 0;
    for (const j of order) {
      kept[j] = before < topP ? 1 : 0;
      before += p[j];
    }
  }
  let total = 0;
  let lastKept = -1;
  for (let j = 0; j < V; j++) {
    if (kept[j]) {
      total += p[j];
      lastKept = j;
    }
  }
  const target = u * total;
  let token = lastKept;
  let cum = 0;
  for (let j = 0; j < V; j++) {
    if (!kept[j]) continue;
    cum += p[j];
    if (cum > target) {
      token = j;
      break;
    }
  }
  const logS = Math.log(S);
  return { token, logp: logits[token] / temperature - zmax - logS, entropy: logS - SZ / S };
}

/**
 * One decode step for every sequence, in place, mirroring the kernel: the logits [B×V] predict
 * the token at pos+1. Per sequence b (seqs[b·4..] = [promptLen, responseLen, status, row]; row keys
 * the draw, uniformAt(seed, row, pos), so a sequence moved to another slot draws the same tokens):
 * still in the prompt → nothing; ended/truncated → PAD (logp = entropy = 0) at pos+1; no room
 * left (pos+1 ≥ min(tokenStride, contextLength)) → truncated; else sample, write token, logp
 * and entropy at pos+1, count it, and stop on EOS (ended) or at maxResponseLength / the end of
 * the context (truncated).
 */
export function sampleStep(a: {
  logits: ArrayLike<number>;
  tokens: Uint32Array;
  pos: number;
  seqs: Uint32Array;
  sampleLogp: Float32Array | Float64Array;
  sampleEntropy: Float32Array | Float64Array;
  B: number;
  V: number;
  tokenStride: number;
  contextLength: number;
  opts: SamplerOptions;
}): void {
  const { pos, B, V, tokenStride, opts } = a;
  const next = pos + 1;
  for (let b = 0; b < B; b++) {
    const s = b * 4;
    if (next < a.seqs[s]) continue;
    const at = b * tokenStride + next;
    if (a.seqs[s + 2] !== SEQ_RUNNING) {
      if (next < tokenStride) {
        a.tokens[at] = opts.padId;
        a.sampleLogp[at] = 0;
        a.sampleEntropy[at] = 0;
      }
      continue;
    }
    if (next >= Math.min(tokenStride, a.contextLength)) {
      a.seqs[s + 2] = SEQ_TRUNCATED;
      continue;
    }
    const row = Array.prototype.slice.call(a.logits, b * V, (b + 1) * V) as number[];
    const r = sampleToken(row, opts.temperature, opts.topP, uniformAt(opts.seed, a.seqs[s + 3], pos));
    a.tokens[at] = r.token;
    a.sampleLogp[at] = r.logp;
    a.sampleEntropy[at] = r.entropy;
    const responseLen = a.seqs[s + 1] + 1;
    a.seqs[s + 1] = responseLen;
    if (r.token === opts.eosId) a.seqs[s + 2] = SEQ_ENDED;
    else if (responseLen >= opts.maxResponseLength || next + 1 >= a.contextLength) a.seqs[s + 2] = SEQ_TRUNCATED;
  }
}
