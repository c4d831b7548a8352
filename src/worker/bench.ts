/**
 * The Benchmark view's measurement in the Worker: `magic-lab bench`'s own (src/model/bench-run.ts)
 * on the engine the page runs, with the CPU engine's peak so the page can show efficiency. Quick by
 * default (a smaller batch and fewer repeats: well under a minute on SwiftShader); thorough is the
 * CLI's default batch and step count, so its figures compare with `magic-lab bench`'s. The page sends
 * the model of the rung it is on; without one (and in the CLI) the bench model is timed.
 */
import { benchEngine, DEFAULT_BENCH, type BenchConfig, type BenchResult } from '../model/bench-run';
import { validateModelConfig, type ModelConfig } from '../model/config';
import type { Backend } from '../model/engine';
import type { EngineTurn } from './engine-turn';
import type { BenchModelSpec, FromWorker, ToWorker } from './protocol';

/** The bench model at a smaller batch, few steps and repeats. */
export const QUICK_BENCH = { config: { ...DEFAULT_BENCH, batch: 4 }, steps: 3, samplingRounds: 1, matmulRepeats: 3 } as const;
export const THOROUGH_BENCH = { config: DEFAULT_BENCH, steps: 10, samplingRounds: 2, matmulRepeats: 5 } as const;

export function benchModel(c: BenchConfig) {
  return validateModelConfig({ vocabSize: c.vocab, contextLength: c.ctx, nLayers: c.layers, dModel: c.dModel, nHeads: c.heads, mlpRatio: c.mlpRatio });
}

/** The bench config of another model at the mode's batch: the shape the result's `config` reports. */
export function benchConfigOf(m: ModelConfig, batch: number): BenchConfig {
  return { vocab: m.vocabSize, ctx: m.contextLength, dModel: m.dModel, layers: m.nLayers, heads: m.nHeads, mlpRatio: m.mlpRatio, batch };
}

/**
 * Runs the page's benchmark on `backend`: of `model` (the rung the page is on) when given, else of
 * the bench model; `onProgress` gets each part as it starts.
 */
export async function pageBench(backend: Backend, thorough: boolean, onProgress: (phase: string, done: number, total: number) => void, model?: BenchModelSpec): Promise<BenchResult> {
  const o = thorough ? THOROUGH_BENCH : QUICK_BENCH;
  const timed = model ? validateModelConfig(model.config) : null;
  const config = timed ? benchConfigOf(timed, o.config.batch) : { ...o.config };
  const common = { config, steps: o.steps, samplingRounds: o.samplingRounds, matmulRepeats: o.matmulRepeats, peak: true, onProgress };
  return benchEngine(backend, timed && model ? { ...common, model: timed, modelName: model.name } : { ...common, model: benchModel(config) });
}

/** Answers a `bench` request: progress as it goes, then the result or why there is none. */
export function answerBench(msg: Extract<ToWorker, { type: 'bench' }>, backend: Backend | null, turn: EngineTurn, post: (m: FromWorker) => void): void {
  const { requestId } = msg;
  if (!backend) return post({ type: 'bench-result', requestId, error: 'no engine is open' });
  void turn
    .exclusive(() => pageBench(backend, msg.thorough, (phase, done, total) => post({ type: 'bench-progress', requestId, phase, done, total }), msg.model))
    .then(
      (result) => post({ type: 'bench-result', requestId, result }),
      (e) => post({ type: 'bench-result', requestId, error: e instanceof Error ? e.message : String(e) }),
    );
}
