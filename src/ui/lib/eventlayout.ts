/**
 * Where each event label of a chart goes ("α on", "α off", …): in rows above the foot of the
 * plot, so no two labels overlap and none runs past the plot's edges. A label starts just right
 * of its line, or ends just left of it when it would pass the right edge; it takes the lowest row
 * where it overlaps no label already placed, and is dropped (its line stays) when none is free.
 * Label widths are estimated from their length (fixed small font). Pure.
 */

export interface EventLabelIn {
  /** Pixel x of the event's line. */
  x: number;
  text: string;
}

export interface EventLabelOut {
  /** Pixel x of the text's anchor. */
  x: number;
  anchor: 'start' | 'end';
  /** 0 = the lowest row. */
  row: number;
  /** False: no free room; only the line is drawn. */
  shown: boolean;
}

export interface EventLayoutOpts {
  /** The plot's left and right edges (pixels). */
  left: number;
  right: number;
  /** Rows available above the plot's foot. */
  rows?: number;
  /** Estimated width of one character (9 px text). */
  charWidth?: number;
  /** Room between a label and its line, and between two labels. */
  gap?: number;
}

export const labelWidth = (text: string, charWidth = 5.5) => [...text].length * charWidth;

export function layoutEventLabels(labels: readonly EventLabelIn[], opts: EventLayoutOpts): EventLabelOut[] {
  const { left, right, rows = 3, charWidth = 5.5, gap = 2 } = opts;
  const taken: [number, number][][] = Array.from({ length: rows }, () => []);
  const out: EventLabelOut[] = labels.map((l) => ({ x: l.x, anchor: 'start', row: 0, shown: false }));
  const order = labels.map((_, i) => i).sort((a, b) => labels[a].x - labels[b].x);
  for (const i of order) {
    const { x, text } = labels[i];
    const w = labelWidth(text, charWidth);
    if (!(x >= left && x <= right) || w > right - left) continue; // off the plot, or wider than it
    // Right of the line if it fits, else left of it; pushed inside the plot either way.
    let from = x + gap;
    let anchor: 'start' | 'end' = 'start';
    if (from + w > right) {
      anchor = 'end';
      from = Math.max(left, x - gap - w);
    }
    const to = from + w;
    const row = taken.findIndex((spans) => spans.every(([a, b]) => to + gap <= a || from >= b + gap));
    if (row < 0) continue;
    taken[row].push([from, to]);
    out[i] = { x: anchor === 'start' ? from : to, anchor, row, shown: true };
  }
  return out;
}

/** Rows of labels above the plot's foot (px apart, at the default 9 px text) and the room under the lowest one. */
export const ROW_HEIGHT = 11;
const FOOT_GAP = 3;

/**
 * The labels' text size (px): 9 on the page, 14 in projector view (lineScale 2), where 9 px text
 * cannot be read from the back of a room.
 */
export const eventLabelPx = (lineScale: number) => (lineScale > 1 ? 14 : 9);
/** One character's estimated width and a row's height at `px` text (5.5 and 11 at 9 px). */
const charWidthAt = (px: number) => (5.5 * px) / 9;
const rowHeightAt = (px: number) => px + 2;

/** One event mark on a chart: its line (null: its step lies off the x domain) and its label's place. */
export interface EventMarkPlace {
  /** Pixel x of the line, or null when the step is outside the plot (the mark is not drawn). */
  x: number | null;
  label: EventLabelOut & { y: number };
}

/**
 * Where a chart's event marks go, in px of the chart's SVG: each line at its step on the x domain
 * (linear, as recharts maps a number axis), clipped to the plot; the labels laid out by
 * layoutEventLabels, in rows above the plot's foot. Pure: the canvas draws from it, and the
 * accessible list of marks (components/ChartParts.tsx) places its hover targets with it.
 */
export function placeEventMarks(events: readonly { step: number; label: string }[], domain: readonly [number, number], plot: { x: number; y: number; width: number; height: number }, px = 9): EventMarkPlace[] {
  const span = domain[1] - domain[0] || 1;
  const xs = events.map((e) => plot.x + ((e.step - domain[0]) / span) * plot.width);
  const placed = layoutEventLabels(
    events.map((e, i) => ({ x: xs[i], text: e.label })),
    { left: plot.x, right: plot.x + plot.width, charWidth: charWidthAt(px) },
  );
  const foot = plot.y + plot.height - FOOT_GAP;
  return events.map((e, i) => ({
    x: e.step >= domain[0] && e.step <= domain[1] ? xs[i] : null,
    label: { ...placed[i], y: foot - rowHeightAt(px) * placed[i].row },
  }));
}
