/**
 * ONE declarative description per RunConfig field: its kind, bounds (open or closed, integer or
 * not), the paper's symbol and its unit. The validator (validate.ts) walks RULES in order, the
 * page's field list (ui/lib/fields.ts) takes its inputs' kinds and bounds from fieldRule(), and the
 * URL codec asks fieldRule() which fields are strings, so no bound is written twice. The few
 * constraints between fields are `check` steps placed where the validator meets them (it throws the
 * first failure, so the order is part of the messages).
 */
import { ConfigError, MODEL_INT_BOUNDS, validateModelConfig } from '../../model/config';
import { getFamily, maxPromptTokens, VOCAB_SIZE } from '../../tasks';
import { resolveStage } from './resolve';
import { TASK_FAMILIES, type RunConfig, type StageConfig } from './schema';
import { type Rec } from './values';

interface FieldDoc {
  /** The paper's symbol (or a short name), shown beside the field in the page. */
  symbol: string;
  /** What the number counts or measures, when it has a unit. */
  unit?: string;
}

export interface NumberRule extends FieldDoc {
  kind: 'int' | 'number';
  /** Static bounds (absent: unbounded on that side); open bounds exclude the value itself. */
  min?: number;
  max?: number;
  minOpen?: boolean;
  maxOpen?: boolean;
  /** A bound that depends on other fields (`parent`: the object holding this field); replaces the static one. */
  minOf?: (c: RunConfig, parent: Rec) => number;
  maxOf?: (c: RunConfig, parent: Rec) => number;
  /** Also bounded above by other fields, in a check step (says which): the static max is then no value to offer. */
  crossMax?: string;
  /** null is allowed (off, or: inherit the rollout default). */
  nullable?: boolean;
  /** May be absent; null is normalised to absent. */
  optional?: boolean;
}
export interface EnumRule extends FieldDoc {
  kind: 'enum';
  options: readonly string[];
}
export interface BoolRule extends FieldDoc {
  kind: 'bool';
}
/** A non-empty array whose elements follow `of`; `unique` names an element when duplicates are refused. */
export interface ListRule extends FieldDoc {
  kind: 'list';
  of: NumberRule | EnumRule;
  unique?: string;
}
export type FieldRule = NumberRule | EnumRule | BoolRule | ListRule;

/** One step of validation: a field (dotted path relative to the current object), a cross-field check, each element of an array of objects, or a nullable nested object. */
export type RuleStep =
  | { field: string; rule: FieldRule }
  | { check: (c: RunConfig, at: Rec, path: string) => void }
  | { each: string; maxItems: number; steps: readonly RuleStep[] }
  | { within: string; steps: readonly RuleStep[] };

const field = (path: string, rule: FieldRule): RuleStep => ({ field: path, rule });
const int = (symbol: string, min: number, max: number | undefined, more: Partial<NumberRule> = {}): NumberRule => ({ kind: 'int', symbol, min, max, ...more });
const num = (symbol: string, min: number, max: number, more: Partial<NumberRule> = {}): NumberRule => ({ kind: 'number', symbol, min, max, ...more });
const oneOf = (symbol: string, options: readonly string[]): EnumRule => ({ kind: 'enum', symbol, options });
const bool = (symbol: string): BoolRule => ({ kind: 'bool', symbol });

export const MAX_TEMPERATURE = 10;
/**
 * Below this, logits / τ leave the range where f32 sampling stays finite (1e-320 made every
 * log-prob NaN), and sampling is argmax already: a temperature of 0.01 multiplies a logit gap of 1
 * by 100, so the runner-up token's probability is e^-100.
 */
export const MIN_TEMPERATURE = 0.01;
// Shared by the rollout defaults, each stage's override and the evaluation temperatures.
const TEMPERATURE = num('τ', MIN_TEMPERATURE, MAX_TEMPERATURE);
const GROUP_SIZE = int('G', 2, 1024, { unit: 'responses' });
const BATCH_PROMPTS = int('D_R', 1, 100_000, { unit: 'prompts' });

/** The model section: validateModelConfig (the model layer's own check) plus the tokenizer's vocabulary. */
function checkModel(c: RunConfig): void {
  try {
    c.model = validateModelConfig(c.model);
  } catch (e) {
    if (e instanceof ConfigError && !e.field.startsWith('model')) {
      throw new ConfigError(`model.${e.field}`, e.message.slice(e.field.length + 2));
    }
    throw e;
  }
  if (c.model.vocabSize !== VOCAB_SIZE) {
    throw new ConfigError('model.vocabSize', `must be ${VOCAB_SIZE}, the character tokenizer's vocabulary size, got ${c.model.vocabSize}`);
  }
}

