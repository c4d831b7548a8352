/**
 * `magic-lab gradcheck`: runs every kernel on fresh random inputs (sizes that are not multiples
 * of any tile) against its float64 twin and prints the max relative error per kernel, then the
 * whole policy (logits, gradients, AdamW steps). Exit code 1 if any check is above tolerance.
 */
import { poisoned, relErr, upload, uploadU32 } from '../gpu/check';
import { acquireNodeRuntime } from '../gpu/node';
import type { GpuRuntime } from '../gpu/runtime';
import { geluBackward, geluForward } from '../gpu/kernels/elementwise';
import { biasGrad, matmul, MATMUL_VARIANTS } from '../gpu/kernels/matmul';
import { normBackward, normForward, type NormKind } from '../gpu/kernels/norm';
import { encoderBackward, encoderForward } from '../gpu/kernels/embedding';
import { attentionBackward, attentionForward } from '../gpu/kernels/attention';
import { grpoLoss, grpoLossScratchFloats, logSoftmaxEntropyBackward, logSoftmaxEntropyForward } from '../gpu/kernels/loss';
import { adamw, gradNorm, gradNormScratchFloats } from '../gpu/kernels/optimizer';
import * as ref from '../model/reference/ops';
import { referencePolicyLoss, referenceTrainStep } from '../model/reference/model';
import { GpuPolicy } from '../model/policy';
import { buildPolicyStep } from '../model/step';
import { Rng } from '../util/rng';
import { MODEL_CHECK, modelCheckSetup, RUNG_TWINS, type ModelCheck } from './gradcheck-model';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { parseBackendChoice, THREADS_FLAG } from './backend';
import { resolveBackend } from '../model/engine';
import { cpuChecks } from './gradcheck-cpu';
import { hfKernelChecks } from './gradcheck-hf';

export const GRADCHECK_FLAGS: Record<string, FlagSpec> = {
  backend: { type: 'string', help: 'whose kernels: webgpu (default), wasm (the CPU engine), or auto (the engine train would pick)' },
  threads: THREADS_FLAG,
  seed: { type: 'int', min: 0, help: 'random seed for the inputs (default: time-based, printed)' },
  tol: { type: 'number', min: 0, help: 'max relative error for single kernels (default 1e-4)' },
  help: { type: 'bool', help: 'show this help' },
};

export interface CheckResult {
  name: string;
  error: number;
  tol: number;
}

type Check = { name: string; tol?: number; run: (rt: GpuRuntime, rng: Rng) => Promise<number> };

const randn = (rng: Rng, n: number, s = 1) => Float64Array.from({ length: n }, () => rng.normal() * s);
const worst = (...xs: number[]) => Math.max(...xs);

