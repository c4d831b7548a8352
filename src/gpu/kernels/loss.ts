/**
 * Builders for shaders/loss.wgsl: token log-probs + entropy at a temperature (forward and
 * backward), the GRPO clipped token loss, supervised cross-entropy, and the deterministic
 * two-stage reduction of their batch statistics into `stats` (f32 [8]):
 *   [loss Σ w·ℓ, pgLoss Σ w·pg, klSum Σ w·KL, entSum Σ w·H, clipCount, clipLowerCount, ppoKlSum Σ mask·(old−logp), maskCount].
 */
import { ceilDiv, f32bits, type Binding, type Dispatch, type GpuRuntime } from '../runtime';
import { grid1d } from './elementwise';
import type { GrpoLossOptions, KlType } from '../../util/engine-options';

const SHADER = 'loss.wgsl';
/** Workgroup size of every one-invocation-per-item entry in loss.wgsl. */
const WG = 64;
/** Statistics slots, in `stats` order. */
export const LOSS_STATS = ['loss', 'pgLoss', 'klSum', 'entSum', 'clipCount', 'clipLowerCount', 'ppoKlSum', 'maskCount'] as const;
const NSTATS = LOSS_STATS.length;
/** Tokens per first-stage partial sum of the statistics reduction. */
const REDUCE_CHUNK = 128;
/**
 * Largest V for which the forward uses one invocation per row (no barriers) on a hardware GPU;
 * above it one workgroup of 256 per row (strided loop + tree merge) keeps long rows parallel.
 */
export const SMALL_V_MAX = 256;

export type LossForwardVariant = 'rows' | 'workgroup';

/** Uniform words of loss.wgsl's Params, by field. */
interface LossParams {
  n: number;
  rowGroups: number;
  V?: number;
  temperature?: number;
  epsLow?: number;
  epsHigh?: number;
  dualClip?: number;
  useDual?: boolean;
  klCoef?: number;
  klType?: number;
  useKl?: boolean;
  entCoef?: number;
  tokens?: number;
  chunk?: number;
  chunks?: number;
}

function words(q: LossParams): number[] {
  return [
    q.n,
    q.rowGroups,
    q.V ?? 0,
    f32bits(q.temperature ?? 1),
    f32bits(q.epsLow ?? 0),
    f32bits(q.epsHigh ?? 0),
    f32bits(q.dualClip ?? 0),
    q.useDual ? 1 : 0,
    f32bits(q.klCoef ?? 0),
    q.klType ?? 0,
    q.useKl ? 1 : 0,
    f32bits(q.entCoef ?? 0),
    q.tokens ?? 0,
    q.chunk ?? 0,
    q.chunks ?? 0,
  ];
}

const bytesOf = (b: Binding): number => b.size;

function requireFloats(name: string, b: Binding, floats: number): void {
  if (bytesOf(b) < floats * 4) throw new Error(`loss: ${name} holds ${bytesOf(b)} bytes, needs ${floats * 4}`);
}

function checkTemperature(t: number): void {
  if (!(t > 0) || !Number.isFinite(t)) throw new Error(`loss: temperature must be a positive finite number, got ${t}`);
}

export interface LossHeadDispatch extends Dispatch {
  setTemperature(rt: GpuRuntime, temperature: number): void;
}

function withTemperature(d: Dispatch, base: LossParams): LossHeadDispatch {
  return {
    ...d,
    setTemperature(rt: GpuRuntime, temperature: number) {
      checkTemperature(temperature);
      rt.setParams(d, words({ ...base, temperature }));
    },
  };
}

/**
 * The forward variant the builder picks. CPU adapters always get the barrier-free variant:
 * measured on SwiftShader (2 cores, per dispatch) it won at every size tried — rows×V = 33×32:
 * 39 µs vs 52 ms (256-wide workgroups; 3 ms at 64-wide), 512×32: 1.1 ms vs 1 s, 16×5000:
 * 1.1 ms vs 21 ms — because each barrier costs a coroutine switch of every invocation there.
 */
export function lossForwardVariant(V: number, isSoftwareAdapter: boolean): LossForwardVariant {
  return isSoftwareAdapter || V <= SMALL_V_MAX ? 'rows' : 'workgroup';
}

