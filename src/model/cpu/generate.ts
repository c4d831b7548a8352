/**
 * Batched generation on the CPU engine (the twin of src/model/generate.ts): Wᵀ prepared once,
 * then one recorded decode step per position (KV cache, counter-based sampler) over the sequences
 * still running. Each thread owns a fixed set of slots, so a step needs no barrier until its end.
 */
import { writeSampler } from '../../cpu/blocks';
import { ProgramBuilder } from '../../cpu/program';
import type { Program } from '../../cpu/runtime';
import { headName, layerNames } from '../config';
import { checkGenerateRequest } from '../engine-checks';
import type { GenerateRequest, GenerateResult } from '../engine-types';
import { generationResult } from '../generate';
import type { CpuPolicyMemory } from './memory';
import { SEQ_RUNNING } from '../reference/sampling';
import { compactionSwaps, fitLiveSize, liveSizes } from '../live-sizes';

/** Buffers of batched decoding for B sequences, and the decode step over the first `rows` of them. */
export interface DecodePlan {
  B: number;
  tokens: number;
  seqs: number;
  sampleLogp: number;
  sampleEntropy: number;
  /** Every layer's K caches, [B × C × Tmax] (transposed per sequence, for attentionDecode's scores): a sequence's block moves with it. */
  kCaches: number[];
  /** Every layer's V caches, [B × Tmax × C]: a sequence's rows move with it. */
  vCaches: number[];
  /** The slot counts a step can run over, largest (B) first: liveSizes(B). */
  sizes: number[];
  /** The decode step over slots [0, slots), slots one of `sizes`; the same buffers for all. */
  step(slots: number): Program;
}

/** Allocates the decoding buffers of B sequences (KV caches included); steps are recorded per row count. */
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
  const layers = Array.from({ length: cfg.nLayers }, () => ({ kcache: a(B * Tmax * C), vcache: a(B * Tmax * C) }));
  const record = (R: number): Program => {
    // Every command splits the R sequences the same way (unit 1), so a thread only ever reads
    // rows it wrote itself: no barrier inside a step.
    const b = new ProgramBuilder();
    const norm = (w: string, bias: string) => b.normForward({ kind, inp: x, weight: m.p(w), bias: ln ? m.p(bias) : undefined, out: lnOut, mean: ln ? mean : undefined, rstd, rows: R, C });
    b.encoderDecode(tokens, m.p('wte'), m.p('wpe'), x, Tmax, m.pos, C, R);
    layers.forEach(({ kcache, vcache }, l) => {
      const n = layerNames(l);
      norm(n.ln1w, n.ln1b);
      b.matmulNN({ a: lnOut, b: m.t(n.qkvw), out: qkv, bias: m.p(n.qkvb), M: R, N: 3 * C, K: C, rowUnit: 1 });
      b.attentionDecode({ qkv, kcache, vcache, out: atty, scratch: m.scratch, scratchStride: m.scratchStride, Tmax, C, H, posPtr: m.pos, B: R });
      b.matmulNN({ a: atty, b: m.t(n.projw), out: x, bias: m.p(n.projb), resid: x, M: R, N: C, K: C, rowUnit: 1 });
      norm(n.ln2w, n.ln2b);
      b.matmulNN({ a: lnOut, b: m.t(n.fcw), out: fch, bias: m.p(n.fcb), aux: fchGelu, gelu: 'fwd', M: R, N: F, K: C, rowUnit: 1 });
      b.matmulNN({ a: fchGelu, b: m.t(n.fcprojw), out: x, bias: m.p(n.fcprojb), resid: x, M: R, N: C, K: F, rowUnit: 1 });
    });
    norm('lnf.w', 'lnf.b');
    b.matmulNN({ a: lnOut, b: m.t(headName(cfg)), out: logits, M: R, N: V, K: C, rowUnit: 1 });
    b.sample({ logits, tokens, seqs, sampleLogp, sampleEntropy, opts: m.samplerOpts, scratch: m.scratch, scratchStride: m.scratchStride, V, stride: Tmax, contextLength: Tmax, posPtr: m.pos, B: R });
    return m.own(b.finish(m.rt));
  };
  // One step per size of the ladder, recorded with the buffers: the plan's memory is fixed.
  const sizes = liveSizes(B);
  const programs = new Map(sizes.map((R) => [R, record(R)]));
  const step = (slots: number): Program => {
    const p = programs.get(slots);
    if (!p) throw new Error(`decode step: ${slots} slots is not one of the plan's sizes ${sizes.join(', ')}`);
    return p;
  };
  return { B, tokens, seqs, sampleLogp, sampleEntropy, kCaches: layers.map((l) => l.kcache), vCaches: layers.map((l) => l.vcache), sizes, step };
}

