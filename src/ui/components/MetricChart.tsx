import { memo, useCallback, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { buildRows, columnKey, drawnSeries, sameChartRuns, type ChartSpec, type RewardFamily } from '../lib/chartdata';
import { composeChartSvg, type PngLegendEntry } from '../lib/chartpng';
import type { RunEvent } from '../lib/explain';
import { downloadBlob, safeFileName, serializeSvg, svgMarkupToPngBlob } from '../lib/download';
import { mergeReferenceRows, refBandKey, referenceLegends, referenceSeries, refMeanKey, refSeedKey, refSeriesName } from '../lib/refchart';
import type { ReferenceFile } from '../lib/reference';
import type { RunData } from '../../io/runfile';
import { useLab } from '../store';
import { useOnScreen } from '../lib/onscreen';
import { chartBudget, useRedrawInterval, useStaggered } from '../lib/stagger';
import { compactTooltip, EVENT_COLOURS, EventMarkList } from './ChartParts';
import { eventLabelPx } from '../lib/eventlayout';
import { CanvasSeries, drawChart, drawList, PlotReporter } from './CanvasSeries';
import type { PlotRect } from '../lib/canvas-plot';
import { useChartFrame } from './useChartFrame';
import { useChartHover } from './useChartHover';

/** A chart redraws at most this often while metrics stream in (see useStaggered). */
const REDRAW_MS = 1000;

export const SERIES_COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];
const DASHES = ['', '6 3', '2 2', '8 3 2 3', '1 3'];

interface Props {
  spec: ChartSpec;
  runs: RunData[];
  smoothing: number;
  log: boolean;
  onToggleLog(): void;
  boundaries: { step: number; stage: number }[];
  entropyTarget: number | null;
  /** A reference run overlaid: each preset's mean and 95% band on the series it has curves for. */
  reference?: ReferenceFile | null;
  /** Also draw every seed of the reference. */
  referenceSeeds?: boolean;
  /** Colour of each drawn run (by slot) instead of the default palette. */
  runColours?: readonly string[];
  /** A control shown after the title (the "More metrics" chart's metric picker). */
  picker?: ReactNode;
  /** Events of the active run marked on this chart (lib/explain.ts), each a vertical line with a label and a tooltip. */
  events?: readonly RunEvent[];
  /** One sentence on what this chart shows for the active run (lib/explain.ts). */
  explanation?: string;
  /** Charts with the same id show the cursor and values at the hovered step together (recharts syncId, matched by step). */
  syncId?: string;
  /** With many runs overlaid, the reward chart's one series per run (lib/chartdata.ts drawnSeries). */
  family?: RewardFamily;
}

/** Hover values: 4 significant digits (a band: lower–upper). */
const fmt1 = (v: unknown) => (typeof v === 'number' ? (Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(2) : String(Number(v.toPrecision(4)))) : String(v));
const fmt = (v: unknown) => (Array.isArray(v) && v.length === 2 ? `${fmt1(v[0])}–${fmt1(v[1])}` : fmt1(v));
/** Axis ticks: short (1.2k, 0.05, 3e-4). */
const tick = (v: number) => {
  const a = Math.abs(v);
  if (a === 0) return '0';
  if (a >= 1e6) return `${Number((v / 1e6).toPrecision(3))}M`;
  if (a >= 1e3) return `${Number((v / 1e3).toPrecision(3))}k`;
  if (a < 0.01) return v.toExponential(1);
  return String(Number(v.toPrecision(3)));
};

/*
 * Axis ticks and reference-line labels are plain SVG <text>. recharts' own Text measures every
 * label in the DOM (getBoundingClientRect, a forced layout of the whole page) on each redraw
 * to wrap it and to drop overlapping ticks; with fixed short labels neither is needed, and
 * those measurements were most of a chart update's main-thread time while training.
 */
