import { memo } from 'react';
import { usePlotArea, useXAxisScale } from 'recharts';
import type { EventKind, RunEvent } from '../lib/explain';
import { layoutEventLabels } from '../lib/eventlayout';

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

const ROW_HEIGHT = 11;

/**
 * The labels of a chart's event lines, laid out inside the plot so none overlaps another or runs
 * past an edge (lib/eventlayout.ts); the SVG <title> is the hover tooltip. A label with no room
 * is left out (its line stays). Rendered inside the recharts chart, reading its x scale.
 */
export const EventLabels = memo(function EventLabels({ events }: { events: readonly RunEvent[] }) {
  const plot = usePlotArea();
  const scale = useXAxisScale();
  if (!plot || !scale || events.length === 0) return null;
  const xs = events.map((e) => Number(scale(e.step)));
  const placed = layoutEventLabels(
    events.map((e, i) => ({ x: xs[i], text: e.label })),
    { left: plot.x, right: plot.x + plot.width },
  );
  const foot = plot.y + plot.height - 3;
  return (
    <g className="event-labels">
      {events.map((e, i) =>
        placed[i].shown ? (
          <g key={`${e.kind}@${e.step}`} className="event-marker" data-kind={e.kind} data-step={e.step}>
            <title>{e.detail}</title>
            <text x={placed[i].x} y={foot - ROW_HEIGHT * placed[i].row} textAnchor={placed[i].anchor} fontSize={9} fill={EVENT_COLOURS[e.kind]}>
              {e.label}
            </text>
          </g>
        ) : null,
      )}
    </g>
  );
});

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
