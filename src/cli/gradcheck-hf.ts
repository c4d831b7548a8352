/**
 * `magic-lab gradcheck`'s checks of the real-model (Llama / Qwen2) kernels: RoPE, grouped-query
 * attention, SwiGLU, RMSNorm at a model's ε, the vocabulary-chunked log-prob / entropy head over a
 * row-split table and the embedding rows, each forward + backward against its float64 twin on fresh
 * random inputs with poisoned outputs, GQA's KV-cache decode step, the chunked sampler (its error is the
 * count of tokens that differ from the float64 sampler's away from CDF boundaries); then the whole
 * forward and backward of both tiny checkpoints against the float64 reference model.
 */
import { poisoned, relErr, upload, uploadU32 } from '../gpu/check';
import type { GpuRuntime } from '../gpu/runtime';
import { gqaBackward, gqaDecode, gqaForward } from '../gpu/kernels/gqa';
import { normForward } from '../gpu/kernels/norm';
import { ropeRotate, ropeTables } from '../gpu/kernels/rope';
import { swigluBackward, swigluForward } from '../gpu/kernels/swiglu';
import { embedRows, embedRowsBackward, readRowSplit, uploadRowSplit, vocabHeadBackward, vocabHeadForward, vocabHeadSample } from '../gpu/kernels/vocab';
import { sampleToken, uniformAt } from '../model/reference/sampling';
import * as ref from '../model/reference/ops';
import { memoryFolder } from '../model/hf/files';
import { allocHfGrads, readHfGrads, recordHfBackward } from '../model/hf/gpu-backward';
import { recordHfForward, uploadHfWeights } from '../model/hf/gpu-forward';
import { hfLogprobGrads } from '../model/hf/reference-backward';
import { hfTokenLogprobs } from '../model/hf/reference-forward';
import { tinyHfFolder } from '../model/hf/tiny';
import { loadHfWeights } from '../model/hf/weights';
import type { Rng } from '../util/rng';

/** The shape of gradcheck.ts's checks. */
export interface HfCheck {
  name: string;
  tol?: number;
  run: (rt: GpuRuntime, rng: Rng) => Promise<number>;
}

const randn = (rng: Rng, n: number, s = 1) => Float64Array.from({ length: n }, () => Math.fround(rng.normal() * s));
const worst = (...xs: number[]) => Math.max(...xs);

