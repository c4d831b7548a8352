/**
 * The Benchmark view's measurement in the Worker: `magic-lab bench`'s own (src/model/bench-run.ts)
 * on the engine the page runs, with the CPU engine's peak so the page can show efficiency. Quick by
 * default (a smaller batch and fewer repeats: well under a minute on SwiftShader); thorough is the
 * CLI's default batch and step count, so its figures compare with `magic-lab bench`'s.
 */
import { benchEngine, DEFAULT_BENCH, type BenchConfig, type BenchResult } from '../model/bench-run';
import { validateModelConfig } from '../model/config';
import type { Backend } from '../model/engine';
import type { EngineTurn } from './engine-turn';
import type { FromWorker, ToWorker } from './protocol';

/** The bench model at a smaller batch, few steps and repeats. */
export const QUICK_BENCH = { config: { ...DEFAULT_BENCH, batch: 4 }, steps: 3, samplingRounds: 1, matmulRepeats: 3 } as const;
export const THOROUGH_BENCH = { config: DEFAULT_BENCH, steps: 10, samplingRounds: 2, matmulRepeats: 5 } as const;

export function benchModel(c: BenchConfig) {
  return validateModelConfig({ vocabSize: c.vocab, contextLength: c.ctx, nLayers: c.layers, dModel: c.dModel, nHeads: c.heads, mlpRatio: c.mlpRatio });
}

/** Runs the page's benchmark on `backend`; `onProgress` gets each part as it starts. */
export function pageBench(backend: Backend, thorough: boolean, onProgress: (phase: string, done: number, total: number) => void): Promise<BenchResult> {
  const o = thorough ? THOROUGH_BENCH : QUICK_BENCH;
  const config = { ...o.config };
  return benchEngine(backend, { config, model: benchModel(config), steps: o.steps, samplingRounds: o.samplingRounds, matmulRepeats: o.matmulRepeats, peak: true, onProgress });
}

/** Answers a `bench` request: progress as it goes, then the result or why there is none. */
export function answerBench(msg: Extract<ToWorker, { type: 'bench' }>, backend: Backend | null, turn: EngineTurn, post: (m: FromWorker) => void): void {
  const { requestId } = msg;
  if (!backend) return post({ type: 'bench-result', requestId, error: 'no engine is open' });
  void turn
    .exclusive(() => pageBench(backend, msg.thorough, (phase, done, total) => post({ type: 'bench-progress', requestId, phase, done, total })))
    .then(
      (result) => post({ type: 'bench-result', requestId, result }),
      (e) => post({ type: 'bench-result', requestId, error: e instanceof Error ? e.message : String(e) }),
    );
}
