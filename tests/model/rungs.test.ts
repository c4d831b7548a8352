/**
 * Both engines at each ladder rung's shape (src/rl/config/rungs.ts): the small rung's whole model
 * runs a forward, a training step and a short generation at context 256 on the CPU engine and on
 * WebGPU (SwiftShader here) with matching logits; the medium rung's (d 256, context 512) a forward.
 * And each rung's scaled-down gradcheck twin (src/cli/gradcheck-model.ts) against float64 on both.
 */
import { describe, expect, it } from 'vitest';
import type { Backend, PolicyEngine, UpdateBatch } from '../../src/model/engine';
import { initParams } from '../../src/model/init';
import { rungBaseConfig, type RungName } from '../../src/rl/config';
import { RUNG_TWINS } from '../../src/cli/gradcheck-model';
import { rungTwinChecks as gpuTwinChecks } from '../../src/cli/gradcheck';
import { rungTwinChecks as cpuTwinChecks } from '../../src/cli/gradcheck-cpu';
import type { WasmBackend } from '../../src/model/cpu-policy';
import { Rng } from '../../src/util/rng';
import { relErr } from '../gpu/harness';
import { ADAMW, ENGINES, policyOn } from './engines';

const TEMP = 1;

function batchOf(vocab: number, rows: number, T: number, seed: number): UpdateBatch {
  const rng = new Rng(seed);
  const tokens = Uint32Array.from({ length: rows * T }, () => rng.int(3, vocab - 1));
  const targets = Uint32Array.from({ length: rows * T }, (_, i) => (i % T === T - 1 ? 0 : tokens[i + 1]));
  const mask = Float32Array.from({ length: rows * T }, (_, i) => (i % T >= 4 && i % T < T - 1 ? 1 : 0));
  const count = mask.reduce((a, x) => a + x, 0);
  return { rows, T, temperature: TEMP, tokens, targets, mask, weights: mask.map((m) => m / count) };
}

/** What one engine gives at a rung's model: the forward's logits, logp and entropy, then (optionally) a CE step and a generation. */
async function runRung(engine: (typeof ENGINES)[number], rung: RungName, rows: number, T: number, train: boolean) {
  const cfg = rungBaseConfig(rung).model;
  const backend: Backend = await engine.backend();
  const pol: PolicyEngine = await policyOn(backend, cfg, initParams(cfg, 5));
  try {
    const b = batchOf(cfg.vocabSize, rows, T, 9);
    const fwd = await pol.forward(b.tokens, b.targets, rows, T, TEMP);
    const logits = await engine.logits(pol, rows, T, TEMP);
    if (!train) return { fwd, logits };
    const stats = await pol.update(b, { kind: 'ce' }, { step: 1, adamw: ADAMW });
    const gen = await pol.generate({ prompts: [[1, 4, 5], [1, 7]], maxResponseLength: 4, temperature: 1, topP: 0.9, seed: 3, eosId: 2, padId: 0 });
    return { fwd, logits, stats, gen };
  } finally {
    pol.destroy();
  }
}

describe('both engines at the ladder rungs', () => {
  it('small (d 128, 4 layers, context 256): forward, CE step and generation match between the CPU engine and WebGPU', async () => {
    const [cpu, gpu] = [await runRung(ENGINES[0], 'small', 2, 256, true), await runRung(ENGINES[1], 'small', 2, 256, true)];
    expect(cpu.logits.every(Number.isFinite)).toBe(true);
    expect(relErr(gpu.logits, cpu.logits)).toBeLessThan(1e-3);
    expect(relErr(gpu.fwd.logp, cpu.fwd.logp)).toBeLessThan(1e-3);
    expect(relErr(gpu.fwd.entropy, cpu.fwd.entropy)).toBeLessThan(1e-3);
    for (const r of [cpu, gpu]) {
      expect(Number.isFinite(r.stats!.loss) && r.stats!.loss > 0).toBe(true);
      expect(Number.isFinite(r.stats!.gradNorm)).toBe(true);
      expect(r.gen!.responses).toHaveLength(2);
      for (const resp of r.gen!.responses) expect(resp.length).toBeGreaterThan(0);
      expect(r.gen!.logp.flat().every(Number.isFinite)).toBe(true);
    }
    expect(Math.abs(gpu.stats!.loss - cpu.stats!.loss) / cpu.stats!.loss).toBeLessThan(1e-4);
    expect(Math.abs(gpu.stats!.gradNorm - cpu.stats!.gradNorm) / cpu.stats!.gradNorm).toBeLessThan(1e-3);
  }, 300_000);

  it('medium (d 256, 5 layers, context 512): one forward gives the same logits on both engines', async () => {
    const [cpu, gpu] = [await runRung(ENGINES[0], 'medium', 1, 24, false), await runRung(ENGINES[1], 'medium', 1, 24, false)];
    expect(cpu.logits.every(Number.isFinite)).toBe(true);
    expect(relErr(gpu.logits, cpu.logits)).toBeLessThan(1e-3);
    expect(relErr(gpu.fwd.logp, cpu.fwd.logp)).toBeLessThan(1e-3);
  }, 300_000);
});

describe("each rung's gradcheck twin against float64", () => {
  it('the twins keep the rung head size and cross its tiling lengths', () => {
    for (const { rung, check } of RUNG_TWINS) {
      const m = rungBaseConfig(rung).model;
      expect(check.cfg.dModel / check.cfg.nHeads).toBe(m.dModel / m.nHeads);
      expect(check.cfg.contextLength).toBe(m.contextLength);
      expect(check.T).toBe(m.contextLength - 1);
    }
    expect(RUNG_TWINS.find((t) => t.rung === 'medium')!.check.T).toBeGreaterThan(256);
    expect(RUNG_TWINS.find((t) => t.rung === 'small')!.check.T).toBeGreaterThan(128);
  });

  it('CPU engine: every gradient of each twin within tolerance', async () => {
    const backend = (await ENGINES[0].backend()) as WasmBackend;
    const rng = new Rng(17);
    for (const c of cpuTwinChecks(backend)) expect(await c.run(rng), c.name).toBeLessThanOrEqual(c.tol!);
  }, 300_000);

  it('WebGPU: every gradient of each twin within tolerance', async () => {
    const { gpu } = await import('../gpu/harness');
    const rt = await gpu();
    const rng = new Rng(17);
    for (const c of gpuTwinChecks()) expect(await c.run(rt, rng), c.name).toBeLessThanOrEqual(c.tol!);
  }, 300_000);
});