interface TickProps {
  x?: number | string;
  y?: number | string;
  payload?: { value: unknown };
  textAnchor?: 'start' | 'middle' | 'end' | 'inherit';
  verticalAnchor?: string;
}
const dyFor = (verticalAnchor?: string) => (verticalAnchor === 'start' ? '0.71em' : verticalAnchor === 'end' ? '0' : '0.355em');
const AxisTick = ({ x, y, payload, textAnchor, verticalAnchor }: TickProps) => (
  <text x={x} y={y} dy={dyFor(verticalAnchor)} textAnchor={textAnchor} fontSize={10} fill="#666" className="recharts-cartesian-axis-tick-value">
    {typeof payload?.value === 'number' ? tick(payload.value) : String(payload?.value ?? '')}
  </text>
);
/** One label component per stage, created once: a new function per render is a new component type to React (remount). */
const stageLabels = new Map<number, (p: { x?: number | string; y?: number | string }) => React.JSX.Element>();
const stageLabel = (stage: number) => {
  let f = stageLabels.get(stage);
  if (!f) {
    const text = `S${stage + 1}`;
    f = (p) => (
      <text x={p.x} y={p.y} dy="0.71em" fontSize={10} fill="#64748b">
        {text}
      </text>
    );
    stageLabels.set(stage, f);
  }
  return f;
};
export { EVENT_COLOURS };
/** At most this many event markers per chart (the explanation line counts them all); drawn on the canvas: ChartParts.tsx. */
const MAX_EVENT_MARKERS = 16;
const targetLabel = (p: { x?: number | string; y?: number | string }) => (
  <text x={p.x} y={p.y} textAnchor="end" fontSize={10} fill="#b45309">
    target
  </text>
);

/*
 * Every prop below is a constant, and the chart's parts are memoised elements that change only
 * when their own inputs do: on a metrics update only the chart's `data` changes. A recharts part
 * that re-renders with a new object prop (a margin, a domain array, a label) re-registers itself
 * in the chart's store, and every such dispatch re-runs every selector of the chart.
 */
const MARGIN = { top: 6, right: 12, bottom: 0, left: 0 };
const MARGIN_RIGHT_AXIS = { top: 6, right: 4, bottom: 0, left: 0 };
/** Projector view's 16 px ticks: room for half the top y tick above the plot and half the last x tick ("400") right of it. */
const MARGIN_PROJECTOR = { top: 10, right: 24, bottom: 0, left: 0 };
const MARGIN_RIGHT_AXIS_PROJECTOR = { top: 10, right: 4, bottom: 0, left: 0 };
const TOOLTIP_STYLE = { fontSize: 11 };
/** Columns of the two rows that span the axes (frameRows). */
const FRAME_L = '__frame_l';
const FRAME_R = '__frame_r';
const tooltipValue = (v: unknown) => fmt(v);
const CompactTooltip = compactTooltip(fmt);
const tooltipLabel = (l: unknown) => `step ${String(l)}`;
const STAGE_LABEL_POSITION = 'insideTopLeft' as const;
const TARGET_LABEL = { position: 'insideBottomRight' as const, content: targetLabel };

const NONE: never[] = [];
/** Points per series before the chart is measured (and where it cannot be), and the least after. */
const DEFAULT_MAX_POINTS = 600;
const MIN_MAX_POINTS = 100;
/** A chart's height (px) in projector view (style.css .projector .chart-box matches it). */
const PROJECTOR_HEIGHT = 260;

