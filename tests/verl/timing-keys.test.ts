/** verl's phase timers and the trainer's timing_s/* are one set of names, through every import format. */
import { describe, expect, it } from 'vitest';
import { TIMING_PHASES, timingKey } from '../../src/rl/phase-timer';
import { unmangleTag } from '../../src/verl/log-records';
import { importVerlRun } from '../../src/verl/import';

describe('verl timing keys', () => {
  it('a TensorBoard tag with / written as _ comes back as the trainer\'s timing key', () => {
    for (const p of TIMING_PHASES) expect(unmangleTag(`timing_s_${p}`)).toBe(timingKey(p));
  });

  it('a console log keeps verl\'s timing_s/<phase> under the name the trainer writes', () => {
    const phases = TIMING_PHASES.map((p, i) => `timing_s/${p}:${i + 1}.000`).join(' - ');
    const r = importVerlRun([{ name: 'x.log', text: `step:1 - actor/entropy:0.5 - ${phases} - timing_s/step:30.000\n` }]);
    TIMING_PHASES.forEach((p, i) => expect(r.steps[0][timingKey(p)]).toBe(i + 1));
    expect(r.steps[0]['perf/step_s']).toBe(30);
  });
});
