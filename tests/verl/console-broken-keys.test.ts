/** Console logs copied from issue threads: a key broken across lines is rejoined and its step kept (issue #26, item 4). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importVerlRun, warningText } from '../../src/verl/import';

const FIX = join(import.meta.dirname, 'fixtures');
const name = 'verl-console-broken-keys.txt';

describe('console log: keys broken across lines', () => {
  const r = importVerlRun([{ name, text: readFileSync(join(FIX, name), 'utf8') }]);

  it('rejoins the key and keeps the step, with the line the record starts on', () => {
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 5]);
    expect(r.steps[0]['response_length/mean']).toBe(412.5);
    expect(r.steps[0]['perf/step_s']).toBe(30);
    expect((r.steps[1] as Record<string, number>)['critic/rewards/min']).toBe(-1);
    expect(r.steps[1]['critic/score/mean']).toBe(0.281);
  });

  it('a line cut inside a key with a record on the next line is still one warning', () => {
    expect(r.warnings.map(warningText)).toEqual([`${name}:6: expected key:value, got "critic/score/me"`]);
  });

  it('a cut key at the end of the file is a warning, not lost silently', () => {
    const t = importVerlRun([{ name: 'e.log', text: 'step:1 - a:1\nstep:2 - a:2 - b/c' }]);
    expect(t.warnings.map(warningText)).toEqual(['e.log:2: expected key:value, got "b/c"']);
    expect(t.steps.map((s) => s.step)).toEqual([1]);
  });

  it('a continuation that does not parse is not glued on', () => {
    const t = importVerlRun([{ name: 'n.log', text: 'step:1 - a:1 - b/c\nTraining Progress: 17%|#6 | 1/6\nstep:2 - a:2\n' }]);
    expect(t.warnings.map(warningText)).toEqual(['n.log:1: expected key:value, got "b/c"']);
    expect(t.steps.map((s) => s.step)).toEqual([2]);
  });
});
