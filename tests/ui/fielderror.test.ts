import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/config';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { errorField, errorIsIn, errorTarget, STAGE_INPUTS, stageErrorAt } from '../../src/ui/lib/fielderror';
import { setPath } from '../../src/ui/lib/fields';
import { createLabStore } from '../../src/ui/store';

describe('a config error is shown at its field', () => {
  it('maps an error field to the control that edits it', () => {
    expect(errorIsIn('data.trainSize', 'data.trainSize')).toBe(true);
    expect(errorIsIn('eval.temperatures[1]', 'eval.temperatures')).toBe(true);
    expect(errorIsIn('data.trainSizeX', 'data.trainSize')).toBe(false);
    expect(errorIsIn(null, 'seed')).toBe(false);
    expect(errorTarget('loss.entropy.target')).toBe('loss.entropy.target');
    expect(errorTarget('eval.temperatures[0]')).toBe('eval.temperatures');
    expect(errorTarget('stages[2].convergence.window')).toBe('stages');
    expect(errorTarget('stages')).toBe('stages');
    expect(errorTarget('config')).toBeNull();
    expect(errorTarget(null)).toBeNull();
    expect(stageErrorAt('stages[2].convergence.window')).toEqual({ index: 2, key: 'convergence.window' });
    expect(stageErrorAt('stages[0]')).toEqual({ index: 0, key: '' });
    expect(stageErrorAt('data.trainSize')).toBeNull();
  });

  it("the validator's error fields for edits in the page land on a control", () => {
    const base = getPreset('magic-tiny');
    const bad: [string, unknown][] = [
      ['loss.epsLow', -1],
      ['data.trainSize', 0],
      ['eval.temperatures', [1, NaN]],
      ['stages', [{ ...base.stages[0], maxResponseLength: 1000 }]],
      ['model.dModel', 31],
    ];
    for (const [path, value] of bad) {
      let field: string | null = null;
      try {
        validateRunConfig(setPath(base, path, value));
      } catch (e) {
        field = (e as ConfigError).field;
        expect(errorField((e as Error).message)).toBe(field);
      }
      expect(field, path).not.toBeNull();
      expect(errorTarget(field), `${path} → ${field}`).not.toBeNull();
      const st = stageErrorAt(field);
      if (st?.key) expect(STAGE_INPUTS[st.key.replace(/\[\d+\]$/, '')], field!).toBeDefined();
    }
  });

  it("reads the field from the store's error message", () => {
    const s = createLabStore('magic-tiny');
    s.getState().setField('loss.epsLow', -1);
    expect(errorField(s.getState().configError)).toBe('loss.epsLow');
    expect(errorField('stages[1].convergence.window: must be an integer')).toBe('stages[1].convergence.window');
    expect(errorField('something else went wrong')).toBeNull();
    expect(errorField(null)).toBeNull();
  });
});
