/**
 * The presets: the MAGIC recipe, vanilla GRPO and one per paper ablation, each with a -tiny twin
 * for fast tests; every one is its base preset plus the change its finding is about.
 */
import { ConfigError } from '../../model/config';
import { DEFAULT_RUN_CONFIG, TINY_OVERLAY, type RunConfig, type RunConfigInput } from './schema';
import { validateRunConfig } from './validate';
import { clone, deepFreeze } from './values';

/** α of const-entropy-small / -large (why these values: the comment in PRESET_DEFS and docs/presets.md). */
export const CONST_ENTROPY_SMALL = 0.02;
export const CONST_ENTROPY_LARGE = 0.5;

const TINY_BASE = validateRunConfig(TINY_OVERLAY, DEFAULT_RUN_CONFIG);

/**
 * A preset = its base preset (null: the MAGIC defaults) + the change its finding is about, and
 * nothing else (tests/rl/config.test.ts diffs every preset against its base, -tiny twins too).
 * `diff` gets the validated base (full-size or its -tiny twin) and returns the change as a partial
 * config merged over it.
 */
interface PresetDef {
  base: string | null;
  diff: (base: RunConfig) => RunConfigInput;
}

const PRESET_DEFS: Record<string, PresetDef> = {
  // Paper's final recipe.
  magic: { base: null, diff: () => ({}) },
  // Vanilla GRPO: per-sequence mean, k3 KL β = 1e-3 (π_ref = the initial policy), no filtering, no entropy term, no rejection.
  grpo: {
    base: 'magic',
    diff: () => ({
      data: { offlineFilter: { enabled: false }, onlineFilter: false },
      loss: { aggregation: 'seq-mean-token-mean', kl: { beta: 1e-3, type: 'k3' }, entropy: { mode: 'off' } },
      rejection: { mode: 'off' },
    }),
  },
  // Finding 2: τ = 0.6 collapses entropy, τ = 1.0 wins later.
  'temp-0.6': { base: 'magic', diff: () => ({ rollout: { temperature: 0.6 } }) },
  // Finding 3: 4 mini-batches per rollout batch → exactly N_SGD = 4 optimizer steps per RL step
  // (D_T = a quarter of the kept responses, see update.miniBatches), off-policy after the first.
  'off-policy-nsgd4': { base: 'magic', diff: () => ({ update: { miniBatches: 4 } }) },
  // Finding 5: KL (k3, β = 1e-3) in the later stage only, where the paper saw it stall gains;
  // π_ref = the policy at that stage's start (StageConfig.klBeta).
  'kl-on': { base: 'magic', diff: (b) => ({ stages: b.stages.map((s, i) => (i === 0 ? s : { ...s, klBeta: 1e-3 })) }) },
  'adv-mask-before': { base: 'magic', diff: () => ({ truncation: { mode: 'adv-mask-before' } }) },
  'adv-mask-after': { base: 'magic', diff: () => ({ truncation: { mode: 'adv-mask-after' } }) },
  'no-rejection': { base: 'magic', diff: () => ({ rejection: { mode: 'off' } }) },
  // Finding 6: one stage at the final length for the same total steps.
  'single-stage': {
    base: 'magic',
    diff: (b) => ({ stages: [{ maxResponseLength: b.stages[b.stages.length - 1].maxResponseLength, steps: b.stages.reduce((a, s) => a + (s.steps ?? 0), 0) }] }),
  },
  // Finding 4: a constant α instead of adaptive control; small still collapses, large explodes.
  // MAGIC's controller holds the target with c ≈ 0.5–0.9 applied on ~3 steps in 10 (BENCHMARKS.md).
  // Checked with runs from the shipped base (seed 1; figures in docs/presets.md): a constant 0.1
  // levels off near the target; 0.5 (the lowest c used while holding, on every step) explodes
  // (0.26 → 0.85 nats in 50 steps) and 2 faster; 0.02 falls below the target in stage 1 (0.143 over
  // steps 76–100) but the longer stage 2 raised it again (mean 0.175) in that one 200-step run.
  // The no-control twin: magic with the entropy term off and nothing else (same data, filter,
  // rejection, τ, stages, lr), so magic − entropy-off measures the controller alone (unlike grpo).
  'entropy-off': { base: 'magic', diff: () => ({ loss: { entropy: { mode: 'off' } } }) },
  'const-entropy-small': { base: 'magic', diff: () => ({ loss: { entropy: { mode: 'constant', constantCoef: CONST_ENTROPY_SMALL } } }) },
  'const-entropy-large': { base: 'magic', diff: () => ({ loss: { entropy: { mode: 'constant', constantCoef: CONST_ENTROPY_LARGE } } }) },
  // Finding 7: clip-higher matters off-policy (on-policy ρ ≡ 1 and the clip never acts), so both
  // are off-policy-nsgd4 (ε_high 0.2) with a moderate (0.25) and DAPO's (0.28) ε_high.
  'clip-high-0.25': { base: 'off-policy-nsgd4', diff: () => ({ loss: { epsHigh: 0.25 } }) },
  'clip-high-0.28': { base: 'off-policy-nsgd4', diff: () => ({ loss: { epsHigh: 0.28 } }) },
};

function buildPresets(): Record<string, RunConfig> {
  const out: Record<string, RunConfig> = {};
  // Definition order puts every base before the presets built on it.
  for (const [name, def] of Object.entries(PRESET_DEFS)) {
    const full = def.base === null ? DEFAULT_RUN_CONFIG : out[def.base];
    const tiny = def.base === null ? TINY_BASE : out[`${def.base}-tiny`];
    out[name] = deepFreeze(validateRunConfig(def.diff(full), full));
    out[`${name}-tiny`] = deepFreeze(validateRunConfig(def.diff(tiny), tiny));
  }
  return out;
}

/** Every preset, validated and deep-frozen (use getPreset for a mutable copy). */
export const PRESETS: Readonly<Record<string, RunConfig>> = Object.freeze(buildPresets());

export const DEFAULT_PRESET = 'magic';

export function presetNames(): string[] {
  return Object.keys(PRESETS);
}

/** The preset `name` is built on (its -tiny twin for a -tiny preset), or null for magic / magic-tiny. */
export function presetBase(name: string): string | null {
  const tiny = name.endsWith('-tiny');
  const def = Object.prototype.hasOwnProperty.call(PRESET_DEFS, tiny ? name.slice(0, -5) : name) ? PRESET_DEFS[tiny ? name.slice(0, -5) : name] : undefined;
  if (def === undefined) throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)} (valid: ${presetNames().join(', ')})`);
  return def.base === null ? null : tiny ? `${def.base}-tiny` : def.base;
}

/** A fresh, mutable copy of a preset; throws a ConfigError listing the valid names. */
export function getPreset(name: string): RunConfig {
  const p = Object.prototype.hasOwnProperty.call(PRESETS, name) ? PRESETS[name] : undefined;
  if (p === undefined) throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)} (valid: ${presetNames().join(', ')})`);
  return clone(p);
}