function kernelChecks(): Check[] {
  const checks: Check[] = [];
  checks.push({
    name: 'gelu forward + backward',
    run: async (rt, rng) => {
      const n = 1003;
      const x = randn(rng, n, 2);
      const dy = randn(rng, n);
      const [inp, dout, out, dinp] = [upload(rt, 'gc.x', x), upload(rt, 'gc.dy', dy), poisoned(rt, 'gc.y', n), poisoned(rt, 'gc.dx', n)];
      rt.run([await geluForward(rt, { inp, out, n }), await geluBackward(rt, { inp, dout, dinp, n })]);
      return worst(relErr(await rt.readF32(out, 0, n), ref.geluForward(x)), relErr(await rt.readF32(dinp, 0, n), ref.geluBackward(x, dy)));
    },
  });
  for (const variant of MATMUL_VARIANTS) {
    for (const [transA, transB] of [[false, false], [false, true], [true, false], [true, true]] as const) {
      checks.push({
        name: `matmul ${variant} ${transA ? 'Aᵀ' : 'A'}·${transB ? 'Bᵀ' : 'B'} (+bias, accumulate)`,
        run: async (rt, rng) => {
          const [M, N, K] = [37, 29, 19];
          const A = randn(rng, M * K);
          const Bm = randn(rng, K * N);
          const bias = randn(rng, N);
          const init = randn(rng, M * N);
          const out = upload(rt, 'gc.mm.out', init);
          rt.run([await matmul(rt, { a: upload(rt, 'gc.mm.a', A), b: upload(rt, 'gc.mm.b', Bm), bias: upload(rt, 'gc.mm.bias', bias), out, M, N, K, transA, transB, accumulate: true, variant })]);
          const expect = ref.gemm(A, Bm, M, N, K, transA, transB).map((v, i) => v + init[i] + bias[i % N]);
          return relErr(await rt.readF32(out, 0, M * N), expect);
        },
      });
    }
  }
  checks.push({
    name: 'bias gradient (column sums)',
    run: async (rt, rng) => {
      const [rows, cols] = [131, 23];
      const dy = randn(rng, rows * cols);
      const init = randn(rng, cols);
      const dbias = upload(rt, 'gc.db', init);
      rt.run([await biasGrad(rt, { dout: upload(rt, 'gc.dy2', dy), dbias, rows, cols, accumulate: true })]);
      const expect = ref.linearBackward(dy, new Float64Array(rows), new Float64Array(cols), rows, 1, cols).db.map((v, i) => v + init[i]);
      return relErr(await rt.readF32(dbias, 0, cols), expect);
    },
  });
  for (const kind of ['rmsnorm', 'layernorm'] as NormKind[]) {
    checks.push({
      name: `${kind} forward + backward`,
      run: async (rt, rng) => {
        const [rows, C] = [67, 19];
        const x = randn(rng, rows * C, 2);
        const w = randn(rng, C);
        const b = randn(rng, C);
        const dy = randn(rng, rows * C);
        const ln = kind === 'layernorm';
        const bufs = {
          inp: upload(rt, 'gc.n.x', x),
          weight: upload(rt, 'gc.n.w', w),
          bias: ln ? upload(rt, 'gc.n.b', b) : undefined,
          out: poisoned(rt, 'gc.n.out', rows * C),
          mean: ln ? poisoned(rt, 'gc.n.mean', rows) : undefined,
          rstd: poisoned(rt, 'gc.n.rstd', rows),
        };
        const dinp = poisoned(rt, 'gc.n.dx', rows * C);
        const dweight = upload(rt, 'gc.n.dw', new Float64Array(C));
        const dbias = ln ? upload(rt, 'gc.n.db', new Float64Array(C)) : undefined;
        rt.run([
          await normForward(rt, { kind, ...bufs, rows, C }),
          ...(await normBackward(rt, { kind, dout: upload(rt, 'gc.n.dy', dy), inp: bufs.inp, weight: bufs.weight, mean: bufs.mean, rstd: bufs.rstd, dinp, dweight, dbias, rows, C, accumulate: false })),
        ]);
        if (ln) {
          const f = ref.layernormForward(x, w, b, rows, C);
          const g = ref.layernormBackward(dy, x, w, f.mean, f.rstd, rows, C);
          return worst(
            relErr(await rt.readF32(bufs.out, 0, rows * C), f.out),
            relErr(await rt.readF32(dinp, 0, rows * C), g.dx),
            relErr(await rt.readF32(dweight, 0, C), g.dw),
            relErr(await rt.readF32(dbias!, 0, C), g.db),
          );
        }
        const f = ref.rmsnormForward(x, w, rows, C);
        const g = ref.rmsnormBackward(dy, x, w, f.rstd, rows, C);
        return worst(relErr(await rt.readF32(bufs.out, 0, rows * C), f.out), relErr(await rt.readF32(dinp, 0, rows * C), g.dx), relErr(await rt.readF32(dweight, 0, C), g.dw));
      },
    });
  }
  checks.push({
    name: 'embedding forward + scatter-add backward',
    run: async (rt, rng) => {
      const [B, T, C, V] = [3, 7, 13, 11];
      const tokens = Array.from({ length: B * T }, () => rng.int(0, V - 1));
      const wte = randn(rng, V * C);
      const wpe = randn(rng, T * C);
      const dy = randn(rng, B * T * C);
      const tok = uploadU32(rt, 'gc.e.tok', tokens);
      const out = poisoned(rt, 'gc.e.out', B * T * C);
      const dwte = upload(rt, 'gc.e.dwte', new Float64Array(V * C));
      const dwpe = upload(rt, 'gc.e.dwpe', new Float64Array(T * C));
      rt.run([
        await encoderForward(rt, { tokens: tok, wte: upload(rt, 'gc.e.wte', wte), wpe: upload(rt, 'gc.e.wpe', wpe), out, B, T, C, tokenStride: T }),
        ...(await encoderBackward(rt, { dout: upload(rt, 'gc.e.dy', dy), tokens: tok, dwte, dwpe, B, T, C, V, tokenStride: T })),
      ]);
      const g = ref.encoderBackward(dy, tokens, B, T, C, V);
      return worst(
        relErr(await rt.readF32(out, 0, B * T * C), ref.encoderForward(tokens, wte, wpe, B, T, C)),
        relErr(await rt.readF32(dwte, 0, V * C), g.dwte),
        relErr(await rt.readF32(dwpe, 0, T * C), g.dwpe),
      );
    },
  });
  checks.push({
    name: 'causal attention forward + backward',
    run: async (rt, rng) => {
      const [B, T, C, H] = [2, 13, 12, 3];
      const qkv = randn(rng, B * T * 3 * C);
      const dy = randn(rng, B * T * C);
      const q = upload(rt, 'gc.a.qkv', qkv);
      const out = poisoned(rt, 'gc.a.out', B * T * C);
      const att = poisoned(rt, 'gc.a.att', B * H * T * T);
      const dqkv = poisoned(rt, 'gc.a.dqkv', B * T * 3 * C);
      rt.run([
        await attentionForward(rt, { qkv: q, out, att, B, T, C, H }),
        ...(await attentionBackward(rt, { dout: upload(rt, 'gc.a.dy', dy), qkv: q, att, dpreatt: poisoned(rt, 'gc.a.dpre', B * H * T * T), dqkv, B, T, C, H })),
      ]);
      const f = ref.attentionForward(qkv, B, T, C, H);
      return worst(
        relErr(await rt.readF32(out, 0, B * T * C), f.out),
        relErr(await rt.readF32(att, 0, B * H * T * T), f.att),
        relErr(await rt.readF32(dqkv, 0, B * T * 3 * C), ref.attentionBackward(dy, qkv, f.att, B, T, C, H)),
      );
    },
  });
  checks.push({
    name: 'log-softmax → log-prob + entropy (τ=0.7), forward + backward',
    run: async (rt, rng) => {
      const [rows, V, tau] = [41, 29, 0.7];
      const logits = randn(rng, rows * V, 3);
      const targets = Array.from({ length: rows }, () => rng.int(0, V - 1));
      const dlp = randn(rng, rows);
      const dent = randn(rng, rows);
      const L = upload(rt, 'gc.l.logits', logits);
      const tg = uploadU32(rt, 'gc.l.t', targets);
      const [logp, entropy, lse, dlogits] = [poisoned(rt, 'gc.l.lp', rows), poisoned(rt, 'gc.l.ent', rows), poisoned(rt, 'gc.l.lse', rows), poisoned(rt, 'gc.l.dl', rows * V)];
      rt.run([
        await logSoftmaxEntropyForward(rt, { logits: L, targets: tg, logp, entropy, lse, rows, V, temperature: tau }),
        await logSoftmaxEntropyBackward(rt, { logits: L, targets: tg, lse, entropy, dlogp: upload(rt, 'gc.l.dlp', dlp), dent: upload(rt, 'gc.l.dent', dent), dlogits, rows, V, temperature: tau }),
      ]);
      const f = ref.logSoftmaxEntropyForward(logits, targets, rows, V, tau);
      return worst(
        relErr(await rt.readF32(logp, 0, rows), f.logp),
        relErr(await rt.readF32(entropy, 0, rows), f.entropy),
        relErr(await rt.readF32(dlogits, 0, rows * V), ref.logSoftmaxEntropyBackward(dlp, dent, logits, targets, rows, V, tau)),
      );
    },
  });
  checks.push({
    name: 'GRPO token loss (clip, dual clip, entropy, k3 KL) + gradient + stats',
    run: async (rt, rng) => {
      const N = 301;
      const logp = randn(rng, N, 0.5).map((x) => x - 2);
      const inp = {
        logp,
        oldLogp: logp.map((x) => x + 0.4 * rng.normal()),
        refLogp: logp.map((x) => x + 0.4 * rng.normal()),
        advantages: randn(rng, N),
        mask: Float64Array.from({ length: N }, () => (rng.next() < 0.8 ? 1 : 0)),
        weights: new Float64Array(N),
        entropy: randn(rng, N, 0.3).map(Math.abs),
      };
      const count = inp.mask.reduce((a, b) => a + b, 0);
      inp.weights = inp.mask.map((m) => m / count);
      const opts = { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, entCoef: 0.03, klCoef: 0.05, klType: 'k3' as const };
      const dlogp = poisoned(rt, 'gc.g.dlp', N);
      const dent = poisoned(rt, 'gc.g.dent', N);
      const stats = poisoned(rt, 'gc.g.stats', 8);
      const g = await grpoLoss(rt, {
        logp: upload(rt, 'gc.g.lp', inp.logp),
        oldLogp: upload(rt, 'gc.g.old', inp.oldLogp),
        refLogp: upload(rt, 'gc.g.ref', inp.refLogp),
        advantages: upload(rt, 'gc.g.adv', inp.advantages),
        weights: upload(rt, 'gc.g.w', inp.weights),
        mask: upload(rt, 'gc.g.mask', inp.mask),
        entropy: upload(rt, 'gc.g.ent', inp.entropy),
        dlogp,
        dent,
        stats,
        scratch: poisoned(rt, 'gc.g.scratch', grpoLossScratchFloats(N)),
        N,
        opts,
      });
      rt.run(g.dispatches);
      const r = ref.grpoTokenLoss(inp, opts);
      const s = await rt.readF32(stats, 0, 8);
      return worst(
        relErr(await rt.readF32(dlogp, 0, N), r.dlogp),
        relErr(await rt.readF32(dent, 0, N), r.dent),
        relErr([s[0], s[1], s[2], s[3]], [r.loss, r.pgLoss, r.klSum, r.entSum]),
        Math.abs(s[4] / s[7] - r.clipfrac) + Math.abs(s[5] / s[7] - r.clipfracLower),
      );
    },
  });
  checks.push({
    name: 'grad norm + clipped AdamW (2 steps, then a NaN-loss step that must write nothing)',
    run: async (rt, rng) => {
      const n = 5003;
      const decayEnd = 2048;
      const p = randn(rng, n);
      const gr = randn(rng, n);
      const params = upload(rt, 'gc.o.p', p);
      const grads = upload(rt, 'gc.o.g', gr);
      const m = upload(rt, 'gc.o.m', new Float64Array(n));
      const v = upload(rt, 'gc.o.v', new Float64Array(n));
      const norm = poisoned(rt, 'gc.o.norm', 1);
      const loss = upload(rt, 'gc.o.loss', [0.5]);
      const opts = { lr: 1e-2, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.1, maxGradNorm: 10 };
      const gn = await gradNorm(rt, { grads, n, scratch: poisoned(rt, 'gc.o.s', gradNormScratchFloats(n)), norm });
      const aw = await adamw(rt, { params, grads, m, v, norm, loss, n, decayEnd, opts });
      const rp = p.slice();
      const rm = new Float64Array(n);
      const rv = new Float64Array(n);
      let normErr = 0;
      for (let step = 1; step <= 2; step++) {
        aw.update(rt, step, opts);
        rt.run([...gn, ...aw.dispatches]);
        const c = ref.clipGradNorm(gr, opts.maxGradNorm);
        ref.adamwStep(rp, gr, rm, rv, { ...opts, step, gradScale: c.scale, decayEnd });
        normErr = Math.max(normErr, Math.abs((await rt.readF32(norm, 0, 1))[0] - c.norm) / c.norm);
      }
      // A rejected step (non-finite loss): params, m and v must keep their bits.
      const before = [await rt.readF32(params, 0, n), await rt.readF32(m, 0, n), await rt.readF32(v, 0, n)];
      rt.write(loss, new Float32Array([NaN]));
      aw.update(rt, 3, opts);
      rt.run([...gn, ...aw.dispatches]);
      const after = [await rt.readF32(params, 0, n), await rt.readF32(m, 0, n), await rt.readF32(v, 0, n)];
      const touched = before.some((b, k) => b.some((x, i) => !Object.is(x, after[k][i]))) ? Infinity : 0;
      return worst(normErr, touched, relErr(await rt.readF32(params, 0, n), rp), relErr(await rt.readF32(m, 0, n), rm), relErr(await rt.readF32(v, 0, n), rv));
    },
  });
  return checks;
}