export { liveSizes } from '../live-sizes';

export interface CpuGenerateOptions {
  /** false: decode every sequence until the last ends (the reference for the compaction test). */
  compact?: boolean;
}

/**
 * Runs one generation; `plan` gives the decode plan of B sequences (built on first use).
 * Sequences that have ended stop being decoded: the running ones move to the front slots (their
 * tokens, state, log-probs and KV cache rows with them) and the step runs over those slots only.
 * Each row computes the same floats in any slot, and the sampler's draw is keyed by the sequence's
 * row id (seqs[b·4 + 3]), not its slot, so the result is bit for bit that of decoding every slot.
 */
export function generateOnCpu(m: CpuPolicyMemory, req: GenerateRequest, plan: (B: number) => DecodePlan, opts: CpuGenerateOptions = {}): GenerateResult {
  const { cfg, rt } = m;
  const B = req.prompts.length;
  const Tmax = cfg.contextLength;
  if (B === 0) return { responses: [], finish: [], logp: [], entropy: [], steps: 0, liveSlots: [] };
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
    seqs[b * 4 + 3] = b; // the row id that keys the sampler's draw
  });
  rt.f32(p.sampleLogp, B * Tmax).fill(0);
  rt.f32(p.sampleEntropy, B * Tmax).fill(0);
  rt.run(m.prepare);
  // The last position that can hold a response token is maxPrompt - 1 + maxResponseLength.
  const totalSteps = Math.min(maxPrompt - 1 + req.maxResponseLength, Tmax - 1);
  const compact = opts.compact ?? true;
  let live = B;
  let steps = 0;
  const liveSlots: number[] = [];
  while (steps < totalSteps) {
    rt.u32(m.pos, 1)[0] = steps;
    rt.run(p.step(live));
    liveSlots.push(live);
    steps++;
    if (steps >= totalSteps) break;
    const st = rt.u32(p.seqs, B * 4);
    let running = 0;
    for (let b = 0; b < live; b++) if (st[b * 4 + 2] === SEQ_RUNNING) running++;
    if (running === 0) break; // (a sequence still reading its prompt is running)
    if (!compact) continue;
    const fit = fitLiveSize(p.sizes, live, running);
    if (fit < live) {
      compactSlots(m, p, compactionSwaps(live, (b) => st[b * 4 + 2] === SEQ_RUNNING), steps);
      live = fit;
    }
  }
  const outTokens = rt.u32(p.tokens, B * Tmax);
  const outSeqs = rt.u32(p.seqs, B * 4);
  const lp = rt.f32(p.sampleLogp, B * Tmax);
  const ent = rt.f32(p.sampleEntropy, B * Tmax);
  return generationResult(outTokens, outSeqs, lp, ent, B, Tmax, liveSlots);
}

/**
 * Moves the running sequences to the front slots (`swaps`: compactionSwaps). Tokens, state, log-probs and
 * entropies swap whole; KV cache rows (positions [0, filled)) only travel to the front, since a
 * finished sequence is never decoded again.
 */
function compactSlots(m: CpuPolicyMemory, p: DecodePlan, swaps: readonly [number, number][], filled: number): void {
  const { rt, cfg } = m;
  const Tmax = cfg.contextLength;
  const C = cfg.dModel;
  const B = p.B;
  const seqs = rt.u32(p.seqs, B * 4);
  const perPosition = [rt.u32(p.tokens, B * Tmax), rt.f32(p.sampleLogp, B * Tmax), rt.f32(p.sampleEntropy, B * Tmax)];
  const kCaches = p.kCaches.map((c) => rt.f32(c, B * C * Tmax));
  const vCaches = p.vCaches.map((c) => rt.f32(c, B * Tmax * C));
  const swap = (arr: Uint32Array | Float32Array, i: number, j: number, n: number) => {
    const keep = arr.slice(i * n, (i + 1) * n);
    arr.copyWithin(i * n, j * n, (j + 1) * n);
    arr.set(keep, j * n);
  };
  for (const [i, j] of swaps) {
    swap(seqs, i, j, 4);
    for (const a of perPosition) swap(a, i, j, Tmax);
    // K: each channel's positions are contiguous, so the whole block moves; V: its filled rows.
    for (const c of kCaches) c.copyWithin(i * C * Tmax, j * C * Tmax, (j + 1) * C * Tmax);
    for (const c of vCaches) c.copyWithin(i * Tmax * C, j * Tmax * C, j * Tmax * C + filled * C);
  }
}
