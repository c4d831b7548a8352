/** Checkpoints made before the model ladder still load, and belong where the ladder says they do. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../src/model/checkpoint';
import { getPreset, getRung, rungBaseConfig, rungOf } from '../../src/rl/config';
import { DEFAULT_BASE, rungBasePath } from '../../src/run/rung-base';

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