/** Per row of logits [rows × V]: z = logits/τ; logp[r] = z[target] − logsumexp(z); entropy[r] = −Σ p log p; lse[r] saved for backward. targets is u32 [rows]. */
export function logSoftmaxEntropyForward(
  rt: GpuRuntime,
  a: { logits: Binding; targets: Binding; logp: Binding; entropy: Binding; lse: Binding; rows: number; V: number; temperature: number },
): Promise<LossHeadDispatch> {
  return logSoftmaxEntropyForwardVariant(rt, a, lossForwardVariant(a.V, rt.adapter.isSoftware));
}

/** logSoftmaxEntropyForward with the variant forced (tests and benchmarks). */
export async function logSoftmaxEntropyForwardVariant(
  rt: GpuRuntime,
  a: { logits: Binding; targets: Binding; logp: Binding; entropy: Binding; lse: Binding; rows: number; V: number; temperature: number },
  variant: LossForwardVariant,
): Promise<LossHeadDispatch> {
  if (a.V < 1) throw new Error(`loss: V must be ≥ 1, got ${a.V}`);
  checkTemperature(a.temperature);
  const g = variant === 'rows' ? grid1d(rt, a.rows, WG) : grid1d(rt, a.rows, 1);
  const base: LossParams = { n: a.rows, rowGroups: g.params[1], V: a.V, temperature: a.temperature };
  const d = await rt.dispatch({
    kernel: { shader: SHADER, entry: variant === 'rows' ? 'logsoftmax_entropy_forward_rows' : 'logsoftmax_entropy_forward_wg' },
    bindings: { 1: a.logits, 2: a.targets, 3: a.logp, 4: a.entropy, 5: a.lse },
    params: words(base),
    workgroups: g.workgroups,
  });
  return withTemperature(d, base);
}

/** dlogits (written) from upstream dlogp[rows], dent[rows]. */
export async function logSoftmaxEntropyBackward(
  rt: GpuRuntime,
  a: {
    logits: Binding;
    targets: Binding;
    lse: Binding;
    entropy: Binding;
    dlogp: Binding;
    dent: Binding;
    dlogits: Binding;
    rows: number;
    V: number;
    temperature: number;
  },
): Promise<LossHeadDispatch> {
  if (a.V < 1) throw new Error(`loss: V must be ≥ 1, got ${a.V}`);
  checkTemperature(a.temperature);
  const n = a.rows * a.V;
  if (n >= 2 ** 32) throw new Error(`loss: rows·V = ${n} exceeds u32 indexing`);
  const g = grid1d(rt, n, WG);
  const base: LossParams = { n, rowGroups: g.params[1], V: a.V, temperature: a.temperature };
  const d = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'logsoftmax_entropy_backward' },
    bindings: { 1: a.logits, 2: a.targets, 6: a.lse, 7: a.entropy, 8: a.dlogp, 9: a.dent, 10: a.dlogits },
    params: words(base),
    workgroups: g.workgroups,
  });
  return withTemperature(d, base);
}

export type { GrpoLossOptions, KlType };

const KL_TYPES = { k1: 0, k3: 1, low_var_kl: 2 } as const;

/** Scratch floats the loss passes need for N tokens: per-token contributions, then first-stage partials. */
export function grpoLossScratchFloats(N: number): number {
  return NSTATS * N + NSTATS * ceilDiv(N, REDUCE_CHUNK);
}

/** The two reduction passes: per-token scratch slots → partials → stats[8]. */
async function reduceStats(rt: GpuRuntime, scratch: Binding, stats: Binding, N: number): Promise<Dispatch[]> {
  const chunks = ceilDiv(N, REDUCE_CHUNK);
  const g = grid1d(rt, NSTATS * chunks, WG);
  const partials = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'reduce_partials' },
    bindings: { 18: scratch },
    params: words({ n: NSTATS * chunks, rowGroups: g.params[1], tokens: N, chunk: REDUCE_CHUNK, chunks }),
    workgroups: g.workgroups,
  });
  const final = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'reduce_final' },
    bindings: { 18: scratch, 21: stats },
    params: words({ n: NSTATS, rowGroups: 1, tokens: N, chunk: REDUCE_CHUNK, chunks }),
    workgroups: 1,
  });
  return [partials, final];
}

function checkLossBuffers(a: { stats: Binding; scratch: Binding; N: number }): void {
  if (!Number.isInteger(a.N) || a.N < 0) throw new Error(`loss: N must be a non-negative integer, got ${a.N}`);
  requireFloats('stats', a.stats, NSTATS);
  requireFloats('scratch', a.scratch, grpoLossScratchFloats(a.N));
}

