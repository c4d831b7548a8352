/**
 * Charts of a sweep: one SVG per curve metric (mean over seeds per preset, with its 95% band),
 * written as text, then rendered to PNG headless with Playwright's Chromium (the system's
 * /usr/bin/chromium). The SVG stays beside the PNG.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import type { CurveBand, Summary } from './summary';
import { chartFileName } from './summary-markdown';

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22', '#393b79'];

export interface ChartSeries {
  name: string;
  band: CurveBand;
}

export interface ChartOptions {
  title: string;
  yLabel: string;
  /** Multiply values by this for the axis (100 for percentages). */
  scale?: number;
  /** Horizontal reference lines (e.g. the entropy target). */
  refLines?: { y: number; label: string }[];
  width?: number;
  height?: number;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** 1, 2, 5 × 10^k ticks covering [lo, hi]. */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) return [];
  if (hi === lo) {
    hi = lo + 1;
    lo -= 1;
  }
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

function fmtTick(v: number): string {
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(0);
  return String(Number(v.toPrecision(4)));
}

export function curveChartSvg(series: ChartSeries[], o: ChartOptions): string {
  const W = o.width ?? 800;
  const H = o.height ?? 440;
  const m = { left: 64, right: 170, top: 40, bottom: 48 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const k = o.scale ?? 1;
  const xs = series.flatMap((s) => s.band.steps);
  const ys = series
    .flatMap((s) => [...s.band.mean, ...s.band.lower, ...s.band.upper])
    .concat((o.refLines ?? []).map((r) => r.y))
    .filter((v) => Number.isFinite(v))
    .map((v) => v * k);
  const x0 = xs.length ? Math.min(...xs) : 0;
  const x1 = xs.length ? Math.max(...xs) : 1;
  let y0 = ys.length ? Math.min(...ys) : 0;
  let y1 = ys.length ? Math.max(...ys) : 1;
  const pad = (y1 - y0) * 0.05 || Math.abs(y1) * 0.05 || 1;
  y0 -= pad;
  y1 += pad;
  const yt = niceTicks(y0, y1);
  if (yt.length) {
    y0 = Math.min(y0, yt[0]);
    y1 = Math.max(y1, yt[yt.length - 1]);
  }
  const X = (x: number) => m.left + (x1 === x0 ? pw / 2 : ((x - x0) / (x1 - x0)) * pw);
  const Y = (y: number) => m.top + ph - ((y - y0) / (y1 - y0)) * ph;
  const P = (x: number, y: number) => `${X(x).toFixed(1)},${Y(y).toFixed(1)}`;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text x="${m.left}" y="22" font-size="15" font-weight="bold">${esc(o.title)}</text>`);
  for (const t of yt) {
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${Y(t).toFixed(1)}" y2="${Y(t).toFixed(1)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.left - 6}" y="${(Y(t) + 4).toFixed(1)}" text-anchor="end">${fmtTick(t)}</text>`);
  }
  for (const t of niceTicks(x0, x1, 8).filter((t) => t >= x0 && t <= x1)) {
    out.push(`<line x1="${X(t).toFixed(1)}" x2="${X(t).toFixed(1)}" y1="${m.top + ph}" y2="${m.top + ph + 4}" stroke="#333"/>`);
    out.push(`<text x="${X(t).toFixed(1)}" y="${m.top + ph + 17}" text-anchor="middle">${fmtTick(t)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${H - 10}" text-anchor="middle">step</text>`);
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  for (const r of o.refLines ?? []) {
    if (!Number.isFinite(r.y)) continue;
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${Y(r.y * k).toFixed(1)}" y2="${Y(r.y * k).toFixed(1)}" stroke="#555" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${m.left + pw - 4}" y="${(Y(r.y * k) - 5).toFixed(1)}" text-anchor="end" fill="#555">${esc(r.label)}</text>`);
  }
  series.forEach((s, i) => {
    const c = COLORS[i % COLORS.length];
    const b = s.band;
    const idx = b.steps.map((_, j) => j).filter((j) => Number.isFinite(b.lower[j]) && Number.isFinite(b.upper[j]));
    if (idx.length > 1) {
      const poly = [...idx.map((j) => P(b.steps[j], b.upper[j] * k)), ...[...idx].reverse().map((j) => P(b.steps[j], b.lower[j] * k))].join(' ');
      out.push(`<polygon points="${poly}" fill="${c}" fill-opacity="0.18" stroke="none"/>`);
    }
    const pts = b.steps.map((x, j) => [x, b.mean[j]] as const).filter(([, y]) => Number.isFinite(y));
    if (pts.length === 1) out.push(`<circle cx="${X(pts[0][0]).toFixed(1)}" cy="${Y(pts[0][1] * k).toFixed(1)}" r="3" fill="${c}"/>`);
    else if (pts.length) out.push(`<polyline points="${pts.map(([x, y]) => P(x, y * k)).join(' ')}" fill="none" stroke="${c}" stroke-width="2"/>`);
    const ly = m.top + 10 + i * 20;
    const n = Math.max(0, ...b.n);
    out.push(`<rect x="${m.left + pw + 14}" y="${ly - 6}" width="16" height="10" fill="${c}" fill-opacity="0.35" stroke="${c}"/>`);
    out.push(`<text x="${m.left + pw + 36}" y="${ly + 3}">${esc(s.name)} (n=${n})</text>`);
  });
  out.push(`<text x="${m.left + pw + 14}" y="${m.top + 10 + series.length * 20 + 8}" fill="#555" font-size="11">band: 95% CI over seeds</text>`);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** How each curve key is titled and scaled. */
export function chartLabels(key: string): { title: string; yLabel: string; scale: number } {
  const ev = /^val\/avg@(\d+)\/t(.+)$/.exec(key);
  if (ev) return { title: `Held-out avg@${ev[1]}, τ = ${ev[2]} (periodic evals)`, yLabel: `avg@${ev[1]} (%)`, scale: 100 };
  const known: Record<string, { title: string; yLabel: string; scale: number }> = {
    'actor/entropy': { title: 'Entropy of the rollouts (actor/entropy)', yLabel: 'nats per token', scale: 1 },
    'actor/entropy_coeff_realized': { title: 'Entropy coefficient α_k (realised)', yLabel: 'α', scale: 1 },
    'critic/score/mean': { title: 'Train reward (critic/score/mean)', yLabel: 'mean reward (%)', scale: 100 },
    'response_length/mean': { title: 'Response length (train)', yLabel: 'tokens', scale: 1 },
    'response_length/clip_ratio': { title: 'Truncated responses (train)', yLabel: 'truncated (%)', scale: 100 },
  };
  return known[key] ?? { title: key, yLabel: key, scale: 1 };
}

/** The SVG of every curve in a summary: [file name without extension, svg]. */
export function summaryChartSvgs(s: Summary): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, perPreset] of Object.entries(s.curves)) {
    const series = Object.entries(perPreset).map(([name, band]) => ({ name, band }));
    if (!series.length) continue;
    const l = chartLabels(key);
    const targets = [...new Set(Object.keys(perPreset).map((p) => s.presets[p]?.entropyTarget).filter((t) => Number.isFinite(t)))];
    const refLines = key === 'actor/entropy' ? targets.map((t) => ({ y: t, label: `target ${t}` })) : [];
    out.push([chartFileName(key), curveChartSvg(series, { ...l, refLines })]);
  }
  return out;
}

