/**
 * The bench's tiny GPT written in TF.js (@tensorflow/tfjs, a dev dependency used only by
 * the peer benchmarks), the way a TF.js user would write it: `tf.variable` parameters, ops in
 * `tf.tidy`, `tf.variableGrads` for loss and gradients, AdamW written in tf ops (tf.train.adam has
 * neither decoupled weight decay nor global-norm clipping) and assigned back to the variables.
 *
 * Same model and loss as scripts/peers/jaxjs-gpt.mjs (pre-norm GPT-2, RMSNorm, learned positions,
 * tanh-GELU MLP, tied unembedding; weighted NLL of the targets with the bench's weights), started
 * from the lab's own `initParams` with linear weights transposed to [in, out]. TF.js has no fused
 * attention: causal attention is matMul → additive mask → softmax → matMul, as users write it.
 *
 * The backend is whatever `tf.setBackend` chose before the model is built ('webgpu' in the
 * bench page, 'cpu' in the Node test that checks this file against the lab's reference model).
 * `sample` is the sampling side: a per-token loop with a KV cache or a recomputed prefix.
 */
// The @tensorflow/tfjs bundle, as users import it: tfjs-core alone registers neither chained ops
// (x.add(y)) nor gradients, and its deep imports that do so do not load in Node's ESM.
import * as tf from '@tensorflow/tfjs';

const EPS = 1e-5;
let instances = 0;

/** The lab's flat init (src/model/init.ts) as named Float32Arrays + shapes, linear weights as [in, out]. */
export function tensorsFromLab(cfg, layout, flat) {
  if (cfg.norm !== 'rmsnorm' || !cfg.tiedEmbeddings) throw new Error('tfjs-gpt: written for the bench config (rmsnorm, tied embeddings)');
  const get = (name) => {
    const s = layout.byName.get(name);
    if (!s) throw new Error(`tfjs-gpt: the layout has no parameter ${name}`);
    return { data: Float32Array.from(flat.subarray(s.offset, s.offset + s.size)), shape: s.shape };
  };
  const linear = (name) => {
    const { data, shape } = get(name);
    const [o, i] = shape;
    const w = new Float32Array(o * i);
    for (let r = 0; r < o; r++) for (let c = 0; c < i; c++) w[c * o + r] = data[r * i + c];
    return { data: w, shape: [i, o] };
  };
  const out = { wte: get('wte'), wpe: get('wpe'), lnfw: get('lnf.w') };
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = (s) => `h${l}.${s}`;
    Object.assign(out, {
      [`l${l}.ln1w`]: get(n('ln1.w')),
      [`l${l}.qkvw`]: linear(n('attn.qkv.w')),
      [`l${l}.qkvb`]: get(n('attn.qkv.b')),
      [`l${l}.projw`]: linear(n('attn.proj.w')),
      [`l${l}.projb`]: get(n('attn.proj.b')),
      [`l${l}.ln2w`]: get(n('ln2.w')),
      [`l${l}.fcw`]: linear(n('mlp.fc.w')),
      [`l${l}.fcb`]: get(n('mlp.fc.b')),
      [`l${l}.fcprojw`]: linear(n('mlp.proj.w')),
      [`l${l}.fcprojb`]: get(n('mlp.proj.b')),
    });
  }
  return out;
}

function rmsnorm(x, w) {
  return x.mul(tf.rsqrt(tf.mean(tf.square(x), -1, true).add(EPS))).mul(w);
}

/** tanh-approximate GELU (TF.js core has no gelu op). */
function gelu(x) {
  const inner = x.add(x.pow(3).mul(0.044715)).mul(Math.sqrt(2 / Math.PI));
  return x.mul(0.5).mul(tf.tanh(inner).add(1));
}

/** x [N, in] @ w [in, out] + b over the last axis of x [..., in]. */
function dense(x, w, b) {
  const shape = x.shape;
  const y = tf.matMul(x.reshape([-1, shape[shape.length - 1]]), w);
  const out = b ? y.add(b) : y;
  return out.reshape([...shape.slice(0, -1), w.shape[1]]);
}

