/** The rung selector's logic: the store's rung, the URL's rung=, the selector's figures, the rung controller, each rung's base. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_RUN_CONFIG, getPreset, modelParameterCount, validateRunConfig } from '../../src/rl/config';
import { rungControl } from '../../src/ui/controller/rungs';
import { syncUrl } from '../../src/ui/controller/url-sync';
import { baseCheckpointUrl, canMeasure, describeEstimate, formatParams, presetAtRung, rungFitError, rungRows, stepEstimateKey, twinNote } from '../../src/ui/lib/rungs';
import { setupFromUrl, urlSearchFor } from '../../src/ui/lib/url';
import { createLabStore } from '../../src/ui/store';
import type { EngineSummary, ToWorker } from '../../src/worker/protocol';

const engine = (limits: EngineSummary['limits'] = null): EngineSummary => ({ backend: 'wasm', choice: 'auto', description: 'CPU engine (test)', threads: 1, adapter: null, cpuBound: true, limits });
const host = { heapBytes: 2 ** 31, heapSource: 'test', memoryBytes: Infinity, memorySource: 'unknown' };

describe('the store keeps the rung', () => {
  it('starts on tiny; picking a rung loads the current preset at it, and picking a preset keeps the rung', () => {
    const s = createLabStore();
    expect(s.getState().rung).toBe('tiny');
    s.getState().setRung('small');
    expect(s.getState().rung).toBe('small');
    expect(s.getState().draft).toEqual(getPreset('magic', 'small'));
    s.getState().setPreset('grpo');
    expect(s.getState().draft).toEqual(getPreset('grpo', 'small'));
    s.getState().setRung('tiny');
    expect(s.getState().draft).toEqual(getPreset('grpo'));
  });

  it('a -tiny test twin goes to its full-size preset at another rung, and back to the tiny rung when picked', () => {
    const s = createLabStore('magic-tiny');
    s.getState().setRung('small');
    expect(s.getState().preset).toBe('magic');
    s.getState().setPreset('grpo-tiny');
    expect(s.getState().rung).toBe('tiny');
    expect(s.getState().draft).toEqual(getPreset('grpo-tiny'));
  });

  it("the config check refuses a rung that does not fit the engine, naming the field to lower; the tiny rung's check is as before", () => {
    const s = createLabStore();
    s.getState().setDevice({ status: 'ready', engine: engine({ engine: 'wasm', memoryBytes: 512 * 2 ** 20, threads: 1 }) });
    s.getState().setRung('medium');
    expect(s.getState().rung).toBe('medium');
    expect(s.getState().configError).toMatch(/^rollout\.batchPrompts: the CPU engine would need .* its WebAssembly memory holds at most 512 MiB( — .*)?$/);
    s.getState().setField('rollout.batchPrompts', 1);
    s.getState().setField('rollout.groupSize', 2);
    expect(s.getState().configError).toBeNull();
    // Tiny: the engine's limits are the Worker's check at start, as before this selector (e2e/resources.spec.ts).
    s.getState().setRung('tiny');
    s.getState().setField('model.nLayers', 64);
    expect(s.getState().configError).toBeNull();
  });

  it('a link opened at a rung too big for the engine is refused once the engine is known', () => {
    const s = createLabStore();
    s.getState().loadSetup('magic', getPreset('magic', 'medium'), null, 'medium');
    expect(s.getState().configError).toBeNull();
    s.getState().setDevice({ status: 'ready', engine: engine({ engine: 'wasm', memoryBytes: 512 * 2 ** 20, threads: 1 }) });
    expect(s.getState().configError).toMatch(/WebAssembly memory holds at most 512 MiB/);
  });

  it('loadSetup takes the rung given, else the rung of the config\'s model', () => {
    const s = createLabStore();
    s.getState().loadSetup('magic', getPreset('magic', 'medium'));
    expect(s.getState().rung).toBe('medium');
    s.getState().loadSetup('magic-tiny', getPreset('magic-tiny'));
    expect(s.getState().rung).toBe('tiny');
  });
});

describe('rung= in the URL', () => {
  it('round-trips a rung; old links without it open on tiny', () => {
    const search = urlSearchFor(getPreset('grpo', 'small'), 'grpo', '?teacher=1&hide=config', 'small');
    expect(search).toBe('?preset=grpo&rung=small&teacher=1&hide=config');
    const back = setupFromUrl(search);
    expect(back).toEqual({ preset: 'grpo', rung: 'small', config: getPreset('grpo', 'small'), error: null });
    expect(setupFromUrl('?preset=magic&loss.epsHigh=0.28').rung).toBe('tiny');
    expect(setupFromUrl('?preset=magic').config).toEqual(getPreset('magic'));
  });

  it('an unknown rung is the one clear link error, on the tiny rung, the preset kept', () => {
    const back = setupFromUrl('?preset=grpo&rung=huge');
    expect(back.rung).toBe('tiny');
    expect(back.preset).toBe('grpo');
    expect(back.config).toEqual(getPreset('grpo'));
    expect(back.error).toBe("This link's rung=huge (no such rung; rungs: tiny, small, medium) was left out; every other value is kept.");
  });

  it("the page's address follows the store's rung", () => {
    const s = createLabStore();
    const seen: string[] = [];
    const loc = { pathname: '/', search: '', hash: '' };
    syncUrl(s, loc, { replaceState: (_d, _u, url) => seen.push(url) });
    s.getState().setRung('small');
    s.getState().setField('seed', 9);
    expect(seen.at(-1)).toBe('/?preset=magic&rung=small&seed=9');
  });
});

describe("the selector's figures", () => {
  it('parameters, memory and fit per rung, for the current preset', () => {
    const rows = rungRows('magic', engine(), host);
    expect(rows.map((r) => r.rung)).toEqual(['tiny', 'small', 'medium']);
    expect(rows[1].params).toBe(modelParameterCount(getPreset('magic', 'small').model));
    expect(formatParams(rows[1].params)).toMatch(/^0\.8\d?M$/);
    expect(rows[0].memoryBytes).toBeLessThan(rows[1].memoryBytes);
    expect(rows[1].memoryBytes).toBeLessThan(rows[2].memoryBytes);
    expect(rows.every((r) => r.fitError === null)).toBe(true);
    // The -tiny twins are read at their full-size preset off the tiny rung.
    expect(rungRows('magic-tiny', engine(), host)[1].params).toBe(rows[1].params);
    expect(presetAtRung('grpo-tiny', 'tiny')).toBe('grpo-tiny');
  });

  it("a row shows the rung's own model; a -tiny test twin is named on the tiny row (issue #23)", () => {
    const full = rungRows('magic', engine(), host);
    const twin = rungRows('magic-tiny', engine(), host);
    // The tiny row reads the tiny rung (~106K), not the 5K test twin the preset trains.
    expect(twin[0].params).toBe(modelParameterCount(getPreset('magic', 'tiny').model));
    expect(formatParams(twin[0].params)).toBe(formatParams(full[0].params));
    expect(twin[0].params).toBeGreaterThan(50_000);
    expect(twin[0].memoryBytes).toBe(full[0].memoryBytes);
    const tinyTwin = modelParameterCount(getPreset('magic-tiny').model);
    expect(tinyTwin).toBeLessThan(20_000);
    expect(twin[0].twin).toEqual({ preset: 'magic-tiny', params: tinyTwin });
    expect(twinNote(twin[0].twin!)).toBe(`now: the ${formatParams(tinyTwin)} test twin magic-tiny`);
    // Off the tiny rung the twin is not trained (the full-size preset is), and a full-size preset has none.
    expect(twin.slice(1).map((r) => r.twin)).toEqual([null, null]);
    expect(full.map((r) => r.twin)).toEqual([null, null, null]);
    expect(rungRows('grpo-tiny', engine(), host)[0].twin?.preset).toBe('grpo-tiny');
  });

  it('formats parameter counts and speeds', () => {
    expect(formatParams(106_000)).toBe('106K');
    expect(formatParams(820_000)).toBe('0.82M');
    expect(formatParams(4_200_000)).toBe('4.2M');
    expect(formatParams(12_400_000)).toBe('12M');
    expect(describeEstimate(undefined)).toBe('not measured');
    expect(describeEstimate({ status: 'measuring' })).toBe('measuring…');
    expect(describeEstimate({ status: 'ready', seconds: 2.43, engine: 'CPU engine' })).toBe('~2.4 s/step on CPU engine');
    expect(describeEstimate({ status: 'ready', seconds: 0.123, engine: 'X' })).toBe('~0.12 s/step on X');
  });

  it('offers "measure" on a row never timed or whose timing failed, not while one is in flight or done', () => {
    expect(canMeasure(undefined)).toBe(true);
    expect(canMeasure({ status: 'error', message: 'the engine was restarted' })).toBe(true);
    expect(canMeasure({ status: 'measuring' })).toBe(false);
    expect(canMeasure({ status: 'ready', seconds: 1, engine: 'X' })).toBe(false);
  });

  it('a rung beyond a WebGPU buffer limit does not fit', () => {
    const gpu = { engine: 'webgpu' as const, maxStorageBufferBindingSize: 2 ** 20, maxBufferSize: 2 ** 20, software: false };
    expect(rungFitError(getPreset('magic', 'medium'), gpu, host)).toMatch(/the largest GPU buffer would be .*this adapter's maxStorageBufferBindingSize is 1 MiB/);
    expect(rungFitError(getPreset('magic'), null, host)).toBeNull();
  });

  it("each rung's base checkpoint; tiny and hand-made shapes as before", () => {
    expect(baseCheckpointUrl(getPreset('magic'), 'magic', '/lab/')).toBe('/lab/checkpoints/base.mlck');
    expect(baseCheckpointUrl(getPreset('magic-tiny'), 'magic-tiny', './')).toBe('./checkpoints/base-tiny.mlck');
    expect(baseCheckpointUrl(validateRunConfig({ model: { dModel: 32 } }, DEFAULT_RUN_CONFIG), 'magic', '/')).toBe('/checkpoints/base.mlck');
    expect(baseCheckpointUrl(getPreset('grpo', 'small'), 'grpo', '/')).toBe('/checkpoints/base-small.mlck');
    expect(baseCheckpointUrl(getPreset('magic', 'medium'), 'magic', '/')).toBe('/checkpoints/base-medium.mlck');
  });
});

describe('the rung controller', () => {
  it("measures a picked rung once per engine, shows 'measuring…' until the Worker answers, and measures again after a restart", () => {
    const s = createLabStore();
    const sent: ToWorker[] = [];
    const c = rungControl(s, (m) => sent.push(m));
    c.pick('small');
    expect(sent).toEqual([]); // no engine yet
    s.getState().setDevice({ status: 'ready', engine: engine() });
    c.pick('small');
    const key = stepEstimateKey('CPU engine (test)', 'small');
    expect(sent).toEqual([{ type: 'measure-step', key, config: getPreset('magic', 'small') }]);
    expect(s.getState().stepEstimates[key]).toEqual({ status: 'measuring' });
    c.pick('small');
    expect(sent).toHaveLength(1);
    c.forgetPending();
    expect(s.getState().stepEstimates[key]).toEqual({ status: 'error', message: 'the engine was restarted' });
    c.measure('small');
    expect(sent).toHaveLength(2);
    c.onMessage({ type: 'step-estimate', key, engine: 'CPU engine (test)', seconds: 1.5 });
    expect(describeEstimate(s.getState().stepEstimates[key])).toBe('~1.5 s/step on CPU engine (test)');
    c.measure('small');
    expect(sent).toHaveLength(2); // cached for the session
  });

  it('measures a row without picking it: the draft and rung stay, the tiny rung the page opens on included', () => {
    const s = createLabStore();
    const sent: ToWorker[] = [];
    const c = rungControl(s, (m) => sent.push(m));
    s.getState().setDevice({ status: 'ready', engine: engine() });
    const draft = s.getState().draft;
    c.measure('tiny');
    c.measure('medium');
    expect(sent).toEqual([
      { type: 'measure-step', key: stepEstimateKey('CPU engine (test)', 'tiny'), config: getPreset('magic', 'tiny') },
      { type: 'measure-step', key: stepEstimateKey('CPU engine (test)', 'medium'), config: getPreset('magic', 'medium') },
    ]);
    expect(s.getState().rung).toBe('tiny');
    expect(s.getState().draft).toBe(draft);
  });

  it("tracks an on-demand base's download until it is complete", () => {
    const s = createLabStore();
    const c = rungControl(s, () => undefined);
    c.onMessage({ type: 'base-progress', runId: 'r', loaded: 10, total: 100 });
    expect(s.getState().baseDownload).toEqual({ loaded: 10, total: 100 });
    c.onMessage({ type: 'base-progress', runId: 'r', loaded: 100, total: 100 });
    expect(s.getState().baseDownload).toBeNull();
  });
});
