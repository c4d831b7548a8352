/** Checkpoints made before the model ladder still load, and belong where the ladder says they do. */
import { readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../src/model/checkpoint';
import { getPreset, getRung, rungBaseConfig, rungOf } from '../../src/rl/config';
import { DEFAULT_BASE, rungBasePath } from '../../src/run/rung-base';
import { rungSftDefaults, validateSftConfig } from '../../src/rl/sft';

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

describe('the small rung’s shipped base', () => {
  it('decodes, is the small rung’s model, ships without AdamW state and with its offline-filter result', () => {
    const ck = load(rungBasePath('small'));
    expect(rungOf(ck)).toBe('small');
    expect(ck.adam).toBeUndefined();
    expect(ck.params.every(Number.isFinite)).toBe(true);
    expect(ck.meta.kind).toBe('magic-lab-base');
    expect(ck.meta.offlineFilter).toBeDefined();
  });

  it('`magic-lab sft --rung small` is the recipe it was trained with (base-small.sft.json)', () => {
    const shipped = JSON.parse(readFileSync('public/checkpoints/base-small.sft.json', 'utf8'));
    expect(validateSftConfig({}, rungSftDefaults('small'))).toEqual(validateSftConfig(shipped, rungSftDefaults('small')));
    // The checkpoint's config as recorded, fields added since (microBatchRows) at their defaults.
    expect(validateSftConfig(load(rungBasePath('small')).meta.sft as Record<string, unknown>, rungSftDefaults('small'))).toEqual(validateSftConfig(shipped, rungSftDefaults('small')));
  });
});

describe('the medium rung’s shipped base (downloaded on demand)', () => {
  it('decodes, is the medium rung’s model in half floats, ships without AdamW state and with its offline-filter result', () => {
    const file = rungBasePath('medium');
    const ck = load(file);
    expect(getRung('medium').delivery).toBe('on-demand');
    expect(rungOf(ck)).toBe('medium');
    expect(ck.adam).toBeUndefined();
    expect(ck.weightsDtype).toBe('f16');
    expect(ck.params.every(Number.isFinite)).toBe(true);
    expect(ck.meta.kind).toBe('magic-lab-base');
    expect(ck.meta.offlineFilter).toBeDefined();
    // Two bytes a parameter and a small header: what the page downloads.
    const size = statSync(file).size;
    expect(size).toBeLessThan(2 * ck.params.length + 64 * 1024);
    // The progress bar's total where a server compresses the download.
    expect(Math.abs(getRung('medium').baseBytes! - size)).toBeLessThan(size / 100);
  });

  it('`magic-lab sft --rung medium` is the recipe it was trained with (base-medium.sft.json)', () => {
    const shipped = JSON.parse(readFileSync('public/checkpoints/base-medium.sft.json', 'utf8'));
    expect(validateSftConfig({}, rungSftDefaults('medium'))).toEqual(validateSftConfig(shipped, rungSftDefaults('medium')));
    expect(validateSftConfig(load(rungBasePath('medium')).meta.sft as Record<string, unknown>, rungSftDefaults('medium'))).toEqual(validateSftConfig(shipped, rungSftDefaults('medium')));
  });
});
