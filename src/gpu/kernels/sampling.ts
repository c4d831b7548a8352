/**
 * Builders for shaders/sampling.wgsl: one batched decode step (temperature / top-p sampling and
 * the per-sequence prompt → running → ended/truncated → PAD state machine), the position
 * counter, and a PRNG test hook. Float64 twin: src/model/reference/sampling.ts.
 */
import type { SamplerOptions } from '../../util/engine-options';
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';

export type { SamplerOptions };

const SHADER = 'sampling.wgsl';
/** prng_debug's workgroup size (the shader's default WG). */
const WG = 64;
/** u32 words of the shader's Params struct: every entry binds all of it. */
const PARAM_WORDS = 13;

function checkSampler(o: SamplerOptions, V: number): void {
  if (!(o.temperature > 0) || !Number.isFinite(o.temperature)) throw new Error(`sampler: temperature must be finite and > 0, got ${o.temperature}`);
  if (!(o.topP > 0 && o.topP <= 1)) throw new Error(`sampler: topP must be in (0, 1], got ${o.topP}`);
  if (!Number.isInteger(o.seed) || o.seed < 0 || o.seed > 0xffffffff) throw new Error(`sampler: seed must be a u32, got ${o.seed}`);
  if (!Number.isInteger(o.maxResponseLength) || o.maxResponseLength < 1) {
    throw new Error(`sampler: maxResponseLength must be an integer ≥ 1, got ${o.maxResponseLength}`);
  }
  for (const k of ['eosId', 'padId'] as const) {
    if (!Number.isInteger(o[k]) || o[k] < 0 || o[k] >= V) throw new Error(`sampler: ${k} must be a token id in [0, ${V}), got ${o[k]}`);
  }
}

/**
 * Threads per sequence: about one per `TOKENS_PER_THREAD` tokens, a power of two up to 64. Idle
 * invocations are not free (every barrier waits for them; on software adapters they are
 * coroutines), and the vocabularies this app trains are small.
 */
export function samplerThreads(V: number): number {
  const want = Math.ceil(V / TOKENS_PER_THREAD);
  let wg = 1;
  while (wg < want && wg < 64) wg *= 2;
  return wg;
}
const TOKENS_PER_THREAD = 16;

/** Folds `groups` workgroups into x/y under the per-dimension limit. */
function fold(rt: GpuRuntime, groups: number): { rowGroups: number; workgroups: [number, number] } {
  const rowGroups = Math.min(Math.max(1, groups), rt.limits.maxComputeWorkgroupsPerDimension);
  return { rowGroups, workgroups: [rowGroups, ceilDiv(Math.max(1, groups), rowGroups)] };
}

/**
 * One decode step for B sequences (one workgroup each): logits [B×V] at position pos = state[0]
 * predict the token at pos+1. Per sequence, seqs[b·4..] = [promptLen, responseLen, status, row] (row keys the draw):
 * pos+1 < promptLen → nothing; status ≠ 0 → PAD at pos+1 (sampleLogp = sampleEntropy = 0
 * there); otherwise sample, write tokens / sampleLogp / sampleEntropy at pos+1, responseLen += 1,
 * status 1 on EOS, else 2 at maxResponseLength or when pos+2 ≥ contextLength.
 * `update` changes the options (e.g. a new seed per rollout batch) without re-recording.
 */
export async function sampleTokens(
  rt: GpuRuntime,
  a: {
    logits: Binding;
    tokens: Binding;
    state: Binding;
    seqs: Binding;
    sampleLogp: Binding;
    sampleEntropy: Binding;
    B: number;
    V: number;
    tokenStride: number;
    contextLength: number;
    opts: SamplerOptions;
  },
): Promise<{ dispatch: Dispatch; update(rt: GpuRuntime, opts: SamplerOptions): void }> {
  const { B, V, tokenStride, contextLength } = a;
  for (const [k, v] of Object.entries({ B, V, tokenStride, contextLength })) {
    if (!Number.isInteger(v) || v < 1) throw new Error(`sampleTokens: ${k} must be a positive integer, got ${v}`);
  }
  if (contextLength > tokenStride) throw new Error(`sampleTokens: contextLength ${contextLength} exceeds tokenStride ${tokenStride}`);
  checkSampler(a.opts, V);
  const g = fold(rt, B);
  const words = (o: SamplerOptions) => [
    B,
    V,
    tokenStride,
    contextLength,
    f32bits(1 / o.temperature),
    f32bits(o.topP),
    o.seed >>> 0,
    o.maxResponseLength,
    o.eosId,
    o.padId,
    o.topP < 1 ? 1 : 0,
    g.rowGroups,
    0,
  ];
  const dispatch = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'sample_tokens', constants: { WG: samplerThreads(V) } },
    bindings: { 1: a.logits, 2: a.tokens, 3: a.state, 4: a.seqs, 5: a.sampleLogp, 6: a.sampleEntropy },
    params: words(a.opts),
    workgroups: g.workgroups,
  });
  return {
    dispatch,
    update(rt2: GpuRuntime, opts: SamplerOptions) {
      checkSampler(opts, V);
      rt2.setParams(dispatch, words(opts));
    },
  };
}

/** state[0] += 1 (one invocation); recorded once, replayed after every decode step. */
export function advancePosition(rt: GpuRuntime, a: { state: Binding }): Promise<Dispatch> {
  return rt.dispatch({ kernel: { shader: SHADER, entry: 'advance_position' }, bindings: { 3: a.state }, params: new Array(PARAM_WORDS).fill(0), workgroups: 1 });
}

/** Test hook: out[b·positions + pos] = the sampler's uniform draw for (seed, b, pos), f32 [B × positions]. */
export function prngDebug(rt: GpuRuntime, a: { out: Binding; B: number; positions: number; seed: number }): Promise<Dispatch> {
  const g = fold(rt, ceilDiv(a.B * a.positions, WG));
  return rt.dispatch({
    kernel: { shader: SHADER, entry: 'prng_debug' },
    bindings: { 5: a.out },
    params: [a.B, 0, 0, 0, 0, 0, a.seed >>> 0, 0, 0, 0, 0, g.rowGroups, a.positions],
    workgroups: g.workgroups,
  });
}
