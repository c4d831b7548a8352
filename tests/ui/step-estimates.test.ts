/** Measured s/step kept across reloads (lib/step-estimates.ts, controller/rungs.ts keep): stored, read back, never trusted blindly. */
import { describe, expect, it } from 'vitest';
import { rungControl } from '../../src/ui/controller/rungs';
import { stepEstimateKey } from '../../src/ui/lib/rungs';
import { mergeStoredEstimates, parseStepEstimates, STEP_ESTIMATES_KEY, stepEstimatesText } from '../../src/ui/lib/step-estimates';
import { createLabStore } from '../../src/ui/store';
import type { EngineSummary, ToWorker } from '../../src/worker/protocol';

const engine: EngineSummary = { backend: 'wasm', choice: 'auto', description: 'CPU engine (test)', threads: 1, adapter: null, cpuBound: true, limits: null };

class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem = (k: string) => this.items.get(k) ?? null;
  setItem = (k: string, v: string) => void this.items.set(k, v);
  removeItem = (k: string) => void this.items.delete(k);
}

describe('stored step estimates', () => {
  it('round-trip the ready figures only; bad entries and bad text are dropped', () => {
    const text = stepEstimatesText({
      'CPU engine (test)|small': { status: 'ready', seconds: 3.7, engine: 'CPU engine (test)', measuredSteps: 12 },
      'CPU engine (test)|tiny': { status: 'ready', seconds: 0.2, engine: 'CPU engine (test)' },
      'CPU engine (test)|medium': { status: 'measuring' },
      'GPU|tiny': { status: 'error', message: 'x' },
    });
    expect(parseStepEstimates(text)).toEqual({
      'CPU engine (test)|small': { status: 'ready', seconds: 3.7, engine: 'CPU engine (test)', measuredSteps: 12 },
      'CPU engine (test)|tiny': { status: 'ready', seconds: 0.2, engine: 'CPU engine (test)' },
    });
    expect(parseStepEstimates(null)).toEqual({});
    expect(parseStepEstimates('not json')).toEqual({});
    expect(parseStepEstimates('[1,2]')).toEqual({});
    expect(
      parseStepEstimates(JSON.stringify({ 'e|tiny': { seconds: -1, engine: 'e' }, 'e|small': { seconds: 1, engine: '' }, 'e|medium': { seconds: 2, engine: 'e', measuredSteps: 1.5 }, nobar: { seconds: 1, engine: 'e' }, 'e|x': { seconds: 5, engine: 'e' } })),
    ).toEqual({ 'e|x': { status: 'ready', seconds: 5, engine: 'e' } });
  });

  it('a figure measured this session wins over a stored one; a stored one fills a missing or failed key', () => {
    const stored = { 'e|tiny': { status: 'ready', seconds: 9, engine: 'e' }, 'e|small': { status: 'ready', seconds: 4, engine: 'e' }, 'e|medium': { status: 'ready', seconds: 17, engine: 'e' } } as const;
    const merged = mergeStoredEstimates({ 'e|tiny': { status: 'ready', seconds: 1, engine: 'e' }, 'e|small': { status: 'error', message: 'x' } }, stored);
    expect(merged).toEqual({ 'e|tiny': { status: 'ready', seconds: 1, engine: 'e' }, 'e|small': stored['e|small'], 'e|medium': stored['e|medium'] });
  });

  it('a figure measured in one page is there after a reload, and the reloaded page does not time that rung again', () => {
    const storage = new MemoryStorage();
    const key = stepEstimateKey('CPU engine (test)', 'small');
    {
      const s = createLabStore();
      const c = rungControl(s, () => {});
      c.keep(storage);
      s.getState().setDevice({ status: 'ready', engine });
      c.measure('small');
      expect(storage.items.get(STEP_ESTIMATES_KEY) ?? '{}').toBe('{}'); // measuring is not a figure
      c.onMessage({ type: 'step-estimate', key, engine: 'CPU engine (test)', seconds: 4.4 });
    }
    expect(JSON.parse(storage.items.get(STEP_ESTIMATES_KEY)!)).toEqual({ [key]: { seconds: 4.4, engine: 'CPU engine (test)' } });
    // The reload: a new store and controller over the same storage.
    const s = createLabStore();
    const sent: ToWorker[] = [];
    const c = rungControl(s, (m) => sent.push(m));
    c.keep(storage);
    expect(s.getState().stepEstimates[key]).toEqual({ status: 'ready', seconds: 4.4, engine: 'CPU engine (test)' });
    s.getState().setDevice({ status: 'ready', engine });
    c.measure('small');
    expect(sent).toEqual([]);
  });

  it('storage that throws loses only the memory', () => {
    const bad = { getItem: () => { throw new Error('denied'); }, setItem: () => { throw new Error('quota'); }, removeItem: () => {} };
    const s = createLabStore();
    const c = rungControl(s, () => {});
    expect(() => c.keep(bad)).not.toThrow();
    s.getState().setStepEstimate('e|tiny', { status: 'ready', seconds: 1, engine: 'e' });
    expect(s.getState().stepEstimates['e|tiny']).toEqual({ status: 'ready', seconds: 1, engine: 'e' });
  });
});
