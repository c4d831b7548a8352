import { useMemo, useRef } from 'react';
import { fixedRunSteps } from '../../rl/config';
import type { RunData } from '../../io/runfile';
import { onlyZeros } from '../lib/chartdata';
import { fitDomain } from '../lib/findingview';
import { holds, type Domain, type Row } from '../lib/canvas-plot';
import { refBandKey, refMeanKey, type RefSeries } from '../lib/refchart';
import { chartFrame, type Frame, type LineSpec } from './CanvasSeries';

/** The right axis (fractions) is always 0–1. */
const RIGHT_DOMAIN: Domain = [0, 1];
/** A left axis with no value but 0 (e.g. the clip fractions of an on-policy run): 0–1, not recharts' 0–4. */
const Y_DOMAIN_ZERO: Domain = [0, 1];

/** The longest fixed schedule among the runs (lib/canvas-plot.ts scheduleDomain); null when none has one. */
export function plannedSteps(runs: readonly RunData[]): number | null {
  let most: number | null = null;
  for (const r of runs) {
    const n = fixedRunSteps(r.config);
    if (n !== null && (most === null || n > most)) most = n;
  }
  return most;
}

/**
 * The schedule the step axis spans (null: it spans the data): while a run trains or is paused, the
 * longest schedule; afterwards only if the runs' data reaches its end (a finished run keeps the frame
 * it trained in, so its last step redraws no axis; a stopped run or an imported log that plans more
 * steps than it has spans its data).
 */
export function framePlanned(runs: readonly RunData[], training: boolean): number | null {
  const planned = plannedSteps(runs);
  if (planned === null || training) return planned;
  let last = -Infinity;
  for (const r of runs) if (r.steps.length) last = Math.max(last, r.steps[r.steps.length - 1].step);
  return last === planned ? planned : null;
}

interface Args {
  rows: readonly Row[];
  lines: readonly LineSpec[];
  refs: readonly RefSeries[];
  seeds: boolean;
  log: boolean;
  stacked: boolean;
  runs: readonly RunData[];
  smoothing: number;
  /** A findings chart spans its data and its marks (spec.fitY). */
  fitY: boolean;
  entropyTarget: number | null;
  /** A run is training or paused: only then does the step axis span the schedule (a finished or imported run's spans its data). */
  training: boolean;
}

/**
 * The frame a chart shows (x, left and right domains, log): while a run trains (or is paused) x spans the runs'
 * schedule (after, framePlanned: the schedule if the data reached its end, else the data), and the
 * left y stays as it was while every value lies in it (chartFrame), so while a run trains the frame
 * (recharts' axes, ticks, grid, marks) changes a handful of times and a new point redraws only the
 * canvas; once it stops, the left y fits its data afresh (the same axis on every machine). Held across redraws of the same thing drawn; another run, series set, reference, log or
 * smoothing starts it afresh. The returned object changes only when a domain does.
 */
export function useChartFrame({ rows, lines, refs, seeds, log, stacked, runs, smoothing, fitY, entropyTarget, training }: Args): Frame {
  const planned = framePlanned(runs, training);
  const key = `${runs.map((r) => r.id).join(',')}|${smoothing}|${log}|${seeds}|${stacked}|${fitY}|${entropyTarget}`;
  const held = useRef<{ key: string; lines: readonly LineSpec[]; refs: readonly RefSeries[]; left: Domain | null }>({ key, lines, refs, left: null });
  const h = held.current;
  if (h.key !== key || h.lines !== lines || h.refs !== refs) Object.assign(h, { key, lines, refs, left: null });
  const computed = useMemo(() => {
    // Reference columns count: a chart showing only a reference's curves fits them, not the empty default 0–1.
    const refKeys = refs.filter((r) => !r.right).flatMap((r) => [refMeanKey(r.id), refBandKey(r.id)]);
    const flatZero = !log && onlyZeros(rows, [...lines.filter((l) => !l.right).map((l) => l.key), ...refKeys]);
    // Held only while a run trains: a finished or imported run's y axis is its data's alone, whatever order its
    // points arrived in (a held domain depends on which points were there at each redraw, i.e. on the machine's speed).
    const hold = training ? h.left : null;
    const frame = chartFrame(rows, lines, refs, seeds, log, stacked, planned, hold);
    const fit = fitY && !log ? fitDomain(rows, [entropyTarget]) : null;
    const left: Domain = fit ? (hold && holds(hold, fit[0], fit[1]) ? hold : fit) : flatZero ? Y_DOMAIN_ZERO : frame.left;
    // An empty chart's default (and the all-zero 0–1) is not held: the first values choose the domain.
    h.left = fit || (frame.data && !flatZero) ? left : null;
    return { x: frame.x, left };
  }, [rows, lines, refs, seeds, log, stacked, planned, fitY, entropyTarget, training, h, key]);
  const { x, left } = computed;
  const frameKey = `${x}|${left}|${log}`;
  return useMemo<Frame>(() => ({ x, left, right: RIGHT_DOMAIN, log }), [frameKey]);
}
