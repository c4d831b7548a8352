/**
 * The bench's tiny GPT written in jax-js (@jax-js/jax), the way a jax-js user would write it:
 * numpy-style ops on a parameter pytree, `valueAndGrad` inside `jit`, AdamW in jax-js ops
 * (jitted together with the gradient, one compiled train step), and sampling with one jitted
 * step per token.
 *
 * Same architecture as src/model/reference/model.ts with the bench's config (pre-norm GPT-2,
 * RMSNorm, learned positional embeddings, tanh-GELU MLP of mlpRatio·C, tied unembedding, no
 * head bias); the weights start from the lab's own `initParams` (linear weights transposed to
 * the [in, out] layout jax users write `x @ W` with).
 *
 * Loss: a weighted negative log-likelihood of the targets, sum_t w_t · (−log p(target_t)),
 * with w = mask / count (the same per-token weights the lab's bench passes). The lab's bench
 * trains with its GRPO loss (clipped ratio, entropy bonus); on-policy the ratio is 1, so its
 * gradient is the advantage-weighted NLL gradient plus the entropy term, i.e. the lab does a
 * little more work per step, not less.
 *
 * The AdamW step matches the lab's: global grad-norm clipping to maxGradNorm, bias-corrected
 * moments, decoupled weight decay on matrices and embeddings only.
 *
 * Reference counting: jax-js functions take ownership of their Array arguments; every value
 * used twice is passed as `.ref` the first time (README of @jax-js/jax).
 */
import { jit, nn, numpy as np, random, tree, valueAndGrad } from '@jax-js/jax';

const EPS = 1e-5;

/** x · rsqrt(mean(x²) + eps) · w over the last axis. */
function rmsnorm(x, w) {
  const ms = np.mean(np.square(x.ref), -1, { keepdims: true });
  return x.mul(np.reciprocal(np.sqrt(ms.add(EPS)))).mul(w);
}

/** One pre-norm block over x [B, T, C] (full causal attention with jax-js's SDPA). */
function block(p, x, H) {
  const [B, T, C] = x.shape;
  const hd = C / H;
  const h = rmsnorm(x.ref, p.ln1w);
  const qkv = np.dot(h, p.qkvw).add(p.qkvb).reshape([B, T, 3, H, hd]);
  const q = qkv.ref.slice([], [], 0);
  const k = qkv.ref.slice([], [], 1);
  const v = qkv.slice([], [], 2);
  const att = nn.dotProductAttention(q, k, v, { isCausal: true }).reshape([B, T, C]);
  x = x.add(np.dot(att, p.projw).add(p.projb));
  const h2 = rmsnorm(x.ref, p.ln2w);
  const f = nn.gelu(np.dot(h2, p.fcw).add(p.fcb), { approximate: true });
  return x.add(np.dot(f, p.fcprojw).add(p.fcprojb));
}

/** logits [B, T, V] for int32 tokens [B, T]. */
export function forward(params, tokens, H) {
  const T = tokens.shape[1];
  let x = np.take(params.wte.ref, tokens, 0).add(params.wpe.slice([0, T]));
  for (const p of params.layers) x = block(p, x, H);
  x = rmsnorm(x, params.lnfw);
  return np.dot(x, params.wte.transpose());
}

/** Weighted NLL: sum over positions of weights · −log p(target). */
export function lossFn(params, tokens, targets, weights, H, V) {
  const logp = nn.logSoftmax(forward(params, tokens, H), -1);
  return logp.mul(nn.oneHot(targets, V)).sum(-1).mul(weights).sum().neg();
}

/**
 * The jitted train step: loss and gradients, global-norm clipping, AdamW.
 * (params, m, v, tokens, targets, weights, lrT [scalar: lr], bc1, bc2 [scalars: 1 − β^t]) → [loss, params, m, v]
 */