const STAGE_STEPS: readonly RuleStep[] = [
  // A response needs at least one prompt token in front of it; the trainer checks the exact prompt length.
  field('maxResponseLength', int('T_resp', 1, undefined, { unit: 'tokens', maxOf: (c) => c.model.contextLength - 1 })),
  {
    check: (c, s, p) => {
      const d = c.data;
      const ctx = c.model.contextLength;
      const prompt = maxPromptTokens(d.families, d.difficulty);
      const len = (s as unknown as StageConfig).maxResponseLength;
      if (prompt + len > ctx) {
        throw new ConfigError(`${p}.maxResponseLength`, `${len} plus the longest prompt (${prompt} tokens at difficulty ${d.difficulty}) exceeds model.contextLength ${ctx}`);
      }
    },
  },
  field('steps', int('steps', 1, 1_000_000, { unit: 'steps', nullable: true })),
  {
    within: 'convergence',
    steps: [
      field('window', int('W', 1, 10_000, { unit: 'steps' })),
      field('minImprovement', num('δ', 0, 1)),
      field('maxSteps', int('max', 2, 1_000_000, { unit: 'steps', minOf: (_, cv) => 2 * (cv.window as number) })),
    ],
  },
  {
    check: (_, s, p) => {
      if ((s.steps === null) === (s.convergence === null)) throw new ConfigError(p, 'set exactly one of "steps" and "convergence"');
    },
  },
  field('batchPrompts', { ...BATCH_PROMPTS, nullable: true }),
  field('groupSize', { ...GROUP_SIZE, nullable: true }),
  field('temperature', { ...TEMPERATURE, nullable: true }),
  // Optional: absent (or null, normalised to absent) means loss.kl.beta.
  field('klBeta', num('β', 0, 100, { optional: true })),
];

/** Every field and cross-field check of a merged config, in the order the validator meets them. */
export const RULES: readonly RuleStep[] = [
  field('seed', int('seed', 0, 0xffffffff)),
  { check: checkModel },

  field('data.families', { kind: 'list', symbol: 'families', of: oneOf('family', TASK_FAMILIES), unique: 'family' }),
  // The hardest level every chosen family supports (countdown's is 5, multiply's and sort's 6, addition's 8).
  field('data.difficulty', int('level', 1, undefined, { maxOf: (c) => Math.min(...c.data.families.map((f) => getFamily(f).maxDifficulty)) })),
  // Optional: absent (or null) tests at data.difficulty. When set, a level above training's, at most the families' hardest.
  field('data.testDifficulty', int('test level', 1, undefined, { optional: true, minOf: (c) => c.data.difficulty + 1, maxOf: (c) => Math.min(...c.data.families.map((f) => getFamily(f).maxDifficulty)) })),
  field('data.trainSize', int('|D|', 1, 1_000_000, { unit: 'prompts' })),
  field('data.testSize', int('|D_test|', 1, 1_000_000, { unit: 'prompts' })),
  field('data.offlineFilter.enabled', bool('offline')),
  field('data.offlineFilter.samples', int('N', 2, 1024, { unit: 'samples' })),
  field('data.onlineFilter', bool('online')),

  field('rollout.temperature', TEMPERATURE),
  field('rollout.topP', num('top-p', 0, 1, { minOpen: true })),
  field('rollout.groupSize', GROUP_SIZE),
  field('rollout.batchPrompts', BATCH_PROMPTS),

  { each: 'stages', maxItems: 16, steps: STAGE_STEPS },
  {
    // Evaluations sample at the longest stage's length; a harder test set's longer prompts must still fit the context.
    check: (c) => {
      const level = c.data.testDifficulty;
      if (level === undefined) return;
      const prompt = maxPromptTokens(c.data.families, level);
      const len = Math.max(...c.stages.map((s) => s.maxResponseLength));
      if (prompt + len > c.model.contextLength) {
        throw new ConfigError('data.testDifficulty', `the longest stage's ${len} response tokens plus the longest test prompt (${prompt} tokens at level ${level}) exceed model.contextLength ${c.model.contextLength}`);
      }
    },
  },

  field('loss.epsLow', num('ε_low', 0, 1, { maxOpen: true })),
  field('loss.epsHigh', num('ε_high', 0, 10)),
  field('loss.dualClip', num('c', 1, 100, { minOpen: true, nullable: true })),
  field('loss.aggregation', oneOf('1/T_k', ['token-mean', 'seq-mean-token-mean'])),
  field('loss.entropy.mode', oneOf('α mode', ['adaptive', 'constant', 'off'])),
  field('loss.entropy.target', num('tgt-ent', 0, 100, { minOpen: true, unit: 'nats' })),
  field('loss.entropy.delta', num('Δ', 0, 10)),
  field('loss.entropy.cMin', num('c_min', 0, 10)),
  field('loss.entropy.cMax', num('c_max', 0, 10, { minOf: (_, e) => e.cMin as number })),
  // c_0 outside [c_min, c_max] starts clamped (initialEntropyState), so lowering c_max alone stays valid.
  field('loss.entropy.c0', num('c_0', 0, 10)),
  field('loss.entropy.constantCoef', num('α', 0, 10)),
  field('loss.entropy.gate', oneOf('1{e<tgt}', ['current', 'lagged'])),
  field('loss.entropy.estimator', oneOf('e_k', ['exact', 'sampled'])),
  field('loss.kl.beta', num('β', 0, 100)),
  field('loss.kl.type', oneOf('KL est.', ['k1', 'k3', 'low_var_kl'])),
  field('loss.advantageStd', bool('σ_r')),

  field('rejection.mode', oneOf('rejection', ['drop', 'refill', 'off'])),
  field('rejection.maxRefillRounds', int('refill', 0, 100, { unit: 'rounds' })),
  field('truncation.mode', oneOf('trunc', ['none', 'adv-mask-before', 'adv-mask-after'])),

  field('update.miniBatches', int('D_R/D_T', 1, 100_000, { crossMax: 'G of every stage' })),
  field('update.reuseEpochs', int('N_reuse', 1, 100)),
  field('update.microBatchRows', int('micro', 1, 1_000_000, { unit: 'rows', nullable: true })),
  field('update.lr', num('η', 0, 1, { minOpen: true })),
  field('update.lrSchedule.mode', oneOf('η(k)', ['constant', 'cosine'])),
  field('update.lrSchedule.warmupSteps', int('W', 0, 1_000_000, { unit: 'steps' })),
  field('update.lrSchedule.minRatio', num('η_min/η', 0, 1)),
  {
    check: (c) => {
      if (c.update.lrSchedule.mode !== 'cosine') return;
      const open = c.stages.findIndex((s) => s.steps === null);
      if (open >= 0) throw new ConfigError('update.lrSchedule.mode', `'cosine' needs the run's length, but stages[${open}] ends by convergence, not after fixed steps; use 'constant' or give every stage "steps"`);
    },
  },
  field('update.beta1', num('β₁', 0, 1, { maxOpen: true })),
  field('update.beta2', num('β₂', 0, 1, { maxOpen: true })),
  field('update.weightDecay', num('λ', 0, 10)),
  field('update.gradClip', num('clip‖g‖', 0, 1e6, { minOpen: true, nullable: true })),
  field('update.maxNonfiniteSteps', int('K', 1, 1_000_000, { unit: 'steps' })),
  {
    check: (c) => {
      const u = c.update;
      c.stages.forEach((_, i) => {
        // Rejection may keep a single group: its G responses must still fill every mini-batch.
        const g = resolveStage(c, i).groupSize;
        if (u.miniBatches > g) {
          throw new ConfigError('update.miniBatches', `must be at most the group size G of every stage (one kept group must fill every mini-batch); stages[${i}] has ${g}, got ${u.miniBatches}`);
        }
      });
    },
  },

  field('eval.everySteps', int('every', 0, 1_000_000, { unit: 'steps' })),
  field('eval.k', int('k', 1, 1024, { unit: 'samples' })),
  field('eval.temperatures', { kind: 'list', symbol: 'τ_eval', of: TEMPERATURE }),
  field('eval.testProblems', int('#test', 1, undefined, { maxOf: (c) => c.data.testSize, unit: 'prompts' })),
  field('checkpoint.everySteps', int('ckpt', 0, 1_000_000, { unit: 'steps' })),
];

