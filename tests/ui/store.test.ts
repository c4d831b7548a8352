import { describe, expect, it } from 'vitest';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { CONFIG_FIELDS, getPath, setPath } from '../../src/ui/lib/fields';
import { createLabStore } from '../../src/ui/store';
import { fakeRun, fakeStep } from './helpers';

describe('config slice', () => {
  it('starts on the magic preset and switches presets', () => {
    const s = createLabStore();
    expect(s.getState().preset).toBe('magic');
    expect(s.getState().draft).toEqual(getPreset('magic'));
    s.getState().setPreset('grpo-tiny');
    expect(s.getState().draft).toEqual(getPreset('grpo-tiny'));
  });
  it('edits a field by path without touching the preset, and reports the first invalid field', () => {
    const s = createLabStore('magic-tiny');
    s.getState().setField('loss.epsHigh', 0.28);
    expect(s.getState().draft.loss.epsHigh).toBe(0.28);
    expect(s.getState().configError).toBeNull();
    expect(getPreset('magic-tiny').loss.epsHigh).toBe(0.2);
    s.getState().setField('loss.epsLow', NaN);
    expect(s.getState().configError).toMatch(/loss\.epsLow/);
    s.getState().setField('loss.epsLow', 0.2);
    expect(s.getState().configError).toBeNull();
  });
  it('validates stage edits', () => {
    const s = createLabStore('magic-tiny');
    const st = s.getState().draft.stages;
    s.getState().setDraftStages([...st, { ...st[1], maxResponseLength: 999 }]);
    expect(s.getState().configError).toMatch(/stages\[2\]\.maxResponseLength/);
  });
});

describe('runs slice', () => {
  it('adds, appends in batches (no duplicate steps), evaluates, renames, deletes', () => {
    const s = createLabStore();
    const st = () => s.getState();
    st().addRun({ ...fakeRun('a', 0) }, { activate: true });
    expect(st().activeRunId).toBe('a');
    st().appendSteps('a', [fakeStep(1), fakeStep(2)]);
    st().appendSteps('a', [fakeStep(2), fakeStep(3)]);
    expect(st().runs.a.steps.map((x) => x.step)).toEqual([1, 2, 3]);
    st().addEval('a', { step: 2, 'val/avg@2/t1.0': 0.5 } as never);
    st().addEval('a', { step: 2, 'val/avg@2/t1.0': 0.75 } as never);
    expect(st().runs.a.evals.filter((e) => e.step === 2)).toHaveLength(2 - 1);
    st().renameRun('a', '  my run ');
    expect(st().runs.a.name).toBe('my run');
    st().renameRun('a', '   ');
    expect(st().runs.a.name).toBe('my run');
    st().truncateRun('a', 1);
    expect(st().runs.a.steps.map((x) => x.step)).toEqual([1]);
    expect(st().runs.a.evals).toHaveLength(0);
    st().addRun(fakeRun('b'));
    st().toggleOverlay('b');
    expect(st().overlay).toEqual(['b']);
    st().deleteRun('b');
    expect(st().overlay).toEqual([]);
    expect(st().order).toEqual(['a']);
    st().deleteRun('a');
    expect(st().activeRunId).toBeNull();
  });
  it('making a run active removes it from the overlay; overlay toggles', () => {
    const s = createLabStore();
    s.getState().addRun(fakeRun('a'));
    s.getState().addRun(fakeRun('b'));
    s.getState().toggleOverlay('a');
    s.getState().toggleOverlay('b');
    s.getState().toggleOverlay('b');
    expect(s.getState().overlay).toEqual(['a']);
    s.getState().setActiveRun('a');
    expect(s.getState().overlay).toEqual([]);
  });
  it('live edits of stages update the run config', () => {
    const s = createLabStore();
    s.getState().addRun(fakeRun('a'));
    const stages = [...s.getState().runs.a.config.stages, { maxResponseLength: 16, steps: 3, convergence: null, batchPrompts: null, groupSize: null, temperature: null }];
    s.getState().setRunStages('a', stages);
    expect(s.getState().runs.a.config.stages).toHaveLength(3);
  });
});

