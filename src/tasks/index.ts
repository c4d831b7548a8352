/** Public API of the task layer. */
export * from './types';
export * from './tokenizer';
export { normalizeInteger } from './common';
export { ExprError, parseExpr, evalExpr, renderExpr, canonicalExpr, type Expr, type BinOp, type ParseOptions } from './expr';
export { addition, makeAdditionProblem, type AdditionData } from './addition';
export { countdown, makeCountdownProblem, type CountdownData } from './countdown';
export { arith, makeArithProblem, type ArithData } from './arith';
export { multiply, makeMultiplyProblem, type MultiplyData } from './multiply';
export { sort, makeSortProblem, SORT_LEVELS, type SortData } from './sort';
export {
  FAMILIES,
  getFamily,
  isFamilyName,
  difficultyFor,
  checkFamilies,
  maxPromptTokens,
  maxResponseTokens,
  type DifficultySpec,
} from './registry';
export { generateProblems, type MixtureOptions } from './mixture';
export {
  buildDataset,
  deduplicateProblems,
  ProblemFilter,
  type FilterVerdict,
  type DedupResult,
  problemsToJsonl,
  problemsFromJsonl,
  ProblemFormatError,
  type DatasetOptions,
  type DatasetReport,
  type Dataset,
} from './dataset';
export { distinctProblemCount, usableProblemCount, sharedProblemCount, DISTINCT_CAP, SMALL_SPACE } from './capacity';
export { buildRunDataset, type RunDatasetInput } from './run-dataset';