export function hfKernelChecks(): HfCheck[] {
  const checks: HfCheck[] = [];
  checks.push({
    name: 'RoPE rotate_half forward + backward (θ 1e6, pos0 5)',
    run: async (rt, rng) => {
      const [B, T, heads, hd, theta, pos0] = [3, 11, 5, 14, 1e6, 5];
      const rows = B * T, n = rows * heads * hd;
      const x = randn(rng, n);
      const t = ropeTables(theta, hd, pos0 + T);
      const [xb, cos, sin] = [upload(rt, 'gc.r.x', x), upload(rt, 'gc.r.cos', t.cos), upload(rt, 'gc.r.sin', t.sin)];
      const fwd = poisoned(rt, 'gc.r.f', n), bwd = poisoned(rt, 'gc.r.b', n);
      const args = { x: xb, cos, sin, rows, T, heads, headDim: hd, positions: pos0 + T, pos0 };
      rt.run([await ropeRotate(rt, { ...args, out: fwd, direction: 1 }), await ropeRotate(rt, { ...args, out: bwd, direction: -1 })]);
      return worst(relErr(await rt.readF32(fwd, 0, n), ref.ropeForward(x, rows, T, heads, hd, theta, pos0)), relErr(await rt.readF32(bwd, 0, n), ref.ropeBackward(x, rows, T, heads, hd, theta, pos0)));
    },
  });
  checks.push({
    name: 'grouped-query attention forward + backward (9 over 3 heads)',
    run: async (rt, rng) => {
      const s = { B: 2, T: 19, H: 9, Hkv: 3, hd: 6 };
      const nq = s.B * s.T * s.H * s.hd, nkv = s.B * s.T * s.Hkv * s.hd, na = s.B * s.H * s.T * s.T;
      const q = randn(rng, nq, 2), k = randn(rng, nkv, 2), v = randn(rng, nkv), dout = randn(rng, nq);
      const [qb, kb, vb] = [upload(rt, 'gc.a.q', q), upload(rt, 'gc.a.k', k), upload(rt, 'gc.a.v', v)];
      const out = poisoned(rt, 'gc.a.out', nq), att = poisoned(rt, 'gc.a.att', na);
      const dq = poisoned(rt, 'gc.a.dq', nq), dk = poisoned(rt, 'gc.a.dk', nkv), dv = poisoned(rt, 'gc.a.dv', nkv);
      rt.run([
        await gqaForward(rt, { ...s, q: qb, k: kb, v: vb, out, att }),
        ...(await gqaBackward(rt, { ...s, dout: upload(rt, 'gc.a.dout', dout), q: qb, k: kb, v: vb, att, dpre: poisoned(rt, 'gc.a.dpre', na), dq, dk, dv })),
      ]);
      const f = ref.gqaForward(q, k, v, s), g = ref.gqaBackward(dout, q, k, v, f.att, s);
      return worst(
        relErr(await rt.readF32(out, 0, nq), f.out),
        relErr(await rt.readF32(dq, 0, nq), g.dq),
        relErr(await rt.readF32(dk, 0, nkv), g.dk),
        relErr(await rt.readF32(dv, 0, nkv), g.dv),
      );
    },
  });
  checks.push({
    name: 'grouped-query attention KV-cache decode step (pos 13 of 16)',
    run: async (rt, rng) => {
      const s = { B: 2, Tmax: 16, H: 6, Hkv: 2, hd: 7 };
      const pos = 13;
      const nq = s.B * s.H * s.hd, nc = s.B * s.Tmax * s.Hkv * s.hd;
      const q = randn(rng, nq, 2), kc = randn(rng, nc, 2), vc = randn(rng, nc);
      // The new token's k and v, which the step stores at pos itself.
      const k = Float64Array.from({ length: s.B * s.Hkv * s.hd }, (_, i) => kc[(Math.floor(i / (s.Hkv * s.hd)) * s.Tmax + pos) * s.Hkv * s.hd + (i % (s.Hkv * s.hd))]);
      const v = Float64Array.from({ length: k.length }, (_, i) => vc[(Math.floor(i / (s.Hkv * s.hd)) * s.Tmax + pos) * s.Hkv * s.hd + (i % (s.Hkv * s.hd))]);
      const kcache = upload(rt, 'gc.d.kc', kc.map((x, i) => (Math.floor(i / (s.Hkv * s.hd)) % s.Tmax >= pos ? NaN : x)));
      const vcache = upload(rt, 'gc.d.vc', vc.map((x, i) => (Math.floor(i / (s.Hkv * s.hd)) % s.Tmax >= pos ? NaN : x)));
      const out = poisoned(rt, 'gc.d.out', nq);
      rt.run(await gqaDecode(rt, { ...s, q: upload(rt, 'gc.d.q', q), k: upload(rt, 'gc.d.k', k), v: upload(rt, 'gc.d.v', v), kcache, vcache, out, scores: poisoned(rt, 'gc.d.s', s.B * s.H * s.Tmax), state: uploadU32(rt, 'gc.d.state', [pos]) }));
      return relErr(await rt.readF32(out, 0, nq), ref.gqaDecodeStep(q, kc, vc, pos, s));
    },
  });
  checks.push({
    name: 'chunked sampling (τ 0.7): tokens unlike the float64 sampler',
    tol: 0,
    run: async (rt, rng) => {
      const [N, d, V, chunk, tau, pos] = [61, 8, 211, 30, 0.7, 3];
      const seed = rng.int(0, 2 ** 31);
      const hidden = randn(rng, N * d), head = randn(rng, V * d, 0.7);
      const sampled = uploadU32(rt, 'gc.smp.tok', new Array(N).fill(0));
      const lse = poisoned(rt, 'gc.smp.lse', N);
      const h = uploadRowSplit(rt, 'gc.smp.head', Float32Array.from(head), V, d, 64 * d * 4);
      rt.run(await vocabHeadSample(rt, { hidden: upload(rt, 'gc.smp.h', hidden), head: h, N, chunk, temperature: tau, seed, state: uploadU32(rt, 'gc.smp.pos', [pos]), sampled, logp: poisoned(rt, 'gc.smp.lp', N), entropy: poisoned(rt, 'gc.smp.e', N), lse, label: 'gc' }));
      const got = await rt.readU32(sampled, 0, N);
      let differ = 0;
      for (let t = 0; t < N; t++) {
        const z = Array.from({ length: V }, (_, v) => hidden.slice(t * d, t * d + d).reduce((acc, x, i) => acc + x * head[v * d + i], 0));
        const u = uniformAt(seed, t, pos);
        const want = sampleToken(z, tau, 1, u);
        const l = Math.log(z.reduce((acc, x) => acc + Math.exp(x / tau), 0));
        let before = 0;
        for (let v = 0; v < want.token; v++) before += Math.exp(z[v] / tau - l);
        const nearBoundary = Math.abs(before - u) < 1e-5 || Math.abs(before + Math.exp(z[want.token] / tau - l) - u) < 1e-5;
        if (!nearBoundary && got[t] !== want.token) differ++;
      }
      return differ;
    },
  });
  checks.push({
    name: 'SwiGLU forward + backward',
    run: async (rt, rng) => {
      const n = 2011;
      const gate = randn(rng, n, 3), up = randn(rng, n), dout = randn(rng, n);
      const [g, u] = [upload(rt, 'gc.s.g', gate), upload(rt, 'gc.s.u', up)];
      const out = poisoned(rt, 'gc.s.out', n), dgate = poisoned(rt, 'gc.s.dg', n), dup = poisoned(rt, 'gc.s.du', n);
      rt.run([await swigluForward(rt, { gate: g, up: u, out, n }), await swigluBackward(rt, { gate: g, up: u, dout: upload(rt, 'gc.s.d', dout), dgate, dup, n })]);
      const w = ref.swigluBackward(dout, gate, up);
      return worst(relErr(await rt.readF32(out, 0, n), ref.swigluForward(gate, up)), relErr(await rt.readF32(dgate, 0, n), w.dgate), relErr(await rt.readF32(dup, 0, n), w.dup));
    },
  });
  checks.push({
    name: 'RMSNorm forward at ε 1e-6',
    run: async (rt, rng) => {
      const [rows, C, eps] = [23, 17, 1e-6];
      const x = randn(rng, rows * C, 1e-3), w = randn(rng, C);
      const out = poisoned(rt, 'gc.n6.out', rows * C);
      rt.run([await normForward(rt, { kind: 'rmsnorm', inp: upload(rt, 'gc.n6.x', x), weight: upload(rt, 'gc.n6.w', w), out, rstd: poisoned(rt, 'gc.n6.r', rows), rows, C, eps })]);
      return relErr(await rt.readF32(out, 0, rows * C), ref.rmsnormForward(x, w, rows, C, eps).out);
    },
  });
  checks.push({
    name: 'vocab-chunked logp/entropy + gradient, head in 4 parts',
    run: async (rt, rng) => {
      const [N, d, V, chunk] = [9, 12, 389, 21];
      const hidden = randn(rng, N * d), head = randn(rng, V * d, 1);
      const targets = Array.from({ length: N }, (_, t) => (t === N - 1 ? ref.NO_TARGET : rng.int(0, V - 1)));
      const coef = randn(rng, N), ent = randn(rng, N).map((x, t) => (t === N - 1 ? 0 : x));
      const c = coef.map((x, t) => (t === N - 1 ? 0 : x));
      const h = uploadRowSplit(rt, 'gc.v.head', Float32Array.from(head), V, d, 112 * d * 4);
      const dh = uploadRowSplit(rt, 'gc.v.dhead', null, V, d, 112 * d * 4);
      const [hb, tb] = [upload(rt, 'gc.v.h', hidden), uploadU32(rt, 'gc.v.t', targets)];
      const logp = poisoned(rt, 'gc.v.lp', N), entropy = poisoned(rt, 'gc.v.e', N), lse = poisoned(rt, 'gc.v.lse', N), dhidden = poisoned(rt, 'gc.v.dh', N * d);
      const fwd = await vocabHeadForward(rt, { hidden: hb, head: h, targets: tb, N, chunk, logp, entropy, lse, label: 'gc' });
      const bwd = await vocabHeadBackward(rt, { hidden: hb, head: h, dhead: dh, targets: tb, lse, entropy, coef: upload(rt, 'gc.v.c', c), entCoef: upload(rt, 'gc.v.ec', ent), dhidden, N, chunk, accumulate: false, label: 'gc' });
      rt.run([...fwd, ...bwd]);
      const f = ref.vocabHeadForward(hidden, head, targets, N, d, V, chunk), g = ref.vocabHeadBackward(hidden, head, targets, f, c, ent, N, d, V, chunk);
      return worst(
        relErr((await rt.readF32(logp, 0, N)).subarray(0, N - 1), f.logp.subarray(0, N - 1)),
        relErr(await rt.readF32(entropy, 0, N), f.entropy),
        relErr(await rt.readF32(dhidden, 0, N * d), g.dhidden),
        relErr(await readRowSplit(rt, dh), g.dhead),
      );
    },
  });
  checks.push({
    name: 'embedding rows forward + gradient, table in 3 parts',
    run: async (rt, rng) => {
      const [V, d, N] = [150, 8, 47];
      const table = randn(rng, V * d), dout = randn(rng, N * d);
      const tokens = Array.from({ length: N }, () => rng.int(0, V - 1));
      const t = uploadRowSplit(rt, 'gc.e.t', Float32Array.from(table), V, d, 64 * d * 4);
      const dt = uploadRowSplit(rt, 'gc.e.dt', null, V, d, 64 * d * 4);
      const out = poisoned(rt, 'gc.e.out', N * d);
      rt.run([...(await embedRows(rt, { tokens: uploadU32(rt, 'gc.e.tok', tokens), table: t, out, N })), ...(await embedRowsBackward(rt, { tokens, dout: upload(rt, 'gc.e.d', dout), dtable: dt, label: 'gc' }))]);
      const want = Float64Array.from({ length: N * d }, (_, i) => table[tokens[Math.floor(i / d)] * d + (i % d)]);
      return worst(relErr(await rt.readF32(out, 0, N * d), want), relErr(await readRowSplit(rt, dt), ref.embedRowsBackward(tokens, dout, V, d)));
    },
  });
  for (const arch of ['llama', 'qwen2'] as const) {
    checks.push({
      name: `tiny ${arch} (HF): logp, entropy and every weight gradient`,
      run: async (rt, rng) => {
        const w = await loadHfWeights(memoryFolder(arch, tinyHfFolder(arch)));
        const c = w.config;
        const [T, chunk] = [17, 64];
        const tokens = Array.from({ length: T }, () => rng.int(0, c.vocabSize - 1));
        const coef = randn(rng, T), ent = randn(rng, T);
        const gw = uploadHfWeights(rt, w);
        const grads = allocHfGrads(rt, gw);
        const { acts, dispatches } = await recordHfForward(rt, gw, [tokens], chunk);
        rt.run([...dispatches, ...(await recordHfBackward(rt, gw, grads, acts, tokens, coef, ent, chunk))]);
        const f = hfTokenLogprobs(w, tokens, chunk);
        const g = hfLogprobGrads(w, tokens, Array.from(coef.subarray(0, T - 1)), chunk, Array.from(ent.subarray(0, T - 1)));
        const got = await readHfGrads(rt, grads);
        const errs = [relErr((await rt.readF32(acts.logp, 0, T)).subarray(0, T - 1), f.logprobs), relErr((await rt.readF32(acts.entropy, 0, T)).subarray(0, T - 1), f.entropies)];
        errs.push(relErr(got.embed, g.embed), relErr(got.norm, g.norm));
        if (g.lmHead) errs.push(got.lmHead ? relErr(got.lmHead, g.lmHead) : Infinity);
        got.layers.forEach((L, l) => {
          for (const [k, a] of Object.entries(L)) {
            const want = g.layers[l][k as keyof typeof L];
            if (a && want) errs.push(relErr(a.subarray(0, want.length), want));
          }
        });
        return worst(...errs);
      },
    });
  }
  return checks;
}
