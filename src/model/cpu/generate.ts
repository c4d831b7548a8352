/**
 * Batched generation on the CPU engine (the twin of src/model/generate.ts): Wᵀ prepared once,
 * then one recorded decode step per position for all sequences (KV cache, counter-based sampler).
 * Each thread owns a fixed set of sequences, so a step needs no barrier until its end.
 */
import { writeSampler } from '../../cpu/blocks';
import { ProgramBuilder } from '../../cpu/program';
import type { Program } from '../../cpu/runtime';
import { headName, layerNames } from '../config';
import { checkGenerateRequest } from '../engine-checks';
import type { GenerateRequest, GenerateResult } from '../engine-types';
import { generationResult } from '../generate';
import type { CpuPolicyMemory } from './memory';

/** Buffers of batched decoding for B sequences and the recorded step. */
export interface DecodePlan {
  B: number;
  tokens: number;
  seqs: number;
  sampleLogp: number;
  sampleEntropy: number;
  step: Program;
}

/** Allocates the decoding buffers of B sequences (KV caches included) and records one decode step. */
export function decodePlan(m: CpuPolicyMemory, B: number): DecodePlan {
  const { cfg } = m;
  const C = cfg.dModel;
  const F = cfg.mlpRatio * C;
  const V = cfg.vocabSize;
  const H = cfg.nHeads;
  const Tmax = cfg.contextLength;
  const kind = cfg.norm;
  const ln = kind === 'layernorm';
  const a = (floats: number) => m.f32(floats);
  const tokens = a(B * Tmax);
  const seqs = a(B * 4);
  const sampleLogp = a(B * Tmax);
  const sampleEntropy = a(B * Tmax);
  const x = a(B * C);
  const lnOut = a(B * C);
  const mean = a(B);
  const rstd = a(B);
  const qkv = a(B * 3 * C);
  const atty = a(B * C);
  const fch = a(B * F);
  const fchGelu = a(B * F);
  const logits = a(B * V);
  // Every command splits the B sequences the same way (unit 1), so a thread only ever reads
  // rows it wrote itself: no barrier inside a step.
  const b = new ProgramBuilder();
  const norm = (w: string, bias: string) => b.normForward({ kind, inp: x, weight: m.p(w), bias: ln ? m.p(bias) : undefined, out: lnOut, mean: ln ? mean : undefined, rstd, rows: B, C });
  b.encoderDecode(tokens, m.p('wte'), m.p('wpe'), x, Tmax, m.pos, C, B);
  for (let l = 0; l < cfg.nLayers; l++) {
    const n = layerNames(l);
    const kcache = a(B * Tmax * C);
    const vcache = a(B * Tmax * C);
    norm(n.ln1w, n.ln1b);
    b.matmulNN({ a: lnOut, b: m.t(n.qkvw), out: qkv, bias: m.p(n.qkvb), M: B, N: 3 * C, K: C, rowUnit: 1 });
    b.attentionDecode({ qkv, kcache, vcache, out: atty, scratch: m.scratch, scratchStride: m.scratchStride, Tmax, C, H, posPtr: m.pos, B });
    b.matmulNN({ a: atty, b: m.t(n.projw), out: x, bias: m.p(n.projb), resid: x, M: B, N: C, K: C, rowUnit: 1 });
    norm(n.ln2w, n.ln2b);
    b.matmulNN({ a: lnOut, b: m.t(n.fcw), out: fch, bias: m.p(n.fcb), aux: fchGelu, gelu: 'fwd', M: B, N: F, K: C, rowUnit: 1 });
    b.matmulNN({ a: fchGelu, b: m.t(n.fcprojw), out: x, bias: m.p(n.fcprojb), resid: x, M: B, N: C, K: F, rowUnit: 1 });
  }
  norm('lnf.w', 'lnf.b');
  b.matmulNN({ a: lnOut, b: m.t(headName(cfg)), out: logits, M: B, N: V, K: C, rowUnit: 1 });
  b.sample({ logits, tokens, seqs, sampleLogp, sampleEntropy, opts: m.samplerOpts, scratch: m.scratch, scratchStride: m.scratchStride, V, stride: Tmax, contextLength: Tmax, posPtr: m.pos, B });
  return { B, tokens, seqs, sampleLogp, sampleEntropy, step: m.own(b.finish(m.rt)) };
}

/** Runs one generation; `plan` gives the decode plan of B sequences (built on first use). */
export function generateOnCpu(m: CpuPolicyMemory, req: GenerateRequest, plan: (B: number) => DecodePlan): GenerateResult {
  const { cfg, rt } = m;
  const B = req.prompts.length;
  const Tmax = cfg.contextLength;
  if (B === 0) return { responses: [], finish: [], logp: [], entropy: [], steps: 0 };
  const maxPrompt = checkGenerateRequest(req, cfg);
  writeSampler(rt, m.samplerOpts, { temperature: req.temperature, topP: req.topP, seed: req.seed >>> 0, maxResponseLength: req.maxResponseLength, eosId: req.eosId, padId: req.padId }, cfg.vocabSize);
  const p = plan(B);
  const tokens = rt.u32(p.tokens, B * Tmax);
  tokens.fill(req.padId);
  const seqs = rt.u32(p.seqs, B * 4);
  seqs.fill(0);
  req.prompts.forEach((prompt, b) => {
    tokens.set(prompt, b * Tmax);
    seqs[b * 4] = prompt.length;
  });
  rt.f32(p.sampleLogp, B * Tmax).fill(0);
  rt.f32(p.sampleEntropy, B * Tmax).fill(0);
  rt.run(m.prepare);
  // The last position that can hold a response token is maxPrompt - 1 + maxResponseLength.
  const totalSteps = Math.min(maxPrompt - 1 + req.maxResponseLength, Tmax - 1);
  let steps = 0;
  while (steps < totalSteps) {
    rt.u32(m.pos, 1)[0] = steps;
    rt.run(p.step);
    steps++;
    if (steps >= maxPrompt && steps < totalSteps) {
      const st = rt.u32(p.seqs, B * 4);
      let running = false;
      for (let b = 0; b < B; b++) if (st[b * 4 + 2] === 0) running = true;
      if (!running) break;
    }
  }
  const outTokens = rt.u32(p.tokens, B * Tmax);
  const outSeqs = rt.u32(p.seqs, B * 4);
  const lp = rt.f32(p.sampleLogp, B * Tmax);
  const ent = rt.f32(p.sampleEntropy, B * Tmax);
  return generationResult(outTokens, outSeqs, lp, ent, B, Tmax, steps);
}
