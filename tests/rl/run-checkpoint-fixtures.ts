/** A valid run checkpoint of the magic-tiny preset, as the trainer would write it after 2 steps (no policy needed). */
import type { CheckpointContents } from '../../src/model/checkpoint';
import { initParams } from '../../src/model/init';
import { getPreset, validateRunConfig } from '../../src/rl/config';

export function validRunCheckpoint(opts: { offline?: boolean } = {}): CheckpointContents {
  const config = opts.offline ? validateRunConfig({ data: { offlineFilter: { enabled: true, samples: 4 } } }, getPreset('magic-tiny')) : getPreset('magic-tiny');
  const params = initParams(config.model, 7);
  const keep = [1, 2, 4, 5, 8, 9, 12, 14];
  const pool = opts.offline ? keep.slice(0, 7) : Array.from({ length: 16 }, (_, i) => i);
  const attempts = new Array(16).fill(0).map((_, i) => (i % 3 === 0 ? 8 : 0));
  const state = {
    step: 2,
    adamStep: 2,
    scoreHistory: [0.25, 0.5],
    entropy: { c: 0.995, lastBelowTarget: false, updates: 2 },
    pool,
    epoch: 1,
    position: 3,
    attempts,
    solves: attempts.map((a, i) => (a ? i % 5 : 0)).map((s, i) => Math.min(s, attempts[i])),
    stageStarted: 0,
    offline: opts.offline ? { keep, droppedUnsolved: 5, droppedSolved: 3, total: 16, summary: 'offline filter (N=4): kept 8/16 prompts; dropped 5 solved 0/4, 3 solved 4/4' } : null,
    elapsedMs: 1234.5,
  };
  return {
    model: config.model,
    params,
    adam: { m: params.map((x) => x / 10), v: params.map((x) => x * x) },
    meta: { kind: 'magic-lab-run', config, state },
  };
}