describe('ui and live slices', () => {
  it('clamps smoothing and toggles log scales', () => {
    const s = createLabStore();
    s.getState().setSmoothing(2);
    expect(s.getState().smoothing).toBe(0.99);
    s.getState().toggleLog('entropy');
    expect(s.getState().logScale.entropy).toBe(true);
    s.getState().setLiveState({ runId: 'a', state: 'running', step: 3, stage: 1 });
    expect(s.getState()).toMatchObject({ runState: 'running', step: 3, stage: 1, liveRunId: 'a' });
  });
});

describe('config field metadata', () => {
  it('covers every RunConfig leaf except the stage schedule (its own editor)', () => {
    const leaves: string[] = [];
    const walk = (v: unknown, p: string) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) for (const [k, x] of Object.entries(v)) walk(x, p ? `${p}.${k}` : k);
      else leaves.push(p);
    };
    walk(getPreset('magic'), '');
    const covered = new Set(CONFIG_FIELDS.map((f) => f.path));
    expect(leaves.filter((l) => l !== 'stages' && !covered.has(l))).toEqual([]);
    for (const f of CONFIG_FIELDS) {
      expect(getPath(getPreset('magic'), f.path), f.path).not.toBeUndefined();
      expect(f.help.length, f.path).toBeGreaterThan(5);
    }
  });
  it("an input's own bounds are values the config accepts for that field", () => {
    // The panel's min/max must not offer a value the validator then rejects (or describe a
    // range the validator does not have); other fields' cross-checks may still object.
    const magic = getPreset('magic');
    // C must stay a multiple of H: the width's bounds are tried with one head.
    const alongside: Record<string, [string, number]> = { 'model.dModel': ['model.nHeads', 1] };
    const rejectsOwnField = (path: string, value: number): string | null => {
      try {
        const other = alongside[path];
        validateRunConfig(setPath(other ? setPath(magic, other[0], other[1]) : magic, path, value));
        return null;
      } catch (e) {
        const field = (e as { field?: string }).field;
        return field === path ? (e as Error).message : null;
      }
    };
    let checked = 0;
    for (const f of CONFIG_FIELDS) {
      if (f.input.kind !== 'int' && f.input.kind !== 'number') continue;
      for (const bound of [f.input.min, f.input.max]) {
        if (bound === undefined) continue;
        expect(rejectsOwnField(f.path, bound), `${f.path} = ${bound}`).toBeNull();
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
  it('setPath copies structurally', () => {
    const a = { x: { y: 1, z: 2 }, w: 3 };
    const b = setPath(a, 'x.y', 5);
    expect(b).toEqual({ x: { y: 5, z: 2 }, w: 3 });
    expect(a.x.y).toBe(1);
  });
});

describe('references slice', () => {
  it('index and files by name, the overlaid reference, the view and the queue', () => {
    const s = createLabStore('magic-tiny');
    const st = () => s.getState();
    expect(st().referenceIndex).toEqual({ status: 'loading' });
    expect(st().view).toBe('training');
    st().setReferenceIndex({ status: 'error', message: 'reference/index.json: not found (HTTP 404)' });
    expect(st().referenceIndex).toEqual({ status: 'error', message: 'reference/index.json: not found (HTTP 404)' });
    st().setReferenceFile('a', { status: 'loading' });
    st().setReferenceFile('b', { status: 'error', message: 'reference/b.json: x' });
    expect(Object.keys(st().referenceFiles)).toEqual(['a', 'b']);
    st().setOverlayReference('a');
    st().toggleReferenceSeeds();
    expect([st().overlayReference, st().referenceSeeds]).toEqual(['a', true]);
    st().setView('findings');
    st().selectFinding('b');
    expect([st().view, st().selectedFinding]).toEqual(['findings', 'b']);
    expect(st().queue).toBeNull();
  });
});
