// @vitest-environment jsdom
/**
 * The chart grid renders a chart only when what it draws changed (issue #28 item 5): store updates
 * elsewhere (samples, the step counter, another run's metrics, a run's note or checkpoint) render
 * no chart; a new evaluation renders only the charts with held-out series; a new step renders the
 * step charts. Counted by each chart's data-renders (MetricChart: one per render of the component).
 */
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Charts } from '../../src/ui/components/Charts';
import { chartSpecs } from '../../src/ui/lib/chartdata';
import { useLab } from '../../src/ui/store';
import { MAX_REDRAW_MS } from '../../src/ui/lib/stagger';
import type { EvalRecord } from '../../src/rl/trainer-types';
import { fakeRun, fakeStep } from './helpers';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root;
let host: HTMLElement;
const renders = (): Record<string, number> =>
  Object.fromEntries([...host.querySelectorAll('figure[data-testid^="chart-"]')].map((f) => [f.getAttribute('data-testid')!.slice(6), Number(f.getAttribute('data-renders'))]));
/**
 * Waits until no chart has rendered for longer than the longest redraw interval (staggered updates
 * land by timers; under load, as in CI on two busy cores, the measured render costs stretch the shared
 * budget's interval up to MAX_REDRAW_MS, so a shorter quiet window can end before a due redraw).
 */
async function settled(): Promise<void> {
  let last = JSON.stringify(renders());
  for (let i = 0; i < 8; i++) {
    await act(() => new Promise<void>((r) => setTimeout(r, MAX_REDRAW_MS + 1000)));
    const now = JSON.stringify(renders());
    if (now === last) return;
    last = now;
  }
  throw new Error('charts kept rendering');
}
const changed = (before: Record<string, number>, after: Record<string, number>) => Object.keys(after).filter((id) => after[id] !== before[id]).sort();

beforeAll(async () => {
  const s = useLab.getState();
  s.addRun(fakeRun('a', 6), { activate: true });
  s.addRun(fakeRun('b', 6));
  host = document.createElement('div');
  document.body.appendChild(host);
  root = createRoot(host);
  await act(async () => root.render(<Charts />));
});
afterAll(() => act(() => root.unmount()));

describe('chart re-renders (Charts, MetricChart)', () => {
  it('renders every chart at mount', () => {
    const ids = chartSpecs(useLab.getState().runs.a.config).map((s) => s.id);
    const r = renders();
    expect(Object.keys(r).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(r[id]).toBeGreaterThan(0);
  });

  it('renders no chart on store updates that change nothing a chart draws', async () => {
    const s = useLab.getState();
    // A run training (a chart's frame spans its schedule then): set before counting.
    await act(async () => s.setLiveState({ runId: 'a', state: 'running', step: 6, stage: 1 }));
    // The run state travels with each chart's staggered data (its frame spans the schedule from then on):
    // those redraws land one redraw interval later, each in its own task, and are not what is counted here.
    await settled();
    const before = renders();
    for (let i = 0; i < 5; i++) {
      await act(async () => {
        s.setSamples('a', 6 + i, []);
        s.setLiveState({ runId: 'a', state: 'running', step: 6 + i, stage: 1 });
        s.appendSteps('b', [fakeStep(7 + i, 1)]);
        s.patchRun('a', { note: `note ${i}`, checkpointStep: 6 + i });
        s.setNotice(`notice ${i}`);
      });
    }
    expect(useLab.getState().runs.b.steps).toHaveLength(11);
    expect(changed(before, renders())).toEqual([]);
  });

  it('renders only the charts with held-out series on a new evaluation', async () => {
    const before = renders();
    const record = { step: 6, 'val/avg@2/t1.0': 0.5, 'val/pass@2/t1.0': 0.75, 'val/avg@2/t0.6': 0.25, 'val/pass@2/t0.6': 0.5 } as EvalRecord;
    await act(async () => useLab.getState().addEval('a', record));
    const withEval = chartSpecs(useLab.getState().runs.a.config).filter((c) => c.allHeldOut || c.series.some((x) => x.source === 'eval')).map((c) => c.id);
    expect(withEval).toEqual(['reward']);
    expect(changed(before, renders())).toEqual(withEval);
  });

  it('renders the step charts on a new step of the drawn run', async () => {
    const before = renders();
    await act(async () => useLab.getState().appendSteps('a', [fakeStep(7, 1)]));
    const after = renders();
    expect(changed(before, after)).toEqual(Object.keys(after).sort());
  });

  it('a run that stops changes its charts\' frames through the stagger, not in the task that stopped it', async () => {
    const frames = (): Record<string, number> =>
      Object.fromEntries([...host.querySelectorAll('figure[data-testid^="chart-"]')].map((f) => [f.getAttribute('data-testid')!.slice(6), Number(f.getAttribute('data-frame-renders'))]));
    const s = useLab.getState();
    // A 100-step schedule (magic-tiny's is 4 steps, fewer than the run has): while it trains the step axis spans 0–100.
    const config = s.runs.a.config;
    await act(async () => s.patchRun('a', { config: { ...config, stages: config.stages.map((st) => ({ ...st, steps: 50 })) } }));
    await act(async () => s.setLiveState({ runId: 'a', state: 'running', step: 7, stage: 1 }));
    await settled();
    const before = frames();
    expect(JSON.parse(host.querySelector('figure[data-testid="chart-entropy"]')!.getAttribute('data-frame')!).x).toEqual([0, 100]);
    // Stopped at step 7 of its schedule: the step axis goes from the schedule to the data.
    await act(async () => s.setLiveState({ runId: 'a', state: 'idle', step: 7, stage: 1 }));
    expect(changed(before, frames())).toEqual([]);
    await settled();
    const after = frames();
    expect(changed(before, after).length).toBeGreaterThanOrEqual(3);
    expect(JSON.parse(host.querySelector('figure[data-testid="chart-entropy"]')!.getAttribute('data-frame')!).x).not.toEqual([0, 100]);
  });
});
