/**
 * A chart exported as PNG: the chart's own SVG (axes, grid, lines, stage and event marks) under
 * its title, with the x axis named and the legend drawn below it, composed into one SVG that
 * download.ts rasterises. Pure: the layout and the markup are strings and numbers (no DOM).
 */

export interface PngLegendEntry {
  label: string;
  colour: string;
  /** SVG stroke-dasharray of the line ('' or undefined: solid). */
  dash?: string;
  /** A reference band: a filled swatch under the line. */
  band?: boolean;
  /** Held-out series: drawn with a dot. */
  dot?: boolean;
}

export interface ChartPngLayout {
  width: number;
  height: number;
  /** Baselines of the title and the subtitle (0 when none). */
  titleY: number;
  subtitleY: number;
  /** Top of the chart's SVG. */
  chartY: number;
  /** Baseline of the x axis name under the chart. */
  xLabelY: number;
  /** Each legend entry's swatch origin (left, vertical centre of its row). */
  legend: { x: number; y: number; entry: PngLegendEntry }[];
}

export const PNG_PAD = 12;
const TITLE_SIZE = 14;
const TEXT_SIZE = 11;
const ROW = 16;
const SWATCH = 18;
const GAP = 14;
/** Width of one character at TEXT_SIZE in the sans-serif the PNG uses, a little generous so no label overlaps the next. */
export const CHAR_WIDTH = 7;

export const textWidth = (s: string, size = TEXT_SIZE) => Math.ceil([...s].length * CHAR_WIDTH * (size / TEXT_SIZE));

/** Where everything goes: title and subtitle above the chart, the x axis name under it, then the legend in rows that wrap at the chart's width. */
export function layoutChartPng(o: { title: string; subtitle?: string; chartWidth: number; chartHeight: number; legend: readonly PngLegendEntry[] }): ChartPngLayout {
  const width = Math.max(o.chartWidth, textWidth(o.title, TITLE_SIZE)) + 2 * PNG_PAD;
  const titleY = PNG_PAD + TITLE_SIZE;
  const subtitleY = o.subtitle ? titleY + ROW : 0;
  const chartY = (subtitleY || titleY) + 8;
  // The chart's own SVG ends with the x axis' tick labels and some space under them: the name goes just below.
  const xLabelY = chartY + o.chartHeight + 4;
  const legend: ChartPngLayout['legend'] = [];
  const maxX = width - PNG_PAD;
  let x = PNG_PAD;
  let y = xLabelY + ROW;
  for (const entry of o.legend) {
    const w = SWATCH + 4 + textWidth(entry.label);
    if (x > PNG_PAD && x + w > maxX) {
      x = PNG_PAD;
      y += ROW;
    }
    legend.push({ x, y, entry });
    x += w + GAP;
  }
  const height = (o.legend.length ? y : xLabelY) + PNG_PAD;
  return { width, height, titleY, subtitleY, chartY, xLabelY, legend };
}

export const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * One SVG document: white background, title (and subtitle), the chart's serialised `<svg>` (its
 * `width`/`height` set to chartWidth × chartHeight) nested at the chart's place, `xLabel` centred
 * under the plot, and the legend.
 */
export function composeChartSvg(o: { title: string; subtitle?: string; xLabel?: string; chartSvg: string; chartWidth: number; chartHeight: number; legend: readonly PngLegendEntry[] }): { svg: string; width: number; height: number } {
  const l = layoutChartPng(o);
  const parts: string[] = [];
  parts.push(`<rect x="0" y="0" width="${l.width}" height="${l.height}" fill="#ffffff"/>`);
  parts.push(`<text x="${PNG_PAD}" y="${l.titleY}" font-size="${TITLE_SIZE}" font-weight="600" fill="#111827">${escapeXml(o.title)}</text>`);
  if (o.subtitle) parts.push(`<text x="${PNG_PAD}" y="${l.subtitleY}" font-size="${TEXT_SIZE}" fill="#4b5563">${escapeXml(o.subtitle)}</text>`);
  parts.push(`<g transform="translate(${PNG_PAD} ${l.chartY})">${o.chartSvg}</g>`);
  parts.push(`<text x="${PNG_PAD + o.chartWidth / 2}" y="${l.xLabelY}" font-size="${TEXT_SIZE}" text-anchor="middle" fill="#4b5563">${escapeXml(o.xLabel ?? 'step')}</text>`);
  for (const { x, y, entry } of l.legend) {
    const c = escapeXml(entry.colour);
    if (entry.band) parts.push(`<rect x="${x}" y="${y - 5}" width="${SWATCH}" height="10" fill="${c}" fill-opacity="0.25"/>`);
    const dash = entry.dash ? ` stroke-dasharray="${escapeXml(entry.dash)}"` : '';
    parts.push(`<line x1="${x}" y1="${y}" x2="${x + SWATCH}" y2="${y}" stroke="${c}" stroke-width="2"${dash}/>`);
    if (entry.dot) parts.push(`<circle cx="${x + SWATCH / 2}" cy="${y}" r="2.5" fill="${c}"/>`);
    parts.push(`<text x="${x + SWATCH + 4}" y="${y + 4}" font-size="${TEXT_SIZE}" fill="#1f2937">${escapeXml(entry.label)}</text>`);
  }
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}">` +
    `<style>text { font-family: system-ui, sans-serif; }</style>${parts.join('')}</svg>`;
  return { svg, width: l.width, height: l.height };
}