/** logits [B, T, V] for int32 tokens [B, T]; p: the name → tensor map; mask [T, T]: 0 or −1e9. */
export function forward(p, tokens, cfg, mask) {
  const [B, T] = tokens.shape;
  const { nHeads: H, dModel: C, nLayers: L } = cfg;
  const hd = C / H;
  let x = tf.gather(p.wte, tokens).add(p.wpe.slice([0, 0], [T, C]));
  for (let l = 0; l < L; l++) {
    const g = (s) => p[`l${l}.${s}`];
    const h = rmsnorm(x, g('ln1w'));
    const qkv = dense(h, g('qkvw'), g('qkvb')).reshape([B, T, 3, H, hd]).transpose([2, 0, 3, 1, 4]); // [3, B, H, T, hd]
    const [q, k, v] = tf.unstack(qkv, 0);
    const s = tf.matMul(q, k, false, true).mul(1 / Math.sqrt(hd)).add(mask); // [B, H, T, T]
    const att = tf.matMul(tf.softmax(s, -1), v).transpose([0, 2, 1, 3]).reshape([B, T, C]);
    x = x.add(dense(att, g('projw'), g('projb')));
    const f = gelu(dense(rmsnorm(x, g('ln2w')), g('fcw'), g('fcb')));
    x = x.add(dense(f, g('fcprojw'), g('fcprojb')));
  }
  x = rmsnorm(x, p.lnfw);
  return tf.matMul(x.reshape([B * T, C]), p.wte, false, true).reshape([B, T, cfg.vocabSize]);
}

/** Weighted NLL: sum over positions of weights · −log p(target). */
export function lossFn(p, tokens, targets, weights, cfg, mask) {
  const logp = tf.logSoftmax(forward(p, tokens, cfg, mask), -1);
  return logp.mul(tf.oneHot(targets, cfg.vocabSize)).sum(-1).mul(weights).sum().neg();
}

