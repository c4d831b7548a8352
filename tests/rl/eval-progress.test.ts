/** The held-out evaluation reports its progress (the page's state line during the step-0 evaluation, which takes minutes at the larger rungs). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import { getPreset } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';
import { evalProgressText } from '../../src/worker/progress-text';

describe('evaluation progress (magic-tiny, CPU engine)', () => {
  let backend: WasmBackend | null = null;
  afterAll(() => backend?.destroy());

  it('counts every held-out response of every temperature, in order, ending at the total; the record is the same as without it', async () => {
    backend ??= await wasmBackend({ threads: 1 });
    const cfg = getPreset('magic-tiny');
    const checkpoint = new Uint8Array(readFileSync(join(__dirname, '../../public/checkpoints/base-tiny.mlck')));
    const trainer = await MagicTrainer.create(backend, cfg, { checkpoint });
    const seen: [number, number][] = [];
    const withProgress = await trainer.evaluate((done, total) => seen.push([done, total]));
    const total = cfg.eval.testProblems * cfg.eval.k * cfg.eval.temperatures.length;
    expect(seen.length).toBeGreaterThanOrEqual(cfg.eval.temperatures.length);
    expect(seen.every(([, t]) => t === total)).toBe(true);
    expect(seen.map(([d]) => d)).toEqual([...seen.map(([d]) => d)].sort((a, b) => a - b));
    expect(seen[seen.length - 1][0]).toBe(total);
    expect(await trainer.evaluate()).toEqual(withProgress);
    trainer.destroy();
  });

  it('the state line says what runs before step 1, and how far', () => {
    expect(evalProgressText(64, 512)).toBe('evaluating the start weights before step 1: 64 of 512 held-out responses');
  });
});
