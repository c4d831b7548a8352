/**
 * The model ladder: named rungs, each a policy size with the task mix, stage lengths and shipped
 * base checkpoint that suit it. A rung is a starting point, not a field of RunConfig: a preset at a
 * rung is the rung's overlay under the preset's own change (getPreset(name, rung)), and a config
 * belongs to the rung whose model it has (rungOf), so run files and checkpoints keep their format.
 *
 * (The `-tiny` presets are the test-size twins, 16-wide and one layer; they are not the tiny rung.)
 */
import { ConfigError, layoutParams, type ModelConfig } from '../../model/config';
import { DEFAULT_RUN_CONFIG, type RunConfig, type RunConfigInput } from './schema';
import { validateRunConfig } from './validate';
import { deepFreeze, jsonEqual } from './values';

export type RungName = 'tiny' | 'small' | 'medium';
export const RUNG_NAMES: readonly RungName[] = ['tiny', 'small', 'medium'];
export const DEFAULT_RUNG: RungName = 'tiny';

export interface Rung {
  name: RungName;
  /** One line for the page's selector and the CLI's help. */
  summary: string;
  /** The rung's change over the MAGIC defaults: model, task mix, stages, rollout sizes (tiny: none). */
  overlay: RunConfigInput;
  /** Its base checkpoint under public/ (the page fetches it relative to the site; the CLI reads public/<file>). */
  baseFile: string;
  /** bundled: precached with the page; on-demand: fetched with a progress bar when a run at the rung first starts, then cached. */
  delivery: 'bundled' | 'on-demand';
  /**
   * About how many bytes an on-demand base is: the progress bar's total where the server compresses the file and so
   * sends no Content-Length of what the page reads (tests/model/checkpoint-ladder.test.ts holds it to the file within 1%).
   */
  baseBytes?: number;
}

/** The small rung's RL learning rate, tuned on seeds 201–203 (reports/tuning rounds 16–20): lr 6e-4, the tiny rung's, lost a third of pass@8 in 20 steps; at 2e-4 the no-control twin gains +23.9 [+20.5, +27.3] points. */
const SMALL_LR = 2e-4;
/**
 * The small rung's entropy controller. Its base starts at the target (e ≈ 0.10–0.13), so the controller must act
 * within ~20 steps: c₀ = 0 and Δ = 0.02 reach c ≈ 0.3 in 15 below-target steps; c_max 0.2 left the 10-step mean at
 * 0.08–0.09 for 100 steps (round 18), c_max 0.5 holds it (round 20). docs/ladder.md.
 */
const SMALL_ENTROPY = { target: 0.1, delta: 0.02, c0: 0, cMax: 0.5 };

const RUNG_DEFS: Record<RungName, Rung> = {
  tiny: {
    name: 'tiny',
    summary: '~106K parameters, context 64: short arithmetic, ~18-token reasoning',
    overlay: {},
    baseFile: 'checkpoints/base.mlck',
    delivery: 'bundled',
  },
  small: {
    name: 'small',
    summary: '~0.8M parameters, context 256: long multiplication and sorting, ~60–120-token reasoning',
    overlay: {
      model: { contextLength: 256, nLayers: 4, dModel: 128, nHeads: 4 },
      // Level 3: 3×2-digit products and 5-number sorts, 57–79-token concise traces (docs/tasks.md).
      data: { families: ['multiply', 'sort'], difficulty: 3 },
      // Stage 1 cuts the verbose and slipping traces (as the paper's 8K stage does), stage 2 releases them.
      stages: [
        { maxResponseLength: 80, steps: 200 },
        { maxResponseLength: 160, steps: 200 },
      ],
      // Tuned on seeds 201–203 (SMALL_LR, SMALL_ENTROPY above).
      update: { lr: SMALL_LR },
      loss: { entropy: SMALL_ENTROPY },
    },
    baseFile: 'checkpoints/base-small.mlck',
    delivery: 'bundled',
  },
  medium: {
    name: 'medium',
    summary: '~4M parameters, context 512: long multiplication and sorting one level above small, ~80–170-token reasoning',
    overlay: {
      model: { contextLength: 512, nLayers: 5, dModel: 256, nHeads: 8 },
      // Level 4: 3×3-digit products and 6-number sorts, 78–125-token concise traces (docs/tasks.md), one level above
      // small's. Level 6 (128–221 tokens) is what the model's context allows, but its warm start would be ~5 h of this
      // 2-core machine and a 1600-step one solved none of it; level 4's traces are ~60% as long (docs/ladder.md).
      data: { families: ['multiply', 'sort'], difficulty: 4 },
      // As small's: stage 1 just past the longest concise trace (cuts the verbose and slipping ones), stage 2 twice it.
      stages: [
        { maxResponseLength: 128, steps: 200 },
        { maxResponseLength: 256, steps: 200 },
      ],
      // Micro-batches of 16 rows (2 groups): the attention probabilities of 16·8·277·277 f32 (37.5 MiB) fit WebGPU's
      // default 128 MiB binding, all buffers together a software adapter's share of an 8 GiB laptop (32 rows would
      // need 4.4 GiB of its 4), and the training arena the CPU engine's 2 GiB; the whole 128-row mini-batch's 300 MiB
      // fit neither binding nor arena (docs/ladder.md).
      // RL fields: the small rung's (lr 2e-4; c₀ = 0, Δ = 0.02, c_max 0.5), not tuned at this size. Its base, too,
      // starts at the entropy target (0.094 on the first batch), and the tiny rung's c₀ = 1 put α = 1 on the first
      // update: entropy 0.09 → 0.28 and the batch reward 16% → 0 within 5 steps (one run, an anecdote; docs/ladder.md).
      update: { microBatchRows: 16, lr: SMALL_LR },
      loss: { entropy: SMALL_ENTROPY },
    },
    baseFile: 'checkpoints/base-medium.mlck',
    delivery: 'on-demand',
    baseBytes: 8_175_168,
  },
};
deepFreeze(RUNG_DEFS);

export function isRungName(name: unknown): name is RungName {
  return typeof name === 'string' && (RUNG_NAMES as readonly string[]).includes(name);
}

/** The rung called `name`; a ConfigError naming the `rung` field lists the valid names. */
export function getRung(name: string): Rung {
  if (!isRungName(name)) throw new ConfigError('rung', `unknown rung ${JSON.stringify(name)} (valid: ${RUNG_NAMES.join(', ')})`);
  return RUNG_DEFS[name];
}

const RUNG_BASES = new Map<RungName, RunConfig>();

/** The MAGIC defaults at a rung, validated and frozen (the base every preset at that rung is built on). */
export function rungBaseConfig(name: string): RunConfig {
  const rung = getRung(name);
  let cfg = RUNG_BASES.get(rung.name);
  if (cfg === undefined) {
    cfg = deepFreeze(validateRunConfig(rung.overlay, DEFAULT_RUN_CONFIG));
    RUNG_BASES.set(rung.name, cfg);
  }
  return cfg;
}

/** The rung whose model `cfg` has, or null for a hand-made shape. */
export function rungOf(cfg: { model: ModelConfig }): RungName | null {
  for (const name of RUNG_NAMES) if (jsonEqual(rungBaseConfig(name).model, cfg.model)) return name;
  return null;
}

/** Parameters of a model shape (no alignment padding): what the page's selector shows. */
export function modelParameterCount(m: ModelConfig): number {
  return layoutParams(m).count;
}