/** A TF.js trainer around one set of variables (AdamW as the lab's: global-norm clip, bias correction, decay on ndim ≥ 2). */
export class TfGpt {
  constructor(cfg, layout, flatInit, adamw) {
    this.cfg = cfg;
    this.adamw = adamw;
    const init = tensorsFromLab(cfg, layout, flatInit);
    this.names = Object.keys(init);
    this.prefix = `gpt${instances++}.`; // TF.js variable names are global to the engine
    this.vars = {};
    this.m = {};
    this.v = {};
    for (const n of this.names) {
      this.vars[n] = tf.variable(tf.tensor(init[n].data, init[n].shape, 'float32'), true, `${this.prefix}${n}`);
      this.m[n] = tf.variable(tf.zeros(init[n].shape), false);
      this.v[n] = tf.variable(tf.zeros(init[n].shape), false);
    }
    const T = cfg.contextLength;
    const causal = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) causal[i * T + j] = -1e9;
    this.mask = tf.tensor(causal, [T, T]);
    this.t = 0;
  }

  /** One train step on int32 tokens/targets [B, T] and f32 weights [B, T]; resolves with the loss (read back, so the step is complete). */
  async step(tokens, targets, weights, B, T) {
    this.t++;
    const { lr, beta1: b1, beta2: b2, eps, weightDecay: wd, maxGradNorm } = this.adamw;
    const bc1 = 1 - b1 ** this.t;
    const bc2 = 1 - b2 ** this.t;
    const loss = tf.tidy(() => {
      const tok = tf.tensor(tokens, [B, T], 'int32');
      const tgt = tf.tensor(targets, [B, T], 'int32');
      const w = tf.tensor(weights, [B, T], 'float32');
      const vars = this.names.map((n) => this.vars[n]);
      const { value, grads } = tf.variableGrads(() => lossFn(this.vars, tok, tgt, w, this.cfg, this.mask), vars);
      const gs = this.names.map((n) => grads[`${this.prefix}${n}`]);
      // Pairwise adds, not tf.addN: TF.js-WebGPU's AddN binds one storage buffer per input, and
      // 26 inputs exceed the adapter's limit (the pipeline is invalid and the step silently wrong).
      const norm = tf.sqrt(gs.map((g) => tf.square(g).sum()).reduce((a, b) => a.add(b)));
      const scale = tf.minimum(tf.div(maxGradNorm, norm.add(1e-6)), 1);
      this.names.forEach((n, i) => {
        const g = gs[i].mul(scale);
        const m1 = this.m[n].mul(b1).add(g.mul(1 - b1));
        const v1 = this.v[n].mul(b2).add(tf.square(g).mul(1 - b2));
        const p = this.vars[n];
        let upd = m1.div(bc1).div(tf.sqrt(v1.div(bc2)).add(eps));
        if (p.rank >= 2) upd = upd.add(p.mul(wd));
        p.assign(p.sub(upd.mul(lr)));
        this.m[n].assign(m1);
        this.v[n].assign(v1);
      });
      return value;
    });
    const [out] = await loss.data();
    loss.dispose();
    return out;
  }

  /**
   * Sampling as TF.js users write it: a per-token loop over tf ops, the token on the device between
   * steps (read back once at the end). B sequences from the one-token prompt [0], `newTokens` new
   * tokens each (default: to the full context), at temperature 1 (Gumbel-max) or greedy (tf.argMax). variant 'kv': one position per step against a per-layer KV cache that
   * grows by tf.concat; 'prefix': the causal forward over the whole prefix every step, logits of
   * its last position. Returns the tokens [B][1 + newTokens].
   */
  async sample(B, seed, { variant = 'kv', newTokens = this.cfg.contextLength - 1, greedy = false } = {}) {
    const { nHeads: H, dModel: C, nLayers: L, contextLength: T } = this.cfg;
    if (newTokens < 1 || newTokens > T - 1) throw new Error(`tfjs-gpt sample: newTokens must be in 1..${T - 1}, got ${newTokens}`);
    const hd = C / H;
    const p = this.vars;
    // τ = 1 by Gumbel-max over tf.randomUniform, not tf.multinomial: TF.js-WebGPU's multinomial hashes
    // (column / numSamples, row / B) · seed, so with one sample row 0 gets the same u at every step
    // (the bench's sampler check caught it: z ≈ −54). randomUniform is drawn on the host and uploaded, never read back.
    const pick = (logits, pos) => {
      if (greedy) return tf.argMax(logits, -1).toInt();
      const u = tf.randomUniform([B, this.cfg.vocabSize], 1e-7, 1, 'float32', seed * 4096 + pos);
      return tf.argMax(logits.sub(tf.log(tf.neg(tf.log(u)))), -1).toInt();
    };
    let tok = tf.zeros([B], 'int32');
    const cols = [tok];
    let cacheK = [];
    let cacheV = [];
    for (let pos = 0; pos < newTokens; pos++) {
      if (variant === 'prefix') {
        const prefix = tf.stack(cols, 1); // [B, pos + 1]
        const n = pos + 1;
        tok = tf.tidy(() => {
          const logits = forward(p, prefix, this.cfg, this.mask.slice([0, 0], [n, n]));
          return pick(logits.slice([0, pos, 0], [B, 1, this.cfg.vocabSize]).reshape([B, this.cfg.vocabSize]), pos);
        });
        prefix.dispose();
      } else {
        const out = tf.tidy(() => {
          let x = tf.gather(p.wte, tok).add(p.wpe.slice([pos, 0], [1, C])); // [B, C]
          const K = [];
          const V = [];
          for (let l = 0; l < L; l++) {
            const g = (s) => p[`l${l}.${s}`];
            const qkv = dense(rmsnorm(x, g('ln1w')), g('qkvw'), g('qkvb')).reshape([B, 3, H, 1, hd]);
            const [q, k, v] = tf.unstack(qkv, 1); // [B, H, 1, hd] each
            K.push(pos === 0 ? k : tf.concat([cacheK[l], k], 2)); // [B, H, pos + 1, hd]
            V.push(pos === 0 ? v : tf.concat([cacheV[l], v], 2));
            const s = tf.matMul(q, K[l], false, true).mul(1 / Math.sqrt(hd)); // [B, H, 1, pos + 1]
            const att = tf.matMul(tf.softmax(s, -1), V[l]).reshape([B, C]);
            x = x.add(dense(att, g('projw'), g('projb')));
            x = x.add(dense(gelu(dense(rmsnorm(x, g('ln2w')), g('fcw'), g('fcb'))), g('fcprojw'), g('fcprojb')));
          }
          const logits = tf.matMul(rmsnorm(x, p.lnfw), p.wte, false, true); // [B, V]
          return { next: pick(logits, pos), K, V };
        });
        tf.dispose([cacheK, cacheV]);
        ({ K: cacheK, V: cacheV } = out);
        tok = out.next;
      }
      cols.push(tok);
    }
    tf.dispose([cacheK, cacheV]);
    const all = tf.stack(cols, 1);
    const flat = await all.data();
    tf.dispose([all, cols]);
    const W = newTokens + 1;
    return Array.from({ length: B }, (_, b) => Array.from(flat.subarray(b * W, (b + 1) * W)));
  }

  dispose() {
    for (const n of this.names) {
      this.vars[n].dispose();
      this.m[n].dispose();
      this.v[n].dispose();
    }
    this.mask.dispose();
  }
}
