/**
 * RunConfig: every knob of a MAGIC Lab training run. The rooms: schema.ts (the documented type and
 * its defaults), rules.ts (one declarative rule per field: bounds, unit, symbol), validate.ts
 * (deep-merge over a base, one ConfigError naming the field path), resolve.ts (a stage with the
 * rollout defaults filled in), presets.ts and url.ts (JSON and the URL diff to a preset). The
 * run's dataset is built in the task layer (tasks/run-dataset.ts), re-exported here.
 */
export {
  TASK_FAMILIES,
  DEFAULT_CONVERGENCE,
  DEFAULT_RUN_CONFIG,
  type TaskFamily,
  type StageConfig,
  type RunConfig,
  type DeepPartial,
  type RunConfigInput,
} from './schema';
export { fieldRule, ruledPaths, type FieldRule, type NumberRule, type EnumRule, type BoolRule, type ListRule } from './rules';
export { validateRunConfig } from './validate';
export { resolveStage, fixedRunSteps, longestResponseLength, type ResolvedStage } from './resolve';
export { CONST_ENTROPY_SMALL, CONST_ENTROPY_LARGE, PRESETS, DEFAULT_PRESET, presetNames, presetBase, getPreset } from './presets';
export { RUNG_NAMES, DEFAULT_RUNG, isRungName, getRung, rungBaseConfig, rungOf, modelParameterCount, type Rung, type RungName } from './rungs';
export { configDiffPaths, diffOutside, fieldCovers, hasConfigPath } from './diff';
export { runConfigToJSON, runConfigFromJSON, PRESET_PARAM, RUNG_PARAM, encodeConfigToUrlParams, decodeConfigFromUrlParams } from './url';
export { buildRunDataset } from '../../tasks';
