/**
 * The presets: the MAGIC recipe, vanilla GRPO and one per paper ablation, each with a -tiny twin
 * for fast tests; every one is its base preset plus the change its finding is about.
 */
import { ConfigError } from '../../model/config';
import { DEFAULT_RUN_CONFIG, TINY_OVERLAY, type RunConfig, type RunConfigInput } from './schema';
import { validateRunConfig } from './validate';
import { DEFAULT_RUNG, getRung, rungBaseConfig, type RungName } from './rungs';
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

function buildPresets(root: RunConfig, withTiny: boolean): Record<string, RunConfig> {
  const out: Record<string, RunConfig> = {};
  // Definition order puts every base before the presets built on it.
  for (const [name, def] of Object.entries(PRESET_DEFS)) {
    const full = def.base === null ? root : out[def.base];
    out[name] = deepFreeze(validateRunConfig(def.diff(full), full));
    if (!withTiny) continue;
    const tiny = def.base === null ? TINY_BASE : out[`${def.base}-tiny`];
    out[`${name}-tiny`] = deepFreeze(validateRunConfig(def.diff(tiny), tiny));
  }
  return out;
}

/** Every preset at the default (tiny) rung, validated and deep-frozen (use getPreset for a mutable copy). */
export const PRESETS: Readonly<Record<string, RunConfig>> = Object.freeze(buildPresets(DEFAULT_RUN_CONFIG, true));

/** The presets at the other rungs, built on first use (the -tiny test twins exist at the default rung only). */
const RUNG_PRESETS = new Map<RungName, Readonly<Record<string, RunConfig>>>([[DEFAULT_RUNG, PRESETS]]);

function presetsAt(rung: string): Readonly<Record<string, RunConfig>> {
  const name = getRung(rung).name;
  let table = RUNG_PRESETS.get(name);
  if (table === undefined) {
    table = Object.freeze(buildPresets(rungBaseConfig(name), false));
    RUNG_PRESETS.set(name, table);
  }
  return table;
}

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

/**
 * A fresh, mutable copy of a preset at a rung (default: tiny, today's policy): the rung's model,
 * task mix and stages under the preset's own change. Throws a ConfigError listing the valid names.
 */
export function getPreset(name: string, rung: string = DEFAULT_RUNG): RunConfig {
  const table = presetsAt(rung);
  const p = Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
  if (p === undefined) {
    const valid = Object.keys(table).join(', ');
    const where = rung === DEFAULT_RUNG ? '' : ` at rung ${rung} (the -tiny test twins exist at the tiny rung only)`;
    throw new ConfigError('preset', `unknown preset ${JSON.stringify(name)}${where} (valid: ${valid})`);
  }
  return clone(p);
}