export function makeTrainStep(cfg, adamw) {
  const { nHeads: H, vocabSize: V } = cfg;
  const { beta1: b1, beta2: b2, eps, weightDecay: wd, maxGradNorm } = adamw;
  const vg = valueAndGrad((params, tokens, targets, weights) => lossFn(params, tokens, targets, weights, H, V));
  return jit((params, m, v, tokens, targets, weights, lr, bc1, bc2) => {
    const [loss, grads] = vg(tree.ref(params), tokens, targets, weights);
    const [ps, def] = tree.flatten(params);
    const gs = tree.leaves(grads);
    const ms = tree.leaves(m);
    const vs = tree.leaves(v);
    // Global grad norm and the clip factor min(1, maxNorm / (norm + 1e-6)).
    const sq = gs.map((g) => np.square(g.ref).sum()).reduce((a, b) => a.add(b));
    const scale = np.minimum(np.reciprocal(np.sqrt(sq).add(1e-6)).mul(maxGradNorm), 1);
    const outP = [];
    const outM = [];
    const outV = [];
    ps.forEach((p, i) => {
      const g = gs[i].mul(scale.ref);
      const m1 = ms[i].mul(b1).add(g.ref.mul(1 - b1));
      const v1 = vs[i].mul(b2).add(np.square(g).mul(1 - b2));
      let upd = m1.ref.div(bc1.ref).div(np.sqrt(v1.ref.div(bc2.ref)).add(eps));
      // Decoupled weight decay on matrices and embeddings (ndim 2), not on norms or biases.
      if (p.ndim >= 2) upd = upd.add(p.ref.mul(wd));
      outP.push(p.sub(upd.mul(lr.ref)));
      outM.push(m1);
      outV.push(v1);
    });
    scale.dispose();
    lr.dispose();
    bc1.dispose();
    bc2.dispose();
    return [loss, tree.unflatten(def, outP), tree.unflatten(def, outM), tree.unflatten(def, outV)];
  });
}

/**
 * One τ-sample per row of logits [B, V] by Gumbel-max, the draw random.categorical makes
 * (argmax(logits/τ + Gumbel noise)), by `draw`:
 *   'categorical': random.categorical itself. On SwiftShader its np.argmax kernel never finishes
 *     compiling (jax-js writes a float == as the NaN-aware `(a != b || min(a, inf()) != a) != true`
 *     and fuses all V of them into one expression; the GPU process is killed minutes later and the
 *     page's WebGPU instance with it: scripts/peers/jaxjs-sample-probe.mjs);
 *   'dot': the one-hot of g == max g dotted with the indices (the same == kernel: stalls too);
 *   'lt': the smallest index where !(g < max g), as np.min over where(g < max g, V, index): the
 *     same first index at the max as argmax, with a plain float `<`. Same noise, same draw.
 * Returns int32 [B].
 */
export function drawToken(key, logits, temperature, draw = 'categorical') {
  if (draw === 'categorical') return random.categorical(key, logits.div(temperature), { axis: -1 }).astype(np.int32);
  const V = logits.shape.at(-1);
  const g = random.gumbel(key, logits.shape).add(logits.div(temperature));
  const top = np.max(g.ref, -1, { keepdims: true });
  if (draw === 'lt') {
    const idx = np.arange(V, undefined, undefined, { dtype: np.int32 }).reshape([1, V]);
    return np.min(np.where(g.less(top), V, idx), -1).astype(np.int32);
  }
  if (draw === 'dot') return np.dot(g.equal(top).astype(np.float32), np.arange(V).astype(np.float32)).astype(np.int32);
  throw new Error(`drawToken: unknown draw ${draw} (categorical, lt or dot)`);
}

/**
 * Sampling, variant "prefix": one jitted step per token that recomputes the whole (padded,
 * fixed-shape) context with the causal forward, reads the logits at `pos` and writes the sample
 * at pos + 1. (params, tokens [B, T] int32, pos [scalar int32], key) → [tokens, key]
 */
export function makePrefixSampleStep(cfg, temperature, { draw = 'categorical' } = {}) {
  const { nHeads: H, contextLength: T } = cfg;
  return jit((params, tokens, pos, key) => {
    const [k1, k2] = random.split(key);
    const logits = forward(params, tokens.ref, H); // [B, T, V]
    const last = np.take(logits, pos.ref, 1); // [B, V]
    const next = drawToken(k1, last, temperature, draw); // [B]
    const at = np.arange(T, undefined, undefined, { dtype: np.int32 }).reshape([1, T]).equal(pos.add(1));
    return [np.where(at, next.reshape([-1, 1]), tokens), k2];
  });
}

