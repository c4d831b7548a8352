/**
 * The CPU engine's real-model policy (HfPolicyEngine, src/model/hf-policy.ts): an HfCpuModel (./model.ts)
 * with AdamW on what it trains — every weight (full) or the LoRA adapters over a frozen base.
 *
 * Sampling decodes with a KV cache (one prefill of the prompt, then one token at a time), one sequence
 * after another; the draws are the lab's counter-based ones (uniformAt(seed, row, position), sampleToken
 * of src/model/reference/sampling.ts: temperature, top-p), so the same seed gives the same tokens.
 * An update runs forward → GRPO token loss (src/model/reference/ops/loss.ts, with MAGIC's entropy
 * bonus) → backward one row at a time, accumulating gradients, then the global norm, the clip and AdamW
 * (the lab's finite-step gate: a non-finite loss or norm applies nothing).
 */
import type { GenerateRequest, GenerateResult, GrpoLossOptions } from '../engine-types';
import type { StepStats } from '../engine';
import type { HfPolicyEngine, HfTrainMode, HfUpdateOptions, HfUpdateRow } from '../hf-policy';
import type { HfWeights } from '../hf/weights';
import { DEFAULT_VOCAB_CHUNK } from '../hf/reference-forward';
import { grpoTokenLoss } from '../reference/ops/loss';
import { stepIsFinite } from '../reference/ops/optimizer';
import { sampleToken, uniformAt } from '../reference/sampling';
import { HfCpuModel, initLora, LORA_TARGETS, mergedWeights, type HfCpuGrads } from './model';

/** A trainable tensor, its gradient and AdamW moments; `decay`: weight decay applies (matrices, not norms or biases). */
interface Slot {
  name: string;
  data: Float32Array;
  grad: Float32Array;
  m: Float32Array;
  v: Float32Array;
  decay: boolean;
}

export interface HfCpuPolicyOptions {
  mode: HfTrainMode;
  /** Seed of the LoRA A matrices. */
  seed?: number;
  vocabChunk?: number;
  /** Full training updates `weights` in place instead of a copy (the caller gives them up). */
  ownWeights?: boolean;
}

export class HfCpuPolicy implements HfPolicyEngine {
  readonly engine = 'cpu' as const;
  readonly mode: HfTrainMode;
  readonly vocabChunk: number;
  readonly model: HfCpuModel;
  private slots: Slot[] = [];
  readonly grads: HfCpuGrads;

  constructor(weights: HfWeights, o: HfCpuPolicyOptions) {
    this.mode = o.mode;
    this.vocabChunk = o.vocabChunk ?? DEFAULT_VOCAB_CHUNK;
    const c = weights.config;
    const lora = o.mode.kind === 'lora' ? initLora(c, o.mode.rank, o.mode.alpha, o.seed ?? 1) : null;
    // Full training works on a copy unless told to own the caller's arrays; LoRA never writes the base.
    const w: HfWeights = lora || o.ownWeights ? weights : copyWeights(weights);
    this.model = new HfCpuModel(w, lora);
    const add = (name: string, data: Float32Array, decay: boolean): Float32Array => {
      const grad = new Float32Array(data.length);
      this.slots.push({ name, data, grad, m: new Float32Array(data.length), v: new Float32Array(data.length), decay });
      return grad;
    };
    const nullLayer = () => ({ inputNorm: null, q: null, k: null, v: null, o: null, qBias: null, kBias: null, vBias: null, postNorm: null, gate: null, up: null, down: null });
    if (lora) {
      this.grads = {
        embed: null,
        norm: null,
        lmHead: null,
        layers: w.layers.map(nullLayer),
        lora: lora.layers.map((L, li) => Object.fromEntries(LORA_TARGETS.map((p) => [p, { A: add(`lora.${li}.${p}.A`, L[p].A, true), B: add(`lora.${li}.${p}.B`, L[p].B, true) }])) as HfCpuGrads['lora'] extends (infer R)[] | null ? R : never),
      };
    } else {
      this.grads = {
        embed: add('embed', w.embed, true),
        norm: add('norm', w.norm, false),
        lmHead: w.lmHead ? add('lmHead', w.lmHead, true) : null,
        layers: w.layers.map((L, li) => {
          const g: HfCpuGrads['layers'][number] = nullLayer();
          for (const [k, a] of Object.entries(L) as [keyof typeof L, Float32Array | null][]) if (a) g[k] = add(`layers.${li}.${k}`, a, !(k.endsWith('Norm') || k.endsWith('Bias')));
          return g;
        }),
        lora: null,
      };
    }
  }

  get config() {
    return this.model.config;
  }

  get trainableParams(): number {
    return this.slots.reduce((a, s) => a + s.data.length, 0);
  }

  /** Each trainable tensor's gradient by name (after an update: what that update accumulated). */
  gradients(): Map<string, Float32Array> {
    return new Map(this.slots.map((s) => [s.name, s.grad]));
  }

