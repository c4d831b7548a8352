import { memo } from 'react';
import type { EventKind, RunEvent } from '../lib/explain';
import { placeEventMarks } from '../lib/eventlayout';
import type { PlotRect } from '../lib/canvas-plot';

/** Event marker colours (lib/explain.ts kinds). */
export const EVENT_COLOURS: Record<EventKind, string> = {
  'controller-on': '#16a34a',
  'controller-off': '#64748b',
  'entropy-collapse': '#dc2626',
  'entropy-blowup': '#c2410c',
  stage: '#94a3b8',
  'online-filter': '#7c3aed',
  'all-dropped': '#b45309',
};

/**
 * Draws a chart's event lines on the canvas (components/CanvasSeries.tsx), under its series: a
 * dotted line at each event's step, clipped to the plot. On the canvas, not as recharts children,
 * a new event redraws the canvas only, not recharts' frame.
 */
export function drawEventLines(ctx: CanvasRenderingContext2D, events: readonly RunEvent[], domain: readonly [number, number], plot: PlotRect) {
  if (events.length === 0) return;
  const places = placeEventMarks(events, domain, plot);
  ctx.save();
  ctx.lineWidth = 1;
  ctx.setLineDash([2, 3]);
  ctx.globalAlpha = 0.7;
  events.forEach((e, i) => {
    const x = places[i].x;
    if (x === null) return;
    ctx.strokeStyle = EVENT_COLOURS[e.kind];
    ctx.beginPath();
    ctx.moveTo(x, plot.y + plot.height);
    ctx.lineTo(x, plot.y);
    ctx.stroke();
  });
  ctx.restore();
}

/** The halo drawn around each event label: the chart's background, so a line under the text does not cross it. */
export const LABEL_HALO = '#ffffff';

/**
 * Draws the event labels over the series (after them), each on a halo of the background, laid
 * out so none overlaps another or runs past an edge (lib/eventlayout.ts); a label with no room is
 * left out (its line stays). `px`: the text size (eventLabelPx); `font`: the chart's font family.
 */
export function drawEventLabels(ctx: CanvasRenderingContext2D, events: readonly RunEvent[], domain: readonly [number, number], plot: PlotRect, font: string, px: number) {
  if (events.length === 0) return;
  const places = placeEventMarks(events, domain, plot, px);
  ctx.save();
  ctx.setLineDash([]);
  ctx.font = `${px}px ${font}`;
  ctx.textBaseline = 'alphabetic';
  ctx.lineJoin = 'round';
  ctx.lineWidth = Math.max(3, px / 3);
  events.forEach((e, i) => {
    const l = places[i].label;
    if (!l.shown) return;
    ctx.textAlign = l.anchor === 'start' ? 'left' : 'right';
    ctx.strokeStyle = LABEL_HALO;
    ctx.strokeText(e.label, l.x, l.y);
    ctx.fillStyle = EVENT_COLOURS[e.kind];
    ctx.fillText(e.label, l.x, l.y);
  });
  ctx.restore();
}

/**
 * The event marks as text, over the canvas where their labels are drawn: each label (transparent)
 * with its reason as an SVG <title>, so it is read out by a screen reader and shows as a hover
 * tooltip, and e2e tests find `.event-marker[data-kind][data-step]`. Outside recharts: a new
 * event re-renders this list only.
 */
export const EventMarkList = memo(function EventMarkList({ events, domain, plot, px }: { events: readonly RunEvent[]; domain: readonly [number, number]; plot: PlotRect | null; px: number }) {
  if (!plot || events.length === 0) return null;
  const places = placeEventMarks(events, domain, plot, px);
  return (
    <svg className="event-labels" style={LIST_STYLE} role="list" aria-label="Events marked on this chart">
      {events.map((e, i) =>
        places[i].label.shown ? (
          <g key={`${e.kind}@${e.step}`} className="event-marker" data-kind={e.kind} data-step={e.step} role="listitem">
            <title>{e.detail}</title>
            <text x={places[i].label.x} y={places[i].label.y} textAnchor={places[i].label.anchor} fontSize={px} fill="transparent" style={HIT_STYLE}>
              {e.label}
            </text>
          </g>
        ) : null,
      )}
    </svg>
  );
});
const LIST_STYLE = { position: 'absolute', left: 0, top: 0, width: '100%', height: '100%', overflow: 'visible', pointerEvents: 'none', zIndex: 1 } as const;
const HIT_STYLE = { pointerEvents: 'visible' } as const;

interface TooltipItem {
  dataKey?: unknown;
  name?: unknown;
  value?: unknown;
  color?: string;
}

/** A reference band or per-seed column (lib/refchart.ts keys): left out of the compact tooltip. */
const isBandOrSeed = (key: string) => key.endsWith('|band') || /^ref\d+\|.*\|s[^|]*$/.test(key);
const MAX_ROWS = 6;

/**
 * A small hover tooltip (the Findings charts): the step, then each run's and reference mean's
 * value, at most MAX_ROWS rows ("+N more"), so it never covers the whole chart.
 */
export function compactTooltip(fmt: (v: unknown) => string) {
  return function CompactTooltip({ active, payload, label }: { active?: boolean; payload?: readonly TooltipItem[]; label?: unknown }) {
    if (!active || !payload?.length) return null;
    const items = payload.filter((p) => p.value !== null && p.value !== undefined && !isBandOrSeed(String(p.dataKey)));
    return (
      <div className="compact-tooltip" data-testid="compact-tooltip">
        <div>step {String(label)}</div>
        {items.slice(0, MAX_ROWS).map((p) => (
          <div key={String(p.dataKey)} style={{ color: p.color }}>
            {String(p.name)}: {fmt(p.value)}
          </div>
        ))}
        {items.length > MAX_ROWS && <div>+{items.length - MAX_ROWS} more</div>}
      </div>
    );
  };
}