/**
 * Sampling, variant "kv": one jitted step per token over the newest position only, with a
 * fixed-size KV cache per layer [B, T, C] updated by a position mask (jax-js has no
 * dynamic_update_slice) and attention masked to positions ≤ pos.
 * (params, cacheK [L][B,T,C], cacheV, tok [B] int32, pos [scalar int32], key) → [cacheK, cacheV, next [B], key]
 * draw: drawToken's form.
 */
export function makeKvSampleStep(cfg, temperature, { draw = 'categorical' } = {}) {
  const { nHeads: H, contextLength: T, dModel: C } = cfg;
  const hd = C / H;
  return jit((params, cacheK, cacheV, tok, pos, key) => {
    const [k1, k2] = random.split(key);
    const B = tok.shape[0];
    const tIdx = np.arange(T, undefined, undefined, { dtype: np.int32 });
    const here = tIdx.ref.reshape([1, T, 1]).equal(pos.ref); // [1, T, 1]
    const seen = tIdx.reshape([1, 1, T]).lessEqual(pos.ref); // [1, 1, T]
    let x = np.take(params.wte.ref, tok, 0).add(np.take(params.wpe, pos, 0)); // [B, C]
    const newK = [];
    const newV = [];
    params.layers.forEach((p, l) => {
      const h = rmsnorm(x.ref, p.ln1w);
      const qkv = np.dot(h, p.qkvw).add(p.qkvb).reshape([B, 3, C]);
      const q = qkv.ref.slice([], 0).reshape([B, H, hd]);
      const kNew = qkv.ref.slice([], 1).reshape([B, 1, C]);
      const vNew = qkv.slice([], 2).reshape([B, 1, C]);
      const K = np.where(here.ref, kNew, cacheK[l]); // [B, T, C]
      const Vc = np.where(here.ref, vNew, cacheV[l]);
      newK.push(K.ref);
      newV.push(Vc.ref);
      const s = np.einsum('bhd,bthd->bht', q, K.reshape([B, T, H, hd])).mul(1 / Math.sqrt(hd));
      const a = nn.softmax(np.where(seen.ref, s, -Infinity), -1);
      const o = np.einsum('bht,bthd->bhd', a, Vc.reshape([B, T, H, hd])).reshape([B, C]);
      x = x.add(np.dot(o, p.projw).add(p.projb));
      const h2 = rmsnorm(x.ref, p.ln2w);
      const f = nn.gelu(np.dot(h2, p.fcw).add(p.fcb), { approximate: true });
      x = x.add(np.dot(f, p.fcprojw).add(p.fcprojb));
    });
    here.dispose();
    seen.dispose();
    x = rmsnorm(x, params.lnfw);
    const logits = np.dot(x, params.wte.transpose()); // [B, V]
    return [newK, newV, drawToken(k1, logits, temperature, draw), k2];
  });
}

/** The lab's flat init (src/model/init.ts) as a jax-js pytree, linear weights as [in, out]. */
export function paramsFromLab(cfg, layout, flat) {
  const get = (name) => {
    const s = layout.byName.get(name);
    return { data: flat.subarray(s.offset, s.offset + s.size), shape: s.shape };
  };
  const asIs = (name) => {
    const t = get(name);
    return np.array(Float32Array.from(t.data)).reshape(t.shape);
  };
  // [out, in] → [in, out]
  const linear = (name) => {
    const { data, shape } = get(name);
    const [o, i] = shape;
    const w = new Float32Array(o * i);
    for (let r = 0; r < o; r++) for (let c = 0; c < i; c++) w[c * o + r] = data[r * i + c];
    return np.array(w).reshape([i, o]);
  };
  if (cfg.norm !== 'rmsnorm' || !cfg.tiedEmbeddings) throw new Error('jaxjs-gpt: written for the bench config (rmsnorm, tied embeddings)');
  const layers = [];
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = (s) => `h${l}.${s}`;
    layers.push({
      ln1w: asIs(n('ln1.w')),
      qkvw: linear(n('attn.qkv.w')),
      qkvb: asIs(n('attn.qkv.b')),
      projw: linear(n('attn.proj.w')),
      projb: asIs(n('attn.proj.b')),
      ln2w: asIs(n('ln2.w')),
      fcw: linear(n('mlp.fc.w')),
      fcb: asIs(n('mlp.fc.b')),
      fcprojw: linear(n('mlp.proj.w')),
      fcprojb: asIs(n('mlp.proj.b')),
    });
  }
  return { wte: asIs('wte'), wpe: asIs('wpe'), layers, lnfw: asIs('lnf.w') };
}