const modelInt = (symbol: string, key: keyof typeof MODEL_INT_BOUNDS): NumberRule => int(symbol, MODEL_INT_BOUNDS[key][0], MODEL_INT_BOUNDS[key][1]);

/**
 * The model section's fields, checked by validateModelConfig (checkModel above), described here
 * for the page and the URL codec; vocabSize is the tokenizer's, the one value the lab accepts.
 */
export const MODEL_RULES: Readonly<Record<string, FieldRule>> = {
  'model.nLayers': modelInt('L', 'nLayers'),
  'model.dModel': modelInt('C', 'dModel'),
  'model.nHeads': modelInt('H', 'nHeads'),
  'model.mlpRatio': modelInt('r_mlp', 'mlpRatio'),
  'model.contextLength': { ...modelInt('T', 'contextLength'), unit: 'tokens' },
  'model.vocabSize': int('V', VOCAB_SIZE, VOCAB_SIZE, { unit: 'tokens' }),
  'model.norm': oneOf('norm', ['rmsnorm', 'layernorm']),
  'model.tiedEmbeddings': bool('tied'),
};

function flatten(steps: readonly RuleStep[], prefix: string, out: Map<string, FieldRule>): Map<string, FieldRule> {
  const at = (k: string) => (prefix ? `${prefix}.${k}` : k);
  for (const s of steps) {
    if ('field' in s) out.set(at(s.field), s.rule);
    else if ('each' in s) flatten(s.steps, `${at(s.each)}[]`, out);
    else if ('within' in s) flatten(s.steps, at(s.within), out);
  }
  return out;
}

const BY_PATH: ReadonlyMap<string, FieldRule> = flatten(RULES, '', new Map(Object.entries(MODEL_RULES)));

/** The rule of a field by its path (array indices as `[]`: `stages[].groupSize`), or undefined for no field. */
export function fieldRule(path: string): FieldRule | undefined {
  return BY_PATH.get(path);
}

/** Every described field path (array elements as `[]`). */
export function ruledPaths(): string[] {
  return [...BY_PATH.keys()];
}