/**
 * GRPO token loss and its gradient: per token i < N writes dlogp[i], dent[i]; then reduces the batch statistics into
 * `stats` (f32 [8]): [loss Σ w·ℓ, pgLoss Σ w·pg, klSum Σ w·KL, entSum Σ w·H, clipCount, clipLowerCount, ppoKlSum Σ mask·(old−logp), maskCount].
 * refLogp may be omitted when klCoef = 0. Inputs are f32 buffers of length N (mask 0/1, weights already normalised).
 * Returns dispatches in order and `setOptions` to change α (every step: adaptive entropy control) and the rest without re-recording.
 */
export async function grpoLoss(
  rt: GpuRuntime,
  a: {
    logp: Binding;
    oldLogp: Binding;
    refLogp?: Binding;
    advantages: Binding;
    weights: Binding;
    mask: Binding;
    entropy: Binding;
    dlogp: Binding;
    dent: Binding;
    stats: Binding;
    scratch: Binding;
    N: number;
    opts: GrpoLossOptions;
  },
): Promise<{ dispatches: Dispatch[]; setOptions(rt: GpuRuntime, opts: GrpoLossOptions): void }> {
  checkLossBuffers(a);
  const hasRef = a.refLogp !== undefined;
  const g = grid1d(rt, a.N, WG);
  const tokenParams = (o: GrpoLossOptions): number[] => {
    if (!hasRef && o.klCoef !== 0) throw new Error('grpoLoss: klCoef ≠ 0 needs refLogp');
    if (!(o.klType in KL_TYPES)) throw new Error(`grpoLoss: unknown klType ${o.klType}`);
    return words({
      n: a.N,
      rowGroups: g.params[1],
      epsLow: o.epsLow,
      epsHigh: o.epsHigh,
      dualClip: o.dualClip ?? 0,
      useDual: o.dualClip !== null,
      klCoef: o.klCoef,
      klType: KL_TYPES[o.klType],
      useKl: hasRef && o.klCoef !== 0,
      tokens: a.N,
    });
  };
  const entropyParams = (o: GrpoLossOptions): number[] => words({ n: a.N, rowGroups: g.params[1], entCoef: o.entCoef, tokens: a.N });
  const token = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'grpo_token' },
    // Without a reference model the KL branch is off (use_kl = 0); logp stands in so the binding exists.
    bindings: { 11: a.logp, 12: a.oldLogp, 13: a.refLogp ?? a.logp, 14: a.advantages, 15: a.weights, 16: a.mask, 17: a.dlogp, 18: a.scratch },
    params: tokenParams(a.opts),
    workgroups: g.workgroups,
  });
  const ent = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'grpo_entropy' },
    bindings: { 15: a.weights, 18: a.scratch, 19: a.entropy, 20: a.dent },
    params: entropyParams(a.opts),
    workgroups: g.workgroups,
  });
  const reduce = await reduceStats(rt, a.scratch, a.stats, a.N);
  return {
    dispatches: [token, ent, ...reduce],
    setOptions(rt: GpuRuntime, opts: GrpoLossOptions) {
      rt.setParams(token, tokenParams(opts));
      rt.setParams(ent, entropyParams(opts));
    },
  };
}

/** Supervised (SFT) cross-entropy on chosen tokens: dlogp = −w, dent = 0, stats[0] = −Σ w·logp, stats[7] = Σ mask. Same stats layout. */
export async function crossEntropyLoss(
  rt: GpuRuntime,
  a: { logp: Binding; weights: Binding; mask: Binding; dlogp: Binding; dent: Binding; stats: Binding; scratch: Binding; N: number },
): Promise<Dispatch[]> {
  checkLossBuffers(a);
  const g = grid1d(rt, a.N, WG);
  const token = await rt.dispatch({
    kernel: { shader: SHADER, entry: 'ce_token' },
    bindings: { 11: a.logp, 15: a.weights, 16: a.mask, 17: a.dlogp, 18: a.scratch, 20: a.dent },
    params: words({ n: a.N, rowGroups: g.params[1], tokens: a.N }),
    workgroups: g.workgroups,
  });
  return [token, ...(await reduceStats(rt, a.scratch, a.stats, a.N))];
}