/**
 * Renders SVG files to PNG with headless Chromium (Playwright; /usr/bin/chromium when present).
 * Returns the PNGs written, or the reason none could be.
 */
export async function renderPngs(files: { svg: string; png: string; width: number; height: number }[]): Promise<{ written: string[]; error?: string }> {
  if (!files.length) return { written: [] };
  let chromium: typeof import('@playwright/test').chromium;
  try {
    ({ chromium } = await import('@playwright/test'));
  } catch (e) {
    return { written: [], error: `Playwright is not installed (${(e as Error).message})` };
  }
  const executablePath = existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : undefined;
  let browser;
  try {
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
  } catch (e) {
    return { written: [], error: `cannot start Chromium (${(e as Error).message.split('\n')[0]})` };
  }
  const written: string[] = [];
  try {
    const page = await browser.newPage();
    const { readFileSync } = await import('node:fs');
    for (const f of files) {
      await page.setViewportSize({ width: f.width, height: f.height });
      await page.setContent(`<!doctype html><html><body style="margin:0">${readFileSync(f.svg, 'utf8')}</body></html>`);
      await page.locator('svg').screenshot({ path: f.png });
      written.push(f.png);
    }
  } finally {
    await browser.close();
  }
  return { written };
}

/** Writes DIR/charts/<metric>.svg for every curve, then the PNGs; returns the chart paths relative to DIR. */
export async function writeCharts(dir: string, s: Summary, o: { png?: boolean; log?: (s: string) => void } = {}): Promise<string[]> {
  const chartsDir = join(dir, 'charts');
  mkdirSync(chartsDir, { recursive: true });
  const svgs = summaryChartSvgs(s);
  const files = svgs.map(([name, svg]) => {
    const file = join(chartsDir, `${name}.svg`);
    replaceFileWhole(file, svg);
    const [, w, h] = /width="(\d+)" height="(\d+)"/.exec(svg)!;
    return { name, svg: file, png: join(chartsDir, `${name}.png`), width: Number(w), height: Number(h) };
  });
  if (o.png === false) return files.map((f) => `charts/${f.name}.svg`);
  const r = await renderPngs(files);
  if (r.error) o.log?.(`charts: SVG only, no PNG: ${r.error}`);
  return files.map((f) => (r.written.includes(f.png) ? `charts/${f.name}.png` : `charts/${f.name}.svg`));
}