/**
 * A jax-js trainer + sampler around one parameter pytree. draw: how the samplers take the
 * Gumbel-max argmax (drawToken; 'lt' where jax-js's own argmax kernel does not compile, as on
 * SwiftShader).
 */
export class JaxGpt {
  constructor(cfg, layout, flatInit, adamw, { draw = 'categorical' } = {}) {
    this.cfg = cfg;
    this.draw = draw;
    this.adamw = adamw;
    this.params = paramsFromLab(cfg, layout, flatInit);
    this.m = tree.map((p) => np.zerosLike(p.ref), this.params);
    this.v = tree.map((p) => np.zerosLike(p.ref), this.params);
    this.t = 0;
    this.trainStep = makeTrainStep(cfg, adamw);
    this.prefixStep = makePrefixSampleStep(cfg, 1, { draw });
    this.kvStep = makeKvSampleStep(cfg, 1, { draw });
  }

  /** One train step on int32 tokens/targets [B, T] and f32 weights [B, T]; resolves with the loss (read back, so the step is complete). */
  async step(tokens, targets, weights, B, T) {
    this.t++;
    const { lr, beta1, beta2 } = this.adamw;
    const [loss, p, m, v] = this.trainStep(
      this.params,
      this.m,
      this.v,
      np.array(tokens, { dtype: np.int32 }).reshape([B, T]),
      np.array(targets, { dtype: np.int32 }).reshape([B, T]),
      np.array(weights).reshape([B, T]),
      np.array(lr),
      np.array(1 - beta1 ** this.t),
      np.array(1 - beta2 ** this.t),
    );
    this.params = p;
    this.m = m;
    this.v = v;
    await tree.leaves(this.params).at(-1).ref.blockUntilReady();
    const out = await loss.jsAsync();
    return out;
  }

  /**
   * B sequences from a one-token prompt (token 0), `newTokens` new tokens each (default: to the
   * full context); returns the tokens [B][1 + newTokens]. greedy (KV form only): temperature
   * 1e-5 instead of 1, which makes the Gumbel-max draw an argmax wherever the top two logits are
   * more than ~1e-3 apart (np.argmax's kernel does not compile on SwiftShader; see drawToken).
   */
  async sample(B, seed, variant, { newTokens = this.cfg.contextLength - 1, greedy = false } = {}) {
    const T = this.cfg.contextLength;
    const W = newTokens + 1;
    let key = random.key(seed);
    if (variant === 'prefix') {
      if (greedy) throw new Error('jaxjs-gpt sample: greedy is the KV form only');
      let tokens = np.zeros([B, T], { dtype: np.int32 });
      for (let pos = 0; pos < newTokens; pos++) {
        [tokens, key] = this.prefixStep(tree.ref(this.params), tokens, np.array(pos, { dtype: np.int32 }), key);
      }
      key.dispose();
      const flat = await tokens.data();
      return Array.from({ length: B }, (_, b) => Array.from(flat.subarray(b * T, b * T + W)));
    }
    const step = greedy ? (this.kvGreedyStep ??= makeKvSampleStep(this.cfg, 1e-5, { draw: this.draw })) : this.kvStep;
    const { nLayers: L, dModel: C } = this.cfg;
    let cacheK = Array.from({ length: L }, () => np.zeros([B, T, C]));
    let cacheV = Array.from({ length: L }, () => np.zeros([B, T, C]));
    let tok = np.zeros([B], { dtype: np.int32 });
    const cols = [tok.ref];
    for (let pos = 0; pos < newTokens; pos++) {
      [cacheK, cacheV, tok, key] = step(tree.ref(this.params), cacheK, cacheV, tok, np.array(pos, { dtype: np.int32 }), key);
      cols.push(tok.ref);
    }
    tok.dispose();
    key.dispose();
    tree.dispose([cacheK, cacheV]);
    const all = await np.stack(cols, 1).data(); // [B, W]
    return Array.from({ length: B }, (_, b) => Array.from(all.subarray(b * W, (b + 1) * W)));
  }

  dispose() {
    tree.dispose([this.params, this.m, this.v]);
    this.trainStep.dispose();
    this.prefixStep.dispose();
    this.kvStep.dispose();
    this.kvGreedyStep?.dispose();
  }
}