/** The whole policy: every parameter gradient, then three AdamW steps. Tolerance 1e-3: errors compound through layers in f32. */
function modelChecks(check: ModelCheck = MODEL_CHECK): Check[] {
  const { cfg, B, T, tau, lossOpts, adamwOpts } = check;
  const setup = (rng: Rng) => modelCheckSetup(rng, check);
  const gpuStep = async (rt: GpuRuntime, s: ReturnType<typeof setup>) => {
    const policy = new GpuPolicy(rt, cfg, 'gradcheck');
    policy.setParams(s.p32);
    policy.resetAdamState();
    const step = await buildPolicyStep(policy, B, T, tau, { kind: 'grpo', opts: lossOpts, useRef: true });
    rt.write(step.plan.tokens, Uint32Array.from(s.tokens));
    rt.write(step.plan.targets, Uint32Array.from(s.targets));
    for (const [buf, data] of [
      [step.oldLogp, s.inputs.oldLogp],
      [step.refLogp, s.inputs.refLogp],
      [step.advantages, s.inputs.advantages],
      [step.weights, s.inputs.weights],
      [step.mask, s.inputs.mask],
    ] as const)
      rt.write(buf, Float32Array.from(data));
    return { policy, step };
  };
  return [
    {
      name: 'whole policy: logp, entropy and every parameter gradient',
      tol: 1e-3,
      run: async (rt, rng) => {
        const s = setup(rng);
        const { policy, step } = await gpuStep(rt, s);
        step.run({ step: 1, adamw: adamwOpts, onPolicy: false, update: false });
        const r = referencePolicyLoss(cfg, Float64Array.from(s.p32), s.tokens, B, T, tau, s.inputs, lossOpts);
        const grads = await rt.readF32(policy.grads, 0, policy.layout.totalFloats);
        let e = worst(relErr(await rt.readF32(step.plan.logp, 0, B * T), r.logp), relErr(await rt.readF32(step.plan.entropy, 0, B * T), r.entropy));
        for (const t of policy.layout.tensors) e = worst(e, relErr(grads.subarray(t.offset, t.offset + t.size), r.grads.subarray(t.offset, t.offset + t.size)));
        return e;
      },
    },
    {
      name: 'whole policy: 3 clipped AdamW steps (max |Δw| / lr)',
      tol: 1e-2,
      run: async (rt, rng) => {
        const s = setup(rng);
        const { policy, step } = await gpuStep(rt, s);
        const p = Float64Array.from(s.p32);
        const m = new Float64Array(p.length);
        const v = new Float64Array(p.length);
        for (let k = 1; k <= 3; k++) {
          step.run({ step: k, adamw: adamwOpts, onPolicy: false });
          referenceTrainStep(cfg, p, m, v, s.tokens, B, T, tau, s.inputs, lossOpts, { ...adamwOpts, step: k });
        }
        const got = await policy.getParams();
        let e = 0;
        for (let i = 0; i < p.length; i++) e = Math.max(e, Math.abs(got[i] - p[i]) / adamwOpts.lr);
        return e;
      },
    },
  ];
}

