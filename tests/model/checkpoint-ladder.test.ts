/** Checkpoints made before the model ladder still load, and belong where the ladder says they do. */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../src/model/checkpoint';
import { getPreset, getRung, rungBaseConfig, rungOf } from '../../src/rl/config';
import { DEFAULT_BASE, rungBasePath } from '../../src/run/rung-base';
import { rungSftDefaults, validateSftConfig } from '../../src/rl/sft';
import { offlineFilterKey, weightsChecksum } from '../../src/rl/offline-sampling';

const load = (file: string) => decodeCheckpoint(new Uint8Array(readFileSync(file)), file);

describe('pre-ladder checkpoints', () => {
  it("public/checkpoints/base.mlck decodes and is the tiny rung's base", () => {
    const ck = load('public/checkpoints/base.mlck');
    expect(rungOf(ck)).toBe('tiny');
    expect(ck.model).toEqual(rungBaseConfig('tiny').model);
    expect(rungBasePath('tiny')).toBe('public/checkpoints/base.mlck');
    expect(DEFAULT_BASE).toBe(rungBasePath('tiny'));
    expect(getRung('tiny').baseFile).toBe('checkpoints/base.mlck');
    expect(ck.params.every(Number.isFinite)).toBe(true);
  });

  it("public/checkpoints/base-tiny.mlck decodes and is the -tiny test twins' model (no rung)", () => {
    const ck = load('public/checkpoints/base-tiny.mlck');
    expect(ck.model).toEqual(getPreset('magic-tiny').model);
    expect(rungOf(ck)).toBeNull();
  });
});

// The shipped bases share one shape: the rung's model, no AdamW state, the offline filter's result stored, and the
// `magic-lab sft --rung NAME` recipe they were trained with beside them.
for (const rung of ['small', 'medium'] as const) {
  describe(`the ${rung} rung’s shipped base`, () => {
    it('decodes, is the rung’s model, ships without AdamW state and with its offline-filter result', () => {
      const ck = load(rungBasePath(rung));
      expect(rungOf(ck)).toBe(rung);
      expect(ck.adam).toBeUndefined();
      expect(ck.params.every(Number.isFinite)).toBe(true);
      expect(ck.meta.kind).toBe('magic-lab-base');
      expect(ck.meta.offlineFilter).toBeDefined();
    });

    it('stores its weights in half floats, two bytes a parameter and a small header', () => {
      const ck = load(rungBasePath(rung));
      expect(ck.weightsDtype).toBe('f16');
      expect(statSync(rungBasePath(rung)).size).toBeLessThan(2 * ck.params.length + 64 * 1024);
    });

    it('its stored offline-filter result is for these (rounded) weights, so a run uses it instead of re-sampling', () => {
      const ck = load(rungBasePath(rung));
      const stored = ck.meta.offlineFilter as { key: string; correct: number[] };
      expect(JSON.parse(stored.key).weights).toBe(weightsChecksum(ck.params));
      const cfg = getPreset('magic', rung);
      expect(stored.key).toBe(offlineFilterKey(cfg, weightsChecksum(ck.params)));
      expect(stored.correct).toHaveLength(cfg.data.trainSize);
    });

    it(`\`magic-lab sft --rung ${rung}\` is the recipe it was trained with (base-${rung}.sft.json)`, () => {
      const shipped = JSON.parse(readFileSync(`public/checkpoints/base-${rung}.sft.json`, 'utf8'));
      const recipe = validateSftConfig({}, rungSftDefaults(rung));
      expect(validateSftConfig(shipped, rungSftDefaults(rung))).toEqual(recipe);
      // The checkpoint's config as recorded, fields added since (microBatchRows) at their defaults.
      expect(validateSftConfig(load(rungBasePath(rung)).meta.sft as Record<string, unknown>, rungSftDefaults(rung))).toEqual(recipe);
    });
  });
}

describe('the medium rung’s base is downloaded on demand', () => {
  it('its size is the progress bar’s total', () => {
    const file = rungBasePath('medium');
    const ck = load(file);
    expect(getRung('medium').delivery).toBe('on-demand');
    const size = statSync(file).size;
    expect(size).toBeLessThan(2 * ck.params.length + 64 * 1024);
    // The progress bar's total where a server compresses the download.
    expect(Math.abs(getRung('medium').baseBytes! - size)).toBeLessThan(size / 100);
  });
});
