import { describe, expect, it } from 'vitest';
import { CheckpointError, encodeCheckpoint, type CheckpointContents } from '../../src/model/checkpoint';
import { layoutParams } from '../../src/model/config';
import { initParams } from '../../src/model/init';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { checkCheckpointMeta, loadCheckpoint } from '../../src/rl/run-checkpoint';
import { validRunCheckpoint } from './run-checkpoint-fixtures';

type Edit = (st: Record<string, any>, meta: Record<string, any>) => void;

/** The file `edit` makes of a valid run checkpoint, loaded: the first error's message, or null. */
function loadEdited(edit: Edit, base: CheckpointContents = validRunCheckpoint()): string | null {
  const meta = structuredClone(base.meta) as Record<string, any>;
  edit(meta.state, meta);
  try {
    loadCheckpoint(encodeCheckpoint({ ...base, meta }), 'run/checkpoint.mlck');
    return null;
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return (e as Error).message;
  }
}

describe('run checkpoint: every field of the run state is checked on load', () => {
  it('a valid run state loads as it was saved', () => {
    const ck = validRunCheckpoint();
    const { meta } = loadCheckpoint(encodeCheckpoint(ck), 'x');
    expect(meta.kind).toBe('run');
    if (meta.kind !== 'run') return;
    expect(meta.state).toEqual(ck.meta.state);
    expect(meta.config).toEqual(ck.meta.config);
    const withOffline = validRunCheckpoint({ offline: true });
    expect(loadCheckpoint(encodeCheckpoint(withOffline), 'x').meta).toMatchObject({ kind: 'run', state: withOffline.meta.state });
  });

  const cases: [string, Edit, RegExp][] = [
    // counters
    ['step', (s) => (s.step = -3), /run state step must be a non-negative integer, got -3$/],
    ['step not integer', (s) => (s.step = 1.5), /run state step must be a non-negative integer, got 1\.5/],
    ['adamStep', (s) => (s.adamStep = '2'), /run state adamStep must be a non-negative integer, got "2"/],
    ['adamStep past N_SGD per update', (s) => (s.adamStep = 3), /run state adamStep \(3\) exceeds N_SGD = 1 optimizer steps for each of the 2 steps/],
    ['epoch', (s) => (s.epoch = null), /run state epoch must be a non-negative integer, got null/],
    ['epoch below the stages started', (s) => ((s.epoch = 0), (s.stageStarted = 1)), /run state epoch \(0\) is below the stages started \(1/],
    ['position', (s) => (s.position = 17), /run state position \(17\) is past the pool \(16 prompts\)/],
    ['elapsedMs', (s) => (s.elapsedMs = -1), /run state elapsedMs must be a non-negative number, got -1/],
    // score history
    ['scoreHistory length', (s) => (s.scoreHistory = []), /run state scoreHistory must hold one score per step \(2\), got 0/],
    ['scoreHistory value', (s) => (s.scoreHistory[1] = 1.5), /run state scoreHistory\[1\] must be a mean reward in \[0, 1\], got 1\.5/],
    ['scoreHistory null', (s) => (s.scoreHistory[0] = null), /run state scoreHistory\[0\] must be a mean reward/],
    // entropy controller
    ['entropy missing', (s) => delete s.entropy, /run state entropy is missing/],
    ['entropy not an object', (s) => (s.entropy = 0.5), /run state entropy must be the entropy controller's state/],
    ['entropy.c', (s) => (s.entropy.c = 'x'), /run state entropy\.c must be a finite number, got "x"/],
    ['entropy.c past c_max', (s) => (s.entropy.c = 2.5), /run state entropy\.c \(2\.5\) is outside \[c_min, c_max\] = \[0, 2\] of the run config/],
    ['entropy.lastBelowTarget', (s) => (s.entropy.lastBelowTarget = 1), /run state entropy\.lastBelowTarget must be true or false, got 1/],
    ['entropy.updates', (s) => (s.entropy.updates = -1), /run state entropy\.updates must be a non-negative integer/],
    ['entropy.updates past the steps', (s) => ((s.entropy.updates = 3), (s.adamStep = 3)), /run state entropy\.updates \(3\) exceeds the steps done \(2\)/],
    ['entropy unknown field', (s) => (s.entropy.k = 1), /run state entropy has an unknown field "k"/],
    // pool and online-filter tallies
    ['pool past the data', (s) => (s.pool = [0, 99999]), /run state pool\[1\] must be a training-prompt index below 16, got 99999/],
    ['pool repeated', (s) => (s.pool = [0, 1, 1]), /run state pool\[2\] \(1\) is repeated/],
    ['pool empty', (s) => ((s.pool = []), (s.position = 0)), /run state pool is empty/],
    ['attempts length', (s) => s.attempts.pop(), /run state attempts must hold a count per training prompt \(16\), got 15 values/],
    ['solves value', (s) => (s.solves[3] = -1), /run state solves\[3\] must be a non-negative integer, got -1/],
    ['solves past attempts', (s) => (s.solves[0] = s.attempts[0] + 1), /run state solves\[0\] \(\d+\) exceeds the attempts at that prompt/],
    // stage
    ['stageStarted past the schedule', (s) => (s.stageStarted = 2), /run state stageStarted must be a stage index below 2, got 2/],
    ['stageStarted past the history', (s) => ((s.scoreHistory = [0.5]), (s.step = 1), (s.entropy.updates = 1), (s.adamStep = 1), (s.stageStarted = 1)), /run state stageStarted \(1\) is past the stage its score history reaches \(0\)/],
    // offline filter report
    ['offline present but disabled', (s) => (s.offline = { keep: [1], droppedUnsolved: 15, droppedSolved: 0, total: 16, summary: '' }), /run state offline is present, but the run config does not filter offline/],
    // shape of the whole
    ['unknown field', (s) => (s.rng = 7), /run state rng is not a field of the run state/],
    ['state not an object', (_s, m) => (m.state = [1]), /run state \(meta\.state\) must be an object, got \[1\]/],
    // the rest of a run checkpoint's meta
    ['config', (_s, m) => (m.config.loss.epsLow = -1), /run\/checkpoint\.mlck: meta\.config\.loss\.epsLow/],
    ['config model', (_s, m) => (m.config.model.dModel = 32), /meta\.config\.model .* is not the model the file holds/],
    ['refParams length', (_s, m) => (m.refParams = [1, 2]), /meta\.refParams \(the KL reference policy\) must hold \d+ numbers, got 2/],
    ['refParams value', (_s, m) => (m.refParams = new Array(layoutParams(m.config.model).totalFloats).fill(0).map((_, i) => (i === 5 ? 'x' : 0))), /meta\.refParams\[5\] must be a finite number, got "x"/],
  ];
  for (const [name, edit, re] of cases) {
    it(`refuses ${name}, naming the file and the field`, () => {
      const msg = loadEdited(edit);
      expect(msg).toMatch(/^checkpoint run\/checkpoint\.mlck: /);
      expect(msg).toMatch(re);
    });
  }

  it('checks the offline filter report against the config and the pool', () => {
    const base = validRunCheckpoint({ offline: true });
    const cases: [Edit, RegExp][] = [
      [(s) => (s.offline = null), /run state offline is missing: the run config filters offline/],
      [(s) => (s.offline.keep = [3, 2]), /run state offline\.keep\[1\] \(2\) is out of ascending order or repeated/],
      [(s) => (s.offline.total = 15), /run state offline\.total \(15\) is not the run's 16 training prompts/],
      [(s) => (s.offline.droppedSolved += 1), /run state offline kept \d+ \+ dropped \d+ \+ \d+ is not its total 16/],
      [(s) => (s.offline.summary = 3), /run state offline\.summary must be a string/],
      [(s) => s.pool.push(15), /run state pool holds prompt 15, which the offline filter dropped/],
    ];
    for (const [edit, re] of cases) expect(loadEdited(edit, base)).toMatch(re);
  });

  it('AdamW moments are required past optimizer step 0', () => {
    const ck = validRunCheckpoint();
    expect(() => loadCheckpoint(encodeCheckpoint({ ...ck, adam: undefined }), 'r.mlck')).toThrow(/r\.mlck: a run at optimizer step 2 without its AdamW moments/);
  });

  it('a run checkpoint without a run state (a sweep\'s start weights) loads for evaluation', () => {
    const ck = validRunCheckpoint();
    const { state: _state, ...meta } = ck.meta;
    expect(checkCheckpointMeta({ ...ck, meta }, 'x')).toMatchObject({ kind: 'run', state: null });
  });

  it('checks a base checkpoint\'s cached offline-filter result and SFT state', () => {
    const model = getPreset('magic-tiny').model;
    const params = initParams(model, 1);
    const key = JSON.stringify({ weights: 'crc32:00000000', samples: 4 });
    const base = (meta: Record<string, unknown>) => () => loadCheckpoint(encodeCheckpoint({ model, params, meta: { kind: 'magic-lab-base', ...meta } }), 'base.mlck');
    expect(base({ offlineFilter: { key, correct: [0, 4, 2] }, sftState: { step: 3, rngState: 0xffffffff } })).not.toThrow();
    expect(base({ offlineFilter: { key, correct: [0, 5] } })).toThrow(/base\.mlck: meta\.offlineFilter\.correct\[1\] must be a count of correct samples in \[0, 4\], got 5/);
    expect(base({ offlineFilter: { key: 'x', correct: [] } })).toThrow(/base\.mlck: meta\.offlineFilter\.key must name the samples per prompt/);
    expect(base({ offlineFilter: [1] })).toThrow(/base\.mlck: meta\.offlineFilter must be \{ key, correct \}/);
    expect(base({ sftState: { step: 3, rngState: -1 } })).toThrow(/base\.mlck: meta\.sftState\.rngState must be a uint32 RNG state, got -1/);
    expect(base({ sftState: { step: 'a', rngState: 1 } })).toThrow(/base\.mlck: meta\.sftState\.step must be a non-negative integer/);
    expect(base({ step: -1 })).toThrow(/base\.mlck: meta\.step must be a non-negative integer/);
  });

  it('the fixture is what the trainer writes (its config resolves the same)', () => {
    const ck = validRunCheckpoint();
    expect(validateRunConfig(ck.meta.config)).toEqual(ck.meta.config);
  });
});