/** Each ladder rung's twin (src/cli/gradcheck-model.ts): the whole policy's gradients at the rung's head size and lengths. */
export function rungTwinChecks(): Check[] {
  return RUNG_TWINS.map(({ rung, check }) => ({ ...modelChecks(check)[0], name: `${rung} rung twin (hs ${check.cfg.dModel / check.cfg.nHeads}, ${check.B}×${check.T}): every gradient` }));
}

export async function gradcheck(argv: string[], log: (s: string) => void = console.log): Promise<{ ok: boolean; results: CheckResult[] }> {
  const flags = parseFlags(argv, GRADCHECK_FLAGS, 'gradcheck');
  const seed = (flags.seed as number | undefined) ?? (Date.now() >>> 0);
  const tol = (flags.tol as number | undefined) ?? 1e-4;
  const choice = flags.backend === undefined ? 'webgpu' : parseBackendChoice(flags.backend);
  const threads = flags.threads as number | undefined;
  const results: CheckResult[] = [];
  const runChecks = async (checks: { name: string; tol?: number; run: (rng: Rng) => Promise<number> | number }[]) => {
    log('');
    log(`${'kernel'.padEnd(66)} ${'max rel err'.padStart(12)}  tolerance`);
    const rng = new Rng(seed);
    for (const c of checks) {
      const t = c.tol ?? tol;
      let error: number;
      try {
        error = await c.run(rng);
      } catch (e) {
        log(`${c.name.padEnd(66)} ${'ERROR'.padStart(12)}  ${(e as Error).message}`);
        error = Infinity;
      }
      results.push({ name: c.name, error, tol: t });
      log(`${c.name.padEnd(66)} ${error.toExponential(2).padStart(12)}  ${t.toExponential(0)} ${error <= t ? 'ok' : 'FAIL'}`);
    }
  };
  let rt: GpuRuntime | null = null;
  if (choice !== 'wasm') {
    try {
      rt = await acquireNodeRuntime();
    } catch (e) {
      if (choice === 'webgpu') throw e;
    }
  }
  if (choice === 'wasm' || (choice === 'auto' && resolveBackend('auto', rt?.adapter ?? null) === 'wasm')) {
    rt?.destroy();
    if (threads !== undefined && threads < 1) throw new UsageError('--threads: expected at least 1');
    const { wasmBackend } = await import('../model/cpu-policy');
    const backend = await wasmBackend({ threads });
    try {
      log(`engine: ${backend.description}   seed: ${seed}`);
      await runChecks(cpuChecks(backend));
    } finally {
      backend.destroy();
    }
  } else {
    if (threads !== undefined) throw new UsageError('--threads: only for the CPU engine (--backend wasm)');
    const gpu = rt!;
    try {
      log(`adapter: ${gpu.adapter.description}   seed: ${seed}`);
      await runChecks([...kernelChecks(), ...hfKernelChecks(), ...modelChecks(), ...rungTwinChecks()].map((c) => ({ ...c, run: (rng: Rng) => c.run(gpu, rng) })));
    } finally {
      gpu.destroy();
    }
  }
  const ok = results.every((r) => r.error <= r.tol);
  log('');
  log(ok ? `all ${results.length} checks within tolerance` : `${results.filter((r) => r.error > r.tol).length} of ${results.length} checks FAILED`);
  return { ok, results };
}
