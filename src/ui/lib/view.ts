/**
 * How the page is drawn, beside what it shows: view=projector enlarges the charts' text and lines
 * for a classroom screen (style.css's .projector rules), and equations shrink to fit their column.
 * Pure: the URL parameter and the equation's fitted font size.
 */

export const VIEW_PARAM = 'view';
/** Is the page asked for in projector view? */
export function projectorFromUrl(search: string): boolean {
  return new URLSearchParams(search).get(VIEW_PARAM) === 'projector';
}

/** `search` with view=projector set, or removed (the default view has no parameter). */
export function withProjector(search: string, on: boolean): string {
  const p = new URLSearchParams(search);
  if (on) p.set(VIEW_PARAM, 'projector');
  else p.delete(VIEW_PARAM);
  // Commas stay readable (hide=…), as lib/teach.ts writes them.
  const s = p.toString().replace(/%2C/gi, ',');
  return s ? `?${s}` : '';
}

/**
 * The font size (px) at which content `natural` px wide at `base` px fits `available` px: `base`
 * when it fits, else scaled down in proportion (MathML's width grows with its font size), never
 * below `min`. A little slack keeps rounding from bringing the scrollbar back.
 */
export function fitFontSize(base: number, natural: number, available: number, min = 7): number {
  if (!(natural > 0) || !(available > 0) || natural <= available) return base;
  const scaled = Math.floor(((base * available) / natural) * 0.97 * 10) / 10;
  return Math.max(min, Math.min(base, scaled));
}

/**
 * view=bench opens the Benchmark view (components/BenchView.tsx). view= holds one value: projector
 * (how the page is drawn) or bench (which centre view shows); the other views have no parameter.
 */
export function benchViewFromUrl(search: string): boolean {
  return new URLSearchParams(search).get(VIEW_PARAM) === 'bench';
}

/** `search` with view=bench set (on) or removed (off; a view=projector stays). */
export function withBenchView(search: string, on: boolean): string {
  const p = new URLSearchParams(search);
  if (on) p.set(VIEW_PARAM, 'bench');
  else if (p.get(VIEW_PARAM) === 'bench') p.delete(VIEW_PARAM);
  else return search;
  const s = p.toString().replace(/%2C/gi, ',');
  return s ? `?${s}` : '';
}