  async generate(req: GenerateRequest): Promise<GenerateResult> {
    const c = this.config;
    const res: GenerateResult = { responses: [], finish: [], logp: [], entropy: [], steps: 0, liveSlots: [] };
    req.prompts.forEach((prompt, row) => {
      if (prompt.length < 1 || prompt.length >= c.maxPositions) throw new RangeError(`generate: prompt ${row} has ${prompt.length} tokens; the model takes 1 to ${c.maxPositions - 1} (max_position_embeddings)`);
      for (const id of prompt) if (!Number.isInteger(id) || id < 0 || id >= c.vocabSize) throw new RangeError(`generate: prompt ${row} holds token ${id}, outside the vocabulary [0, ${c.vocabSize})`);
    });
    for (let row = 0; row < req.prompts.length; row++) {
      const prompt = req.prompts[row];
      const room = Math.min(req.maxResponseLength, c.maxPositions - prompt.length);
      const cache = this.model.newCache(prompt.length + room);
      let logits = this.model.decode(prompt, cache);
      const tokens: number[] = [], logp: number[] = [], entropy: number[] = [];
      let finish: 'eos' | 'truncated' = 'truncated';
      for (let i = 0; i < room; i++) {
        const pos = prompt.length - 1 + i;
        const s = sampleToken(logits, req.temperature, req.topP, uniformAt(req.seed, row, pos));
        tokens.push(s.token);
        logp.push(s.logp);
        entropy.push(s.entropy);
        res.liveSlots[i] = (res.liveSlots[i] ?? 0) + 1;
        if (s.token === req.eosId) {
          finish = 'eos';
          break;
        }
        if (i + 1 < room) logits = this.model.decode([s.token], cache);
      }
      res.steps = Math.max(res.steps, tokens.length);
      res.responses.push(tokens);
      res.finish.push(finish);
      res.logp.push(logp);
      res.entropy.push(entropy);
    }
    res.liveSlots.length = res.steps;
    return res;
  }

  async update(rows: readonly HfUpdateRow[], loss: GrpoLossOptions, o: HfUpdateOptions): Promise<StepStats> {
    for (const s of this.slots) s.grad.fill(0);
    const st = { loss: 0, pgLoss: 0, klSum: 0, entSum: 0, clip: 0, clipLower: 0, ppoKl: 0, maskCount: 0 };
    const tau = o.temperature, chunk = this.vocabChunk;
    rows.forEach((r, ri) => {
      const T = r.tokens.length;
      for (const [name, a] of [['mask', r.mask], ['weights', r.weights], ['advantages', r.advantages], ['oldLogp', r.oldLogp]] as const)
        if (a && a.length !== T - 1) throw new RangeError(`update: row ${ri}: ${name} has ${a.length} entries for ${T - 1} predicted tokens`);
      const f = this.model.forwardTrain(r.tokens, tau, chunk);
      const logp = f.stats.logp.slice(0, T - 1), entropy = f.stats.entropy.slice(0, T - 1);
      // Positions outside the loss carry weight 0; their logp is kept finite so the sums stay clean.
      const out = grpoTokenLoss({ logp, oldLogp: r.oldLogp ?? logp, refLogp: null, advantages: r.advantages, weights: r.weights, mask: r.mask, entropy }, loss);
      const n = r.mask.reduce((a, m) => a + (m !== 0 ? 1 : 0), 0);
      st.loss += out.loss;
      st.pgLoss += out.pgLoss;
      st.klSum += out.klSum;
      st.entSum += out.entSum;
      st.clip += out.clipfrac * n;
      st.clipLower += out.clipfracLower * n;
      st.ppoKl += out.ppoKl * n;
      st.maskCount += n;
      // The model's backward is of Σ dlogp·logp + dent·H; the loss is minimised, so these are its own gradients.
      const dlogp = new Float64Array(T), dent = new Float64Array(T);
      dlogp.set(out.dlogp);
      dent.set(out.dent);
      this.model.backward(r.tokens, f, tau, chunk, dlogp, dent, this.grads);
    });
    let ss = 0;
    for (const s of this.slots) for (let i = 0; i < s.grad.length; i++) ss += s.grad[i] * s.grad[i];
    const gradNorm = Math.sqrt(ss);
    const n = Math.max(1, st.maskCount);
    const stats: StepStats = { loss: st.loss, pgLoss: st.pgLoss, klSum: st.klSum, entSum: st.entSum, clipfrac: st.clip / n, clipfracLower: st.clipLower / n, ppoKl: st.ppoKl / n, maskCount: st.maskCount, gradNorm, applied: false };
    if (o.update === false || !stepIsFinite(st.loss, gradNorm)) return stats;
    this.adamw(o, gradNorm);
    stats.applied = true;
    return stats;
  }

  /** AdamW (decoupled decay on matrices), gradients scaled by min(1, maxGradNorm/(norm + 1e-6)). */
  private adamw(o: HfUpdateOptions, gradNorm: number): void {
    const { lr, beta1, beta2, eps, weightDecay, maxGradNorm } = o.adamw;
    const scale = Math.min(1, maxGradNorm / (gradNorm + 1e-6));
    const bc1 = 1 - beta1 ** o.step, bc2 = 1 - beta2 ** o.step;
    for (const s of this.slots) {
      const wd = s.decay ? weightDecay : 0;
      for (let i = 0; i < s.data.length; i++) {
        const g = s.grad[i] * scale;
        s.m[i] = beta1 * s.m[i] + (1 - beta1) * g;
        s.v[i] = beta2 * s.v[i] + (1 - beta2) * g * g;
        s.data[i] -= lr * (s.m[i] / bc1 / (Math.sqrt(s.v[i] / bc2) + eps) + wd * s.data[i]);
      }
    }
  }

  exportWeights(): HfWeights {
    return mergedWeights(this.model.weights, this.model.lora);
  }

  destroy(): void {
    this.slots = [];
  }
}

function copyWeights(w: HfWeights): HfWeights {
  const cp = (a: Float32Array | null) => (a ? Float32Array.from(a) : null);
  return {
    config: w.config,
    embed: Float32Array.from(w.embed),
    norm: Float32Array.from(w.norm),
    lmHead: cp(w.lmHead),
    layers: w.layers.map((L) => Object.fromEntries(Object.entries(L).map(([k, a]) => [k, cp(a)])) as unknown as typeof L),
  };
}