/** One live chart (x = step): every drawn run × series, stage boundaries, hover values. */
export const MetricChart = memo(function MetricChart({ spec, runs: runsIn, smoothing, log: logIn, onToggleLog, boundaries: boundariesIn, entropyTarget: targetIn, reference = null, referenceSeeds = false, runColours, picker, events: eventsIn = NONE, explanation, syncId = 'steps', family = 'train' }: Props) {
  // view=projector: a taller chart and wider axes for the larger tick text (style.css .projector).
  const projector = useLab((s) => s.projector);
  const refIn = useMemo(() => (reference ? referenceSeries(spec, reference) : NONE), [spec, reference]);
  // About one point per horizontal pixel of the chart, min/max per bucket (lib/downsample.ts): measured at mount and on resize.
  const figure = useRef<HTMLElement>(null);
  const [maxPoints, setMaxPoints] = useState(DEFAULT_MAX_POINTS);
  useLayoutEffect(() => {
    const el = figure.current;
    if (!el) return;
    const measure = () => {
      const w = el.clientWidth;
      if (w) setMaxPoints(Math.max(MIN_MAX_POINTS, Math.round(w)));
    };
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  // A run started and not over (training or paused): the step axis spans its schedule (useChartFrame).
  // It travels with the data drawn, so when a run ends each chart's frame changes in its own staggered task.
  const midRunIn = useLab((s) => s.runState === 'running' || s.runState === 'starting' || s.runState === 'paused');
  const latest = useMemo(() => {
    // Held-out series are keyed per run (its own eval k and temperatures).
    // With many runs, each draws only its main series (drawnSeries).
    const live = buildRows(runsIn, (run) => drawnSeries(spec, run, runsIn.length, family), smoothing, { log: logIn, maxPoints });
    return {
      rows: mergeReferenceRows(live, refIn, { log: logIn, seeds: referenceSeeds }),
      livePoints: live.length,
      runs: runsIn,
      log: logIn,
      boundaries: boundariesIn,
      events: eventsIn,
      entropyTarget: targetIn,
      refSeries: refIn,
      refSeeds: referenceSeeds,
      refLegend: referenceLegends(refIn, reference),
      midRun: midRunIn,
    };
  }, [runsIn, spec, smoothing, logIn, boundariesIn, eventsIn, targetIn, refIn, referenceSeeds, reference, family, maxPoints, midRunIn],
  );
  // Off screen, a chart holds its redraws (nobody sees them) and draws once it is back in view.
  const onScreen = useOnScreen(figure);
  // The interval grows with what the charts in view cost to redraw together (lib/stagger.ts chartBudget).
  const interval = useRef(REDRAW_MS);
  const drawn = useStaggered(latest, interval.current, undefined, onScreen);
  const budgeted = useRedrawInterval(drawn, REDRAW_MS, `chart-${spec.id}`, chartBudget, onScreen);
  // The budget holds while a run trains; otherwise (a run just stopped, its last evaluation, an
  // import, an overlay) updates are rare and a chart draws within REDRAW_MS, as before.
  const training = useLab((s) => s.runState === 'running' || s.runState === 'starting');
  interval.current = training ? budgeted : REDRAW_MS;
  const { rows, runs, log, boundaries, events, entropyTarget, refSeries, refSeeds, refLegend, midRun } = drawn;
  // What the chart holds, drawn or (off screen) waiting to be: its data-* attributes say this.
  const held = onScreen ? drawn : latest;
  const box = useRef<HTMLDivElement>(null);
  // The tooltip is mounted only while the pointer is over a chart of this group (all of them then
  // show the hovered step): while training nobody hovers, and each mounted recharts part re-runs
  // its selectors on every redraw.
  const hover = useChartHover((s) => s.group === syncId);
  const enter = useChartHover((s) => s.enter);
  const leave = useChartHover((s) => s.leave);
  const multi = runs.length > 1;
  const stacked = !!spec.stacked;
  const empty = rows.length === 0;
  // Slot 0's lines exist before any run (empty), so the first points only update them.
  // Each run draws its own series (held-out ones keyed by its eval k and temperatures).
  const lineList = (runs.length ? runs : [null]).flatMap((run, ri) =>
    drawnSeries(spec, run, runs.length, family).map((s, si) => ({
      key: columnKey(ri, s.key),
      right: !!s.right,
      name: multi && run ? `${run.name}: ${s.label}` : s.label,
      colour: runColours?.[ri] ?? SERIES_COLOURS[(multi ? ri : si) % SERIES_COLOURS.length],
      dash: multi ? DASHES[si % DASHES.length] : s.source === 'eval' ? '4 2' : '',
      // Held-out series are sparse (one point per evaluation): drawn with dots, so a single one shows.
      dot: s.source === 'eval',
      // A stacked chart stacks each run's series on their own (spec.stacked).
      stack: `s${ri}`,
      // Smoothed: the measured values are drawn faintly beneath (buildRows writes them at any smoothing above 0).
      ...(smoothing > 0 && s.source === 'step' && !s.exact && !stacked ? { raw: true } : {}),
    })),
  );
  const hasRight = lineList.some((l) => l.right);
  const linesKey = JSON.stringify(lineList);
  // Keyed by content: `runs` is a new array on every metrics batch, the lines rarely change. A
  // held-out line's dot props are one object per line, made here, so they stay the same object.
  const lines = useMemo(() => lineList, [linesKey]);
  const boundaryKey = boundaries.map((b) => `${b.step}:${b.stage}`).join(',');
  const stageLines = useMemo(() => boundaries, [boundaryKey]);
  // Keyed by content too: the events are recomputed on every metrics batch, and rarely change.
  const eventKey = events.map((e) => `${e.kind}:${e.step}:${e.label}:${e.detail}`).join('|');
  const eventLines = useMemo(() => events.slice(0, MAX_EVENT_MARKERS), [eventKey]);
  // Reference parts change only when another reference (or the seeds toggle) is chosen: one Area
  // (the band, a single path) and one Line (the mean) per preset × series, plus a Line per seed.
  const refParts = useMemo(
    () =>
      refSeries.flatMap((r) => [
        <Area
          key={`${r.id}|band`}
          yAxisId={r.right ? 'r' : 'l'}
          dataKey={refBandKey(r.id)}
          name={`${refSeriesName(r)}: 95% band`}
          stroke="none"
          fill={r.colour}
          fillOpacity={0}
          connectNulls
          dot={false}
          activeDot={false}
          isAnimationActive={false}
          className="reference-band"
        />,
        ...(refSeeds
          ? r.seeds.map((seed) => (
              <Line
                key={`${r.id}|s${seed}`}
                yAxisId={r.right ? 'r' : 'l'}
                dataKey={refSeedKey(r.id, seed)}
                name={`${refSeriesName(r)}: seed ${seed}`}
                stroke={r.colour}
                strokeOpacity={0}
                strokeWidth={0.75}
                dot={false}
                activeDot={false}
                connectNulls
                isAnimationActive={false}
              />
            ))
          : []),
        <Line
          key={`${r.id}|mean`}
          yAxisId={r.right ? 'r' : 'l'}
          dataKey={refMeanKey(r.id)}
          name={refSeriesName(r)}
          stroke={r.colour}
          strokeOpacity={0}
          strokeWidth={1.25}
          dot={false}
          connectNulls
          isAnimationActive={false}
        />,
      ]),
    [refSeries, refSeeds],
  );
  // The axis domains (useChartFrame): x spans the runs' schedule, y holds the data with headroom; recharts'
  // frame (axes, ticks, grid, marks) re-renders only when one changes; a new point redraws only the canvas.
  const shown = useChartFrame({ rows, lines, refs: refSeries, seeds: refSeeds, log, stacked, runs, smoothing, fitY: !!spec.fitY, entropyTarget, training: midRun });
  const yDomain = shown.left;
  const series = useMemo(() => drawList(lines, refSeries, refSeeds, stacked), [lines, refSeries, refSeeds, stacked]);
  const [plot, setPlot] = useState<PlotRect | null>(null);
  const onPlot = useCallback((p: PlotRect) => setPlot((q) => (q && q.x === p.x && q.y === p.y && q.width === p.width && q.height === p.height ? q : p)), []);
  // recharts holds the rows only while hovered (its tooltip reads them); else two rows spanning the x domain.
  // Their l and r columns span the y domains: recharts lays out an axis's ticks only when a series is drawn on it.
  const frameRows = useMemo(() => shown.x.map((step, i) => ({ step, [FRAME_L]: shown.left[i], [FRAME_R]: shown.right[i] })), [shown]);
  const chartRows = hover ? rows : frameRows;
  const parts = useMemo(
    () => (
      <>
        <CartesianGrid stroke="#e5e7eb" strokeDasharray="3 3" />
        <XAxis dataKey="step" type="number" domain={shown.x} allowDecimals={false} interval={0} tick={AxisTick} />
        <YAxis yAxisId="l" scale={log ? 'log' : 'auto'} domain={yDomain} allowDataOverflow={log} interval={0} tick={AxisTick} width={projector ? 64 : 44} />
        {hasRight && <YAxis yAxisId="r" orientation="right" domain={shown.right} interval={0} tick={AxisTick} width={projector ? 44 : 30} />}
        {hover && (spec.compactTooltip ? <Tooltip isAnimationActive={false} content={CompactTooltip} /> : <Tooltip isAnimationActive={false} formatter={tooltipValue} labelFormatter={tooltipLabel} contentStyle={TOOLTIP_STYLE} />)}
        {stageLines.map((b) => (
          <ReferenceLine key={b.step} className="stage-mark" yAxisId="l" x={b.step} stroke="#94a3b8" strokeDasharray="4 2" label={{ position: STAGE_LABEL_POSITION, content: stageLabel(b.stage) }} />
        ))}
        {entropyTarget !== null && <ReferenceLine yAxisId="l" y={entropyTarget} stroke="#f59e0b" strokeDasharray="6 3" label={TARGET_LABEL} />}
        <PlotReporter onPlot={onPlot} />
        <Line yAxisId="l" dataKey={FRAME_L} stroke="none" dot={false} activeDot={false} tooltipType="none" legendType="none" isAnimationActive={false} />
        {hasRight && <Line yAxisId="r" dataKey={FRAME_R} stroke="none" dot={false} activeDot={false} tooltipType="none" legendType="none" isAnimationActive={false} />}
        {/* The series are drawn on the canvas (CanvasSeries); these invisible ones give the hover tooltip its values. */}
        {hover && refParts}
        {hover && lines.map((l) =>
          stacked ? (
            <Area key={l.key} yAxisId="l" dataKey={l.key} name={l.name} stackId={l.stack} stroke="none" fill={l.colour} fillOpacity={0} strokeWidth={1} dot={false} activeDot={false} isAnimationActive={false} />
          ) : (
            <Line
              key={l.key}
              yAxisId={l.right ? 'r' : 'l'}
              dataKey={l.key}
              name={l.name}
              stroke={l.colour}
              strokeOpacity={0}
              dot={false}
              strokeWidth={1.5}
              connectNulls
              isAnimationActive={false}
            />
          ),
        )}
      </>
    ),
    [log, shown, yDomain, hasRight, hover, stageLines, entropyTarget, refParts, lines, stacked, spec.compactTooltip, projector, onPlot],
  );
  // The page re-renders this component on every store change (run state, samples); the chart
  // itself re-renders only when what it draws changed (each chart render is a store dispatch).
  const chart = useMemo(
    () => (
      <ResponsiveContainer width="100%" height={projector ? PROJECTOR_HEIGHT : 170}>
        <ComposedChart data={chartRows} margin={projector ? (hasRight ? MARGIN_RIGHT_AXIS_PROJECTOR : MARGIN_PROJECTOR) : hasRight ? MARGIN_RIGHT_AXIS : MARGIN} syncId={syncId} syncMethod="value">
          {parts}
        </ComposedChart>
      </ResponsiveContainer>
    ),
    [chartRows, hasRight, parts, syncId, projector],
  );
  // Every render of this component, counted (data-renders) for tests/ui/chart-renders.test.tsx and the bench.
  const renders = useRef(0);
  useLayoutEffect(() => void figure.current?.setAttribute('data-renders', String((renders.current += 1))));
  // Each new chart element is a re-render of recharts' frame: counted, with the frame it shows, for e2e/lab.spec.ts.
  // data-frame-cause names what changed (a range, the marks, the series set, ...); data-frame-causes counts them.
  const frameRenders = useRef(0);
  const causes = { range: shown, lines, stages: stageLines, target: entropyTarget, refs: refParts, hover, hasRight, projector, syncId };
  const lastCauses = useRef<Record<string, unknown>>({});
  const causeCounts = useRef<Record<string, number>>({});
  useLayoutEffect(() => {
    const el = figure.current;
    if (!el) return;
    el.setAttribute('data-frame-renders', String((frameRenders.current += 1)));
    el.setAttribute('data-frame', JSON.stringify(shown));
    const cause = Object.keys(causes).filter((k) => causes[k as keyof typeof causes] !== lastCauses.current[k]).join(' ');
    el.setAttribute('data-frame-cause', cause);
    causeCounts.current[cause] = (causeCounts.current[cause] ?? 0) + 1;
    el.setAttribute('data-frame-causes', JSON.stringify(causeCounts.current));
    lastCauses.current = causes;
  }, [chart]);
  const legendLines = runs.length === 0 && refLegend.length > 0 ? NONE : lines;
  // The PNG: the chart's SVG (axes, grid, lines, marks) under its title, the x axis named, the legend below (lib/chartpng.ts).
  const exportPng = async () => {
    const svg = box.current?.querySelector('svg.recharts-surface') as SVGSVGElement | null;
    if (!svg) return;
    const chart = serializeSvg(svg);
    // The series are on the canvas: drawn again at 2× (the PNG's scale) into an <image> over the SVG.
    if (plot) {
      const c = document.createElement('canvas');
      [c.width, c.height] = [Math.ceil(chart.width * 2), Math.ceil(chart.height * 2)];
      const ctx = c.getContext('2d');
      if (ctx) {
        ctx.scale(2, 2);
        drawChart(ctx, rows, series, shown, plot, projector ? 2 : 1, eventLines, getComputedStyle(box.current ?? document.body).fontFamily);
        chart.xml = chart.xml.replace(/<\/svg>$/, `<image href="${c.toDataURL('image/png')}" x="0" y="0" width="${chart.width}" height="${chart.height}"/></svg>`);
      }
    }
    const legend: PngLegendEntry[] = [
      ...legendLines.map((l) => ({ label: l.name, colour: l.colour, dash: l.dash, dot: l.dot })),
      ...refLegend.map((l) => ({ label: l.label, colour: l.colour, dash: l.dash, band: true })),
    ];
    const subtitle = runs.length === 1 ? runs[0].name : undefined;
    const png = composeChartSvg({ title: spec.title, subtitle, chartSvg: chart.xml, chartWidth: chart.width, chartHeight: chart.height, legend });
    downloadBlob(await svgMarkupToPngBlob(png.svg, png.width, png.height), `${safeFileName(spec.id)}.png`);
  };
  return (
    <figure
      ref={figure}
      className="chart"
      data-testid={`chart-${spec.id}`}
      data-points={held.livePoints}
      data-runs={held.runs.length}
      data-reference-series={held.refSeries.length}
      data-events={onScreen ? eventLines.length : Math.min(held.events.length, MAX_EVENT_MARKERS)}
      {...(spec.volatile ? { 'data-volatile': '' } : {})}
    >
      <figcaption title={spec.help}>
        <span>{spec.title}</span>
        {picker}
        <span className="spacer" />
        {spec.log && (
          <button className={`mini${log ? ' on' : ''}`} onClick={onToggleLog} data-testid={`log-${spec.id}`} title="Logarithmic y axis">
            log
          </button>
        )}
        <button className="mini" onClick={exportPng} disabled={empty} data-testid={`png-${spec.id}`} title="Download this chart as PNG">
          PNG
        </button>
      </figcaption>
      <div ref={box} className="chart-box" onPointerEnter={() => enter(syncId)} onPointerLeave={() => leave(syncId)}>
        {/* Mounted even when empty: mounting a chart costs more than updating one, so it happens at page load, not while training. */}
        {empty && <div className="chart-empty">no data yet</div>}
        {chart}
        <CanvasSeries rows={rows} series={series} frame={shown} plot={plot} lineScale={projector ? 2 : 1} events={eventLines} />
        <EventMarkList events={eventLines} domain={shown.x} plot={plot} px={eventLabelPx(projector ? 2 : 1)} />
      </div>
      {/* A plain HTML legend: recharts' Legend measures itself and feeds its size back into the chart on each redraw. */}
      <ul className="chart-legend">
        {/* With only a reference drawn, the runs' (empty) lines have no legend entry. */}
        {legendLines.map((l) => (
          <li key={l.key}>
            <svg width="14" height="8" aria-hidden="true">
              <line x1="0" y1="4" x2="14" y2="4" stroke={l.colour} strokeWidth="2" strokeDasharray={l.dash || undefined} />
              {l.dot && <circle cx="7" cy="4" r="2.5" fill={l.colour} />}
            </svg>
            {l.name}
          </li>
        ))}
        {refLegend.map((l) => (
          <li key={`ref|${l.id}`} data-testid="reference-legend">
            <svg width="14" height="8" aria-hidden="true">
              <rect x="0" y="0" width="14" height="8" fill={l.colour} fillOpacity="0.25" />
              <line x1="0" y1="4" x2="14" y2="4" stroke={l.colour} strokeWidth="1.5" strokeDasharray={l.dash || undefined} />
            </svg>
            {l.label}
          </li>
        ))}
      </ul>
      {explanation && (
        <p className="chart-explain" data-testid={`explain-${spec.id}`}>
          {explanation}
        </p>
      )}
    </figure>
  );
},
// Props compared as React's memo does, but the runs by what this chart draws of them (sameChartRuns).
(a, b) => (Object.keys(a) as (keyof Props)[]).length === Object.keys(b).length && (Object.keys(b) as (keyof Props)[]).every((k) => (k === 'runs' ? sameChartRuns(b.spec, a.runs, b.runs) : Object.is(a[k], b[k]))));
