import { describe, expect, it } from 'vitest';
import {
  configDiffPaths,
  decodeConfigFromUrlParams,
  DEFAULT_RUN_CONFIG,
  encodeConfigToUrlParams,
  getPreset,
  getRung,
  modelParameterCount,
  presetNames,
  RUNG_NAMES,
  rungBaseConfig,
  rungOf,
  validateRunConfig,
} from '../../src/rl/config';
import { ConfigError } from '../../src/model/config';

describe('model ladder rungs', () => {
  it('tiny is today’s policy: the MAGIC defaults unchanged, ~106K parameters', () => {
    expect(rungBaseConfig('tiny')).toEqual(DEFAULT_RUN_CONFIG);
    expect(getPreset('magic', 'tiny')).toEqual(getPreset('magic'));
    const n = modelParameterCount(DEFAULT_RUN_CONFIG.model);
    expect(n).toBeGreaterThan(100_000);
    expect(n).toBeLessThan(110_000);
  });

  it('small is 0.5–1M parameters at context 128–256, medium 3–5M at 256–512', () => {
    const small = rungBaseConfig('small').model;
    const medium = rungBaseConfig('medium').model;
    expect(modelParameterCount(small)).toBeGreaterThanOrEqual(500_000);
    expect(modelParameterCount(small)).toBeLessThanOrEqual(1_000_000);
    expect(small.contextLength).toBeGreaterThanOrEqual(128);
    expect(small.contextLength).toBeLessThanOrEqual(256);
    expect(modelParameterCount(medium)).toBeGreaterThanOrEqual(3_000_000);
    expect(modelParameterCount(medium)).toBeLessThanOrEqual(5_000_000);
    expect(medium.contextLength).toBeGreaterThanOrEqual(256);
    expect(medium.contextLength).toBeLessThanOrEqual(512);
    // The vocabulary is the tokenizer's at every rung.
    expect(small.vocabSize).toBe(DEFAULT_RUN_CONFIG.model.vocabSize);
  });

  it('every preset exists at every rung and keeps its one change against its base there', () => {
    for (const rung of RUNG_NAMES) {
      for (const name of presetNames().filter((n) => !n.endsWith('-tiny'))) {
        const cfg = getPreset(name, rung);
        expect(rungOf(cfg)).toBe(rung);
      }
      const magic = getPreset('magic', rung);
      expect(configDiffPaths(magic, getPreset('entropy-off', rung))).toEqual(['loss.entropy.mode']);
      expect(configDiffPaths(rungBaseConfig(rung), magic)).toEqual([]);
    }
  });

  it('small: the no-control twin is magic with the entropy term off and nothing else, and its controller can act within ~20 steps', () => {
    const magic = getPreset('magic', 'small');
    expect(configDiffPaths(magic, getPreset('entropy-off', 'small'))).toEqual(['loss.entropy.mode']);
    // The small base starts at the target, so c must reach ~0.3 (what held entropy in round 20) within 15 steps below it.
    const e = magic.loss.entropy;
    expect(e.mode).toBe('adaptive');
    expect(Math.min(e.cMax, e.c0 + 15 * e.delta)).toBeGreaterThanOrEqual(0.3);
    // Its own learning rate (tuned on seeds 201–203), not the tiny rung's.
    expect(magic.update.lr).toBeLessThan(rungBaseConfig('tiny').update.lr);
  });

  it("medium: takes the small rung's RL fields (lr, entropy controller), not the tiny rung's, whose c₀ = 1 wrecked its base", () => {
    const small = getPreset('magic', 'small');
    const medium = getPreset('magic', 'medium');
    expect(medium.update.lr).toBe(small.update.lr);
    expect(medium.loss.entropy).toEqual(small.loss.entropy);
    expect(medium.loss.entropy.c0).toBe(0);
    expect(configDiffPaths(medium, getPreset('entropy-off', 'medium'))).toEqual(['loss.entropy.mode']);
  });

  it('presets at a rung are fresh copies', () => {
    const a = getPreset('magic', 'small');
    a.model.dModel = 8;
    expect(getPreset('magic', 'small').model.dModel).toBe(128);
  });

  it('an unknown rung is one ConfigError naming the field and the valid names', () => {
    expect(() => getRung('huge')).toThrow(ConfigError);
    expect(() => getRung('huge')).toThrow(/^rung: unknown rung "huge" \(valid: tiny, small, medium\)/);
    expect(() => getPreset('magic', 'huge')).toThrow(/rung/);
    expect(() => getPreset('magic-tiny', 'small')).toThrow(/test twins exist at the tiny rung only/);
  });

  it('rungOf names a hand-made shape null', () => {
    expect(rungOf({ model: { ...DEFAULT_RUN_CONFIG.model, dModel: 96 } })).toBeNull();
  });

  it('the URL carries the rung; links without one stay on tiny', () => {
    const cfg = getPreset('entropy-off', 'small');
    cfg.seed = 7;
    const params = encodeConfigToUrlParams(cfg, 'entropy-off');
    expect(params.get('rung')).toBe('small');
    expect(params.toString()).toBe('preset=entropy-off&rung=small&seed=7');
    const back = decodeConfigFromUrlParams(params.toString());
    expect(back.rung).toBe('small');
    expect(back.preset).toBe('entropy-off');
    expect(back.config).toEqual(cfg);
    const old = decodeConfigFromUrlParams('preset=magic&seed=3');
    expect(old.rung).toBe('tiny');
    expect(old.config).toEqual({ ...getPreset('magic'), seed: 3 });
    expect(encodeConfigToUrlParams(getPreset('magic'), 'magic').toString()).toBe('preset=magic');
    expect(() => decodeConfigFromUrlParams('preset=magic&rung=big')).toThrow(/^rung: unknown rung/);
    expect(() => decodeConfigFromUrlParams('rung=small&rung=tiny')).toThrow(/^rung: given more than once/);
  });

  it('each rung names a base checkpoint file under checkpoints/', () => {
    expect(getRung('tiny').baseFile).toBe('checkpoints/base.mlck');
    for (const rung of RUNG_NAMES) expect(getRung(rung).baseFile).toMatch(/^checkpoints\/base(-[a-z]+)?\.mlck$/);
    expect(getRung('medium').delivery).toBe('on-demand');
  });
});

describe('difficulty bound per family', () => {
  it('the long-chain families reach level 6; a family without it is named in the error', () => {
    const base = getPreset('magic', 'small');
    expect(() => validateRunConfig({ data: { families: ['multiply', 'sort'], difficulty: 6 } }, base)).not.toThrow();
    expect(() => validateRunConfig({ data: { families: ['multiply', 'countdown'], difficulty: 6 } }, base)).toThrow(/^data\.difficulty: .*\[1, 5\], got 6/);
    expect(() => validateRunConfig({ data: { families: ['multiply'], difficulty: 7 } }, base)).toThrow(/^data\.difficulty: .*\[1, 6\], got 7/);
  });
});
