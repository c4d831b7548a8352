import { VOCAB_SIZE } from '../../src/tasks';
import { describe, expect, it } from 'vitest';
import { initialEntropyState } from '../../src/rl/entropy';
import { ConfigError } from '../../src/model/config';
import {
  CONST_ENTROPY_LARGE,
  CONST_ENTROPY_SMALL,
  DEFAULT_RUN_CONFIG,
  configDiffPaths,
  diffOutside,
  fieldCovers,
  hasConfigPath,
  PRESETS,
  decodeConfigFromUrlParams,
  encodeConfigToUrlParams,
  getPreset,
  presetBase,
  presetNames,
  resolveStage,
  runConfigFromJSON,
  runConfigToJSON,
  validateRunConfig,
  type RunConfig,
} from '../../src/rl/config';

function configError(f: () => unknown): ConfigError {
  try {
    f();
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('expected a ConfigError');
}

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

describe('validateRunConfig', () => {
  it('an empty input gives the defaults as a fresh copy', () => {
    const c = validateRunConfig({});
    expect(c).toEqual(DEFAULT_RUN_CONFIG);
    expect(c).not.toBe(DEFAULT_RUN_CONFIG);
    c.loss.epsLow = 0.5;
    c.stages[0].maxResponseLength = 1;
    c.eval.temperatures.push(2);
    c.model.dModel = 8;
    expect(DEFAULT_RUN_CONFIG.loss.epsLow).toBe(0.2);
    expect(DEFAULT_RUN_CONFIG.stages[0].maxResponseLength).toBe(24);
    expect(DEFAULT_RUN_CONFIG.eval.temperatures).toEqual([1.0, 0.6]);
    expect(DEFAULT_RUN_CONFIG.model.dModel).toBe(64);
  });

  it('deep-merges a partial config without touching the input or the defaults', () => {
    const before = JSON.stringify(DEFAULT_RUN_CONFIG);
    const input = deepFreeze({ loss: { epsHigh: 0.28, entropy: { cMax: 0.1 } }, stages: [{ maxResponseLength: 10, convergence: { window: 5 } }] });
    const c = validateRunConfig(input);
    expect(c.loss.epsHigh).toBe(0.28);
    expect(c.loss.epsLow).toBe(0.2);
    expect(c.loss.entropy).toMatchObject({ cMax: 0.1, mode: 'adaptive' });
    // a lower c_max alone is valid: c_0 above it starts clamped
    expect(initialEntropyState(c.loss.entropy).c).toBe(Math.min(DEFAULT_RUN_CONFIG.loss.entropy.c0, 0.1));
    // stage lists replace whole; a partial stage / convergence merges over their templates
    expect(c.stages).toEqual([
      { maxResponseLength: 10, steps: null, convergence: { window: 5, minImprovement: 0.01, maxSteps: 400 }, batchPrompts: null, groupSize: null, temperature: null },
    ]);
    expect(JSON.stringify(DEFAULT_RUN_CONFIG)).toBe(before);
  });

  const bad: [string, unknown, string, RegExp][] = [
    ['negative epsLow', { loss: { epsLow: -1 } }, 'loss.epsLow', /^loss\.epsLow: must be in \[0, 1\), got -1$/],
    ['an emptied number field (the page reports NaN)', { update: { lr: NaN } }, 'update.lr', /got an empty field$/],
    ['unknown nested field', { loss: { epsilonLow: 0.2 } }, 'loss.epsilonLow', /unknown field/],
    ['unknown top-level field', { bogus: 1 }, 'bogus', /unknown field/],
    // Names of Object.prototype members are not fields (a plain `in` check would have taken them).
    ['Object.prototype member as a field', { constructor: 1 }, 'constructor', /unknown field/],
    ['Object.prototype member nested', { loss: { toString: 2 } }, 'loss.toString', /unknown field/],
    ['__proto__ as a field', JSON.parse('{"update": {"__proto__": {"lr": 1}}}'), 'update.__proto__', /unknown field/],
    ['section not an object', { loss: 5 }, 'loss', /must be an object, got 5/],
    ['model dModel not divisible by heads', { model: { dModel: 30 } }, 'model.dModel', /divisible by nHeads/],
    ['model zero layers', { model: { nLayers: 0 } }, 'model.nLayers', /between 1 and 64, got 0/],
    ['model unknown field', { model: { layers: 2 } }, 'model.layers', /unknown field/],
    ['group size 1', { rollout: { groupSize: 1 } }, 'rollout.groupSize', /integer in \[2, 1024\], got 1/],
    ['more mini-batches than one group fills', { update: { miniBatches: 9 } }, 'update.miniBatches', /at most the group size G of every stage.*stages\[0\] has 8, got 9/],
    ['stage G override below miniBatches', { update: { miniBatches: 4 }, stages: [{ maxResponseLength: 10, steps: 5 }, { maxResponseLength: 10, steps: 5, groupSize: 2 }] }, 'update.miniBatches', /stages\[1\] has 2, got 4/],
    ['negative stage β', { stages: [{ maxResponseLength: 10, steps: 5, klBeta: -1e-3 }] }, 'stages[0].klBeta', /\[0, 100\], got -0.001/],
    ['stage β not a number', { stages: [{ maxResponseLength: 10, steps: 5, klBeta: 'on' }] }, 'stages[0].klBeta', /got "on"/],
    ['bad entropy estimator', { loss: { entropy: { estimator: 'mean' } } }, 'loss.entropy.estimator', /"exact", "sampled"/],
    ['stage with neither steps nor convergence', { stages: [{ maxResponseLength: 24 }] }, 'stages[0]', /exactly one of "steps" and "convergence"/],
    ['stage with both', { stages: [{ maxResponseLength: 24, steps: 3, convergence: {} }] }, 'stages[0]', /exactly one/],
    ['response longer than the context', { stages: [{ maxResponseLength: 24, steps: 5 }, { maxResponseLength: 80, steps: 5 }] }, 'stages[1].maxResponseLength', /\[1, 63\], got 80/],
    ['prompt + response longer than the context', { stages: [{ maxResponseLength: 60, steps: 5 }] }, 'stages[0].maxResponseLength', /60 plus the longest prompt \(\d+ tokens at difficulty 2\) exceeds model.contextLength 64/],
    ['vocabulary other than the tokenizer', { model: { vocabSize: 32 } }, 'model.vocabSize', /must be 24/],
    ['difficulty beyond what every family supports', { data: { difficulty: 6 } }, 'data.difficulty', /\[1, 5\], got 6/],
    ['missing maxResponseLength', { stages: [{ steps: 5 }] }, 'stages[0].maxResponseLength', /got nothing/],
    ['maxSteps below 2W', { stages: [{ maxResponseLength: 10, convergence: { window: 5, maxSteps: 6 } }] }, 'stages[0].convergence.maxSteps', /\[10, /],
    ['empty stage list', { stages: [] }, 'stages', /non-empty/],
    ['bad entropy mode', { loss: { entropy: { mode: 'sometimes' } } }, 'loss.entropy.mode', /"adaptive", "constant", "off"/],
    ['negative c0', { loss: { entropy: { c0: -0.02 } } }, 'loss.entropy.c0', /\[0, 10\], got -0.02/],
    ['cMax below cMin', { loss: { entropy: { cMin: 0.1, cMax: 0.05, c0: 0.1 } } }, 'loss.entropy.cMax', /got 0.05/],
    ['bad kl type', { loss: { kl: { type: 'k2' } } }, 'loss.kl.type', /"k1", "k3", "low_var_kl"/],
    ['dual clip ≤ 1', { loss: { dualClip: 1 } }, 'loss.dualClip', /\(1, 100\]/],
    ['zero learning rate', { update: { lr: 0 } }, 'update.lr', /\(0, 1\], got 0/],
    ['string where a number belongs', { update: { beta1: '0.9' } }, 'update.beta1', /finite number, got "0.9"/],
    ['duplicate family', { data: { families: ['addition', 'addition'] } }, 'data.families[1]', /duplicate/],
    ['unknown family', { data: { families: ['calculus'] } }, 'data.families[0]', /"addition", "countdown", "arith"/],
    ['fractional seed', { seed: 1.5 }, 'seed', /integer/],
    ['no eval temperatures', { eval: { temperatures: [] } }, 'eval.temperatures', /non-empty/],
    ['more test problems than the test set', { eval: { testProblems: 1000 } }, 'eval.testProblems', /\[1, 256\], got 1000/],
    ['zero rollout temperature', { rollout: { temperature: 0 } }, 'rollout.temperature', /\[0\.01, 10\]/],
    ['bad rejection mode', { rejection: { mode: 'refil' } }, 'rejection.mode', /"drop", "refill", "off"/],
    ['non-object input', 42, 'config', /must be an object/],
    ['unknown lr schedule', { update: { lrSchedule: { mode: 'linear' } } }, 'update.lrSchedule.mode', /"constant", "cosine"/],
    ['fractional warmup', { update: { lrSchedule: { warmupSteps: 2.5 } } }, 'update.lrSchedule.warmupSteps', /integer/],
    ['min ratio above 1', { update: { lrSchedule: { minRatio: 1.5 } } }, 'update.lrSchedule.minRatio', /\[0, 1\], got 1.5/],
    [
      'cosine over a stage that ends by convergence',
      { update: { lrSchedule: { mode: 'cosine' } }, stages: [{ maxResponseLength: 10, steps: 5 }, { maxResponseLength: 20, convergence: {} }] },
      'update.lrSchedule.mode',
      /stages\[1\] ends by convergence/,
    ],
  ];
  it.each(bad)('%s → one ConfigError naming the field', (_name, input, field, message) => {
    const before = JSON.stringify(DEFAULT_RUN_CONFIG);
    const e = configError(() => validateRunConfig(input));
    expect(e.field).toBe(field);
    expect(e.message).toMatch(message);
    expect(e.message.startsWith(`${field}: `)).toBe(true);
    expect(JSON.stringify(DEFAULT_RUN_CONFIG)).toBe(before);
  });

  it('accepts nullable knobs set or unset', () => {
    expect(validateRunConfig({ loss: { dualClip: 3 }, update: { gradClip: null } })).toMatchObject({ loss: { dualClip: 3 }, update: { gradClip: null } });
  });

  it('resolveStage fills stage fields from the rollout and loss defaults', () => {
    const c = validateRunConfig({ stages: [{ maxResponseLength: 10, steps: 2, temperature: 0.6 }, { maxResponseLength: 20, steps: 2, groupSize: 16, klBeta: 1e-3 }] });
    expect(resolveStage(c, 0)).toMatchObject({ temperature: 0.6, groupSize: 8, batchPrompts: 16, topP: 1, klBeta: 0 });
    expect(resolveStage(c, 1)).toMatchObject({ temperature: 1, groupSize: 16, klBeta: 1e-3 });
    expect(resolveStage(validateRunConfig({ loss: { kl: { beta: 2e-3 } } }), 1).klBeta).toBe(2e-3);
    expect(() => resolveStage(c, 2)).toThrow(/no stage 2/);
  });

  it("a stage's β is optional: absent or null means loss.kl.beta and is left out of the validated config", () => {
    const c = validateRunConfig({ stages: [{ maxResponseLength: 10, steps: 2, klBeta: null }, { maxResponseLength: 10, steps: 2, klBeta: 0 }] });
    expect('klBeta' in c.stages[0]).toBe(false);
    expect(c.stages[1].klBeta).toBe(0);
    expect(runConfigFromJSON(runConfigToJSON(c))).toEqual(c);
    expect(JSON.stringify(validateRunConfig({}).stages)).not.toMatch(/klBeta/);
  });

  it('mini-batches need not divide D_R (responses are split, not groups); the entropy estimator defaults to exact', () => {
    expect(validateRunConfig({ update: { miniBatches: 3 } }).update.miniBatches).toBe(3);
    expect(DEFAULT_RUN_CONFIG.loss.entropy.estimator).toBe('exact');
    expect(validateRunConfig({ loss: { entropy: { estimator: 'sampled' } } }).loss.entropy.estimator).toBe('sampled');
  });
});

const ABLATIONS = [
  'magic', 'grpo', 'temp-0.6', 'off-policy-nsgd4', 'kl-on', 'adv-mask-before', 'adv-mask-after', 'no-rejection', 'single-stage',
  'entropy-off', 'const-entropy-small', 'const-entropy-large', 'clip-high-0.25', 'clip-high-0.28',
];

const diffPaths = configDiffPaths;

describe('presets', () => {
  it('has every recipe and ablation with a -tiny twin', () => {
    expect(presetNames().sort()).toEqual([...ABLATIONS, ...ABLATIONS.map((n) => `${n}-tiny`)].sort());
    expect(presetNames()[0]).toBe('magic');
  });

  it.each(presetNames())('%s validates and survives a JSON round trip', (name) => {
    const p = PRESETS[name];
    expect(validateRunConfig(p)).toEqual(p);
    expect(runConfigFromJSON(runConfigToJSON(p))).toEqual(p);
    expect(p.model.vocabSize).toBe(VOCAB_SIZE);
  });

  it('magic is the default config', () => {
    expect(PRESETS.magic).toEqual(DEFAULT_RUN_CONFIG);
  });

  it('diffPaths lists changed leaves, per array element, and whole arrays whose length changed', () => {
    expect(diffPaths({ a: { b: 1, c: [1, 2] } }, { a: { b: 1, c: [1, 3] } })).toEqual(['a.c[1]']);
    expect(diffPaths({ s: [{ x: 1 }] }, { s: [{ x: 1, y: 2 }] })).toEqual(['s[0].y']);
    expect(diffPaths({ s: [1] }, { s: [1, 2] })).toEqual(['s']);
    expect(diffPaths(PRESETS.magic, getPreset('magic'))).toEqual([]);
  });

  it('a declared field covers its sub-paths (diffOutside), and hasConfigPath knows the config\'s fields', () => {
    expect(fieldCovers('loss.entropy', 'loss.entropy.mode')).toBe(true);
    expect(fieldCovers('stages', 'stages[1].klBeta')).toBe(true);
    expect(fieldCovers('loss.entropy', 'loss.entropyX')).toBe(false);
    expect(fieldCovers('loss.entropy.mode', 'loss.entropy')).toBe(false);
    expect(diffOutside(PRESETS.magic, PRESETS['entropy-off'], ['loss.entropy'])).toEqual([]);
    expect(diffOutside(PRESETS.magic, PRESETS.grpo, ['loss.entropy'])).toEqual(['data.offlineFilter.enabled', 'data.onlineFilter', 'loss.aggregation', 'loss.kl.beta', 'rejection.mode']);
    expect(hasConfigPath(PRESETS.magic, 'loss.entropy')).toBe(true);
    expect(hasConfigPath(PRESETS.magic, 'stages[1].maxResponseLength')).toBe(true);
    expect(hasConfigPath(PRESETS.magic, 'loss.entropi')).toBe(false);
    expect(hasConfigPath(PRESETS.magic, 'stages[9]')).toBe(false);
    expect(hasConfigPath(PRESETS.magic, '')).toBe(false);
  });

  // Each ablation differs from its base preset in exactly the fields its finding is about
  // (the -tiny twin in the same fields, unless a fourth entry lists the tiny's own).
  const BASE_AND_FIELDS: [string, string, string[], string[]?][] = [
    // Vanilla GRPO differs from MAGIC in several rules at once; the tiny base has no offline filter to switch off.
    [
      'grpo', 'magic',
      ['data.offlineFilter.enabled', 'data.onlineFilter', 'loss.aggregation', 'loss.entropy.mode', 'loss.kl.beta', 'rejection.mode'],
      ['data.onlineFilter', 'loss.aggregation', 'loss.entropy.mode', 'loss.kl.beta', 'rejection.mode'],
    ],
    ['temp-0.6', 'magic', ['rollout.temperature']],
    ['off-policy-nsgd4', 'magic', ['update.miniBatches']],
    ['kl-on', 'magic', ['stages[1].klBeta']],
    ['adv-mask-before', 'magic', ['truncation.mode']],
    ['adv-mask-after', 'magic', ['truncation.mode']],
    ['no-rejection', 'magic', ['rejection.mode']],
    ['single-stage', 'magic', ['stages']],
    // The no-control twin: the entropy term off, nothing else.
    ['entropy-off', 'magic', ['loss.entropy.mode']],
    ['const-entropy-small', 'magic', ['loss.entropy.constantCoef', 'loss.entropy.mode']],
    ['const-entropy-large', 'magic', ['loss.entropy.constantCoef', 'loss.entropy.mode']],
    ['clip-high-0.25', 'off-policy-nsgd4', ['loss.epsHigh']],
    ['clip-high-0.28', 'off-policy-nsgd4', ['loss.epsHigh']],
  ];
  it('the table covers every preset but magic', () => {
    expect(BASE_AND_FIELDS.map(([n]) => n).sort()).toEqual(ABLATIONS.filter((n) => n !== 'magic').sort());
  });
  it.each(BASE_AND_FIELDS.flatMap(([name, base, fields, tiny]) => [[name, base, fields], [`${name}-tiny`, `${base}-tiny`, tiny ?? fields]] as [string, string, string[]][]))(
    '%s differs from %s exactly in %j',
    (name, base, fields) => {
      expect(presetBase(name)).toBe(base);
      expect(diffPaths(PRESETS[base], PRESETS[name]).sort()).toEqual([...fields].sort());
    },
  );

  it('ablation values: N_SGD 4, β 1e-3 in the later stage only, the constant α pair, ε_high 0.25 / 0.28 off-policy', () => {
    expect(presetBase('magic')).toBeNull();
    expect(presetBase('magic-tiny')).toBeNull();
    expect(() => presetBase('nope')).toThrow(/unknown preset/);
    for (const t of ['', '-tiny']) {
      const k = PRESETS[`kl-on${t}`];
      expect(k.loss.kl.beta).toBe(0);
      expect(k.stages.map((_, i) => resolveStage(k, i).klBeta)).toEqual([0, 1e-3]);
      expect(PRESETS[`off-policy-nsgd4${t}`].update).toMatchObject({ miniBatches: 4, reuseEpochs: 1 });
      for (const [n, eh] of [['clip-high-0.25', 0.25], ['clip-high-0.28', 0.28]] as const) {
        expect(PRESETS[`${n}${t}`].loss.epsHigh).toBe(eh);
        expect(PRESETS[`${n}${t}`].update.miniBatches).toBe(4);
      }
      const small = PRESETS[`const-entropy-small${t}`].loss.entropy;
      const large = PRESETS[`const-entropy-large${t}`].loss.entropy;
      expect([small.mode, large.mode]).toEqual(['constant', 'constant']);
      // The measured pair (docs/presets.md): well below and well above the α that levels off at the target (≈ 0.1).
      expect([small.constantCoef, large.constantCoef]).toEqual([CONST_ENTROPY_SMALL, CONST_ENTROPY_LARGE]);
      expect(small.constantCoef * 5).toBeLessThanOrEqual(large.constantCoef);
    }
  });

  it('recipe values: MAGIC and vanilla GRPO', () => {
    const m = PRESETS.magic;
    expect([m.loss.epsLow, m.loss.epsHigh, m.loss.dualClip, m.loss.aggregation, m.loss.kl.beta]).toEqual([0.2, 0.2, null, 'token-mean', 0]);
    expect([m.rollout.temperature, m.update.miniBatches, m.update.reuseEpochs, m.rejection.mode, m.truncation.mode]).toEqual([1, 1, 1, 'drop', 'none']);
    expect(m.stages.map((s) => [s.maxResponseLength, s.steps])).toEqual([[24, 200], [40, 200]]);
    expect(m.model).toMatchObject({ vocabSize: VOCAB_SIZE, contextLength: 64, dModel: 64, nLayers: 2, nHeads: 4 });
    const g = PRESETS.grpo;
    expect([g.loss.aggregation, g.loss.kl.beta, g.loss.kl.type, g.loss.entropy.mode, g.rejection.mode, g.data.onlineFilter, g.data.offlineFilter.enabled]).toEqual([
      'seq-mean-token-mean', 1e-3, 'k3', 'off', 'off', false, false,
    ]);
    expect(PRESETS['single-stage'].stages).toEqual([{ maxResponseLength: 40, steps: 400, convergence: null, batchPrompts: null, groupSize: null, temperature: null }]);
  });

  it('tiny variants: tiny model, 2 prompts × 4, two stages of 2 steps', () => {
    for (const name of ABLATIONS) {
      const t = PRESETS[`${name}-tiny`];
      expect(t.model).toMatchObject({ vocabSize: VOCAB_SIZE, contextLength: 64, dModel: 16, nLayers: 1, nHeads: 2 });
      expect(t.rollout.groupSize).toBe(4);
      expect(t.rollout.batchPrompts).toBe(2);
      if (name === 'single-stage') expect(t.stages.map((s) => [s.maxResponseLength, s.steps])).toEqual([[24, 4]]);
      else expect(t.stages.map((s) => [s.maxResponseLength, s.steps])).toEqual([[16, 2], [24, 2]]);
      expect(t.data.trainSize).toBeLessThanOrEqual(16);
    }
    expect(PRESETS['clip-high-0.28-tiny'].loss.epsHigh).toBe(0.28);
    expect(PRESETS['off-policy-nsgd4-tiny'].update.miniBatches).toBe(4);
    // Ablations do not change the data: every full-size preset that filters shares magic's offline-filter inputs.
    for (const name of ABLATIONS) {
      if (!PRESETS[name].data.offlineFilter.enabled) continue;
      expect(PRESETS[name].data, name).toEqual(PRESETS.magic.data);
      expect(PRESETS[name].rollout.batchPrompts * PRESETS[name].rollout.groupSize, name).toBe(128);
    }
  });

  it('PRESETS are frozen; getPreset returns a mutable copy; unknown names list the valid ones', () => {
    expect(() => {
      (PRESETS.magic as RunConfig).loss.epsLow = 0.3;
    }).toThrow(TypeError);
    const p = getPreset('magic');
    p.loss.epsLow = 0.3;
    expect(PRESETS.magic.loss.epsLow).toBe(0.2);
    const e = configError(() => getPreset('magik'));
    expect(e.field).toBe('preset');
    expect(e.message).toMatch(/unknown preset "magik" \(valid: magic, magic-tiny, grpo/);
  });
});

describe('URL encoding', () => {
  it('a preset encodes to its name alone', () => {
    expect(encodeConfigToUrlParams(getPreset('kl-on'), 'kl-on').toString()).toBe('preset=kl-on');
  });

  it('round-trips a modified config through a diff against its preset', () => {
    const c = getPreset('magic');
    c.loss.epsHigh = 0.265;
    c.loss.aggregation = 'seq-mean-token-mean';
    c.loss.dualClip = 3;
    c.update.gradClip = null;
    c.eval.temperatures = [0.8];
    c.stages[1] = { ...c.stages[1], steps: null, convergence: { window: 10, minImprovement: 0.02, maxSteps: 200 } };
    const params = encodeConfigToUrlParams(c, 'magic');
    expect(params.get('loss.aggregation')).toBe('seq-mean-token-mean');
    expect(params.get('loss.epsHigh')).toBe('0.265');
    expect(params.get('update.gradClip')).toBe('null');
    expect(params.get('loss.epsLow')).toBeNull();
    const back = decodeConfigFromUrlParams(params.toString());
    expect(back.preset).toBe('magic');
    expect(back.config).toEqual(c);
  });

  it('round-trips against a tiny preset', () => {
    const c = getPreset('grpo-tiny');
    c.seed = 99;
    c.model.dModel = 8;
    const back = decodeConfigFromUrlParams(encodeConfigToUrlParams(c, 'grpo-tiny'));
    expect(back).toEqual({ preset: 'grpo-tiny', rung: 'tiny', config: c });
  });

  it('validates on decode and rejects unknown parameters unless told to ignore them', () => {
    expect(configError(() => decodeConfigFromUrlParams('preset=magic&loss.epsLow=-1')).field).toBe('loss.epsLow');
    expect(configError(() => decodeConfigFromUrlParams('loss.epsLow=abc')).message).toMatch(/got "abc"/);
    expect(configError(() => decodeConfigFromUrlParams('preset=magic&tab=charts')).field).toBe('tab');
    expect(decodeConfigFromUrlParams('preset=magic&tab=charts', ['tab']).config).toEqual(PRESETS.magic);
    expect(configError(() => decodeConfigFromUrlParams('preset=nope')).field).toBe('preset');
    expect(configError(() => decodeConfigFromUrlParams('seed=1&seed=2')).message).toMatch(/more than once/);
    expect(configError(() => decodeConfigFromUrlParams('loss=1&loss.epsLow=0.1')).field).toBe('loss');
    expect(decodeConfigFromUrlParams('').preset).toBe('magic');
  });

  it('rejects a JSON file that is not JSON', () => {
    expect(configError(() => runConfigFromJSON('{')).field).toBe('config');
  });
});
