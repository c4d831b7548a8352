// @vitest-environment jsdom
/**
 * useChartFrame's left y axis: held while a run trains (a new point inside it redraws no axis), fitted
 * to the data afresh once the run stops — so a finished run's axes do not depend on which points had
 * arrived at each redraw (the machine's speed), and its screenshots are the same everywhere.
 */
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, expect, it } from 'vitest';
import type { LineSpec } from '../../src/ui/components/CanvasSeries';
import { chartFrame } from '../../src/ui/components/CanvasSeries';
import { useChartFrame } from '../../src/ui/components/useChartFrame';
import type { Domain, Row } from '../../src/ui/lib/canvas-plot';
import type { RefSeries } from '../../src/ui/lib/refchart';
import { fakeRun } from './helpers';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const lines: LineSpec[] = [{ key: '0|g', right: false, colour: '#000', dash: '', dot: false, stack: 's0' }];
const runs = [fakeRun('a', 4)];
// The same arrays on every render: a new lines or refs array starts the frame afresh.
const refs: RefSeries[] = [];
let seen: Domain | null = null;

function Probe({ rows, training }: { rows: readonly Row[]; training: boolean }) {
  seen = useChartFrame({ rows, lines, refs, seeds: false, log: false, stacked: false, runs, smoothing: 0, fitY: false, entropyTarget: null, training }).left;
  return null;
}

let root: Root | null = null;
afterEach(() => {
  if (root) act(() => root!.unmount());
  root = null;
});

it('holds the left axis while training, and fits it to the data once the run stops', async () => {
  const host = document.createElement('div');
  root = createRoot(host);
  const points = [2.74, 2.66, 3.05, 4.1];
  const rows = points.map((g, i) => ({ step: i + 1, '0|g': g }));
  // Points arriving one by one while the run trains: the first ones' axis holds while the rest fit, then
  // grows by a generous step when the last leaves it.
  const heldAlong: Domain[] = [];
  for (let n = 1; n <= rows.length; n++) {
    await act(async () => root!.render(<Probe rows={rows.slice(0, n)} training />));
    heldAlong.push(seen!);
  }
  const fresh = chartFrame(rows, lines, [], false, false, false).left;
  // The held axis is not what all four would choose: the premise of this test.
  expect(heldAlong[2]).toEqual(heldAlong[0]);
  expect(heldAlong[3]).not.toEqual(fresh);
  // Stopped: the same rows get the axis they would get arriving all at once.
  await act(async () => root!.render(<Probe rows={rows} training={false} />));
  expect(seen).toEqual(fresh);
  // And a run that arrived all at once while training gets that axis too.
  await act(async () => root!.render(<Probe rows={[]} training />));
  await act(async () => root!.render(<Probe rows={rows} training />));
  expect(seen).toEqual(fresh);
});

it('a chart showing only reference curves (a fresh page in reference mode) fits them, on the steps a live run spans', async () => {
  const host = document.createElement('div');
  root = createRoot(host);
  // Entropy-like values (~1.77 nats) logged from step 10 to 400: no live run's column has a value.
  const steps = Array.from({ length: 40 }, (_, i) => 10 * (i + 1));
  const mean = steps.map((s) => 1.77 - s / 1000);
  const curve = { steps, mean, lower: mean.map((m) => m - 0.05), upper: mean.map((m) => m + 0.05), seeds: {} };
  const ref: RefSeries = { id: 'ref0|g', preset: 'magic', seriesKey: 'g', seriesLabel: 'entropy', right: false, colour: '#000', dash: '', metric: 'actor/entropy', curve, seeds: [] };
  const refRows = steps.map((step, j) => ({ step, 'ref0|g|mean': mean[j], 'ref0|g|band': [curve.lower[j], curve.upper[j]] as unknown as number }));
  const refsHere = [ref];
  let frame: { x: Domain; left: Domain } | null = null;
  function RefProbe() {
    frame = useChartFrame({ rows: refRows, lines, refs: refsHere, seeds: false, log: false, stacked: false, runs: [], smoothing: 0, fitY: false, entropyTarget: null, training: false });
    return null;
  }
  await act(async () => root!.render(<RefProbe />));
  // Not the empty chart's 0–1: the 1.82-nat top of the band lies inside.
  expect(frame!.left[0]).toBe(0);
  expect(frame!.left[1]).toBeGreaterThanOrEqual(1.82);
  expect(frame!.left[1]).toBeLessThan(4);
  // 0 to the reference's last step, as a 400-step live run's axis (not a rounded 10–410).
  expect(frame!.x).toEqual([0, 400]);
});
