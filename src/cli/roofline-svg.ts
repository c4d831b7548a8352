/** The roofline chart of `magic-lab bench --roofline --svg FILE`: efficiency (% of peak) against parameter count (log axis). */
export interface EfficiencyPoint {
  label: string;
  params: number;
  /** Fractions of peak (0–1) of each series, by series name. */
  values: Record<string, number>;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmtParams = (n: number) => (n >= 1e6 ? `${Number((n / 1e6).toPrecision(3))}M` : n >= 1e3 ? `${Number((n / 1e3).toPrecision(3))}K` : String(n));

/** An SVG line chart: one line per series over the points, x = parameters (log), y = % of peak. */
export function efficiencySvg(points: EfficiencyPoint[], title: string, subtitle: string): string {
  if (points.length === 0) throw new Error('roofline chart: no points');
  const series = Object.keys(points[0].values);
  const W = 720;
  const H = 420;
  const m = { left: 64, right: 160, top: 56, bottom: 52 };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  const lx = points.map((p) => Math.log10(p.params));
  // A quarter decade of room on either side, so no point sits on the frame.
  const x0 = Math.min(...lx) - 0.25;
  const x1 = Math.max(...lx) + 0.25;
  const yMax = Math.max(10, ...points.flatMap((p) => Object.values(p.values).map((v) => v * 100))) * 1.05;
  const yStep = yMax > 50 ? 20 : 10;
  const y1 = Math.ceil(yMax / yStep) * yStep;
  const yTicks = Array.from({ length: y1 / yStep + 1 }, (_, i) => i * yStep);
  const X = (params: number) => m.left + ((Math.log10(params) - x0) / (x1 - x0)) * pw;
  const Y = (pct: number) => m.top + ph - (pct / y1) * ph;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(`<text x="${m.left}" y="22" font-size="15" font-weight="bold">${esc(title)}</text>`);
  out.push(`<text x="${m.left}" y="40" fill="#555">${esc(subtitle)}</text>`);
  for (const t of yTicks) {
    out.push(`<line x1="${m.left}" x2="${m.left + pw}" y1="${Y(t).toFixed(1)}" y2="${Y(t).toFixed(1)}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${m.left - 6}" y="${(Y(t) + 4).toFixed(1)}" text-anchor="end">${t}%</text>`);
  }
  for (let e = Math.ceil(x0); e <= x1; e++) {
    const x = X(10 ** e).toFixed(1);
    out.push(`<line x1="${x}" x2="${x}" y1="${m.top}" y2="${m.top + ph}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x}" y="${m.top + ph + 16}" text-anchor="middle">${fmtParams(10 ** e)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${H - 12}" text-anchor="middle">parameters (log scale)</text>`);
  out.push(`<text transform="translate(16 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle">% of peak GFLOP/s</text>`);
  series.forEach((name, i) => {
    const c = COLORS[i % COLORS.length];
    const pts = points.map((p) => `${X(p.params).toFixed(1)},${Y(p.values[name] * 100).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.join(' ')}"/>`);
    points.forEach((p) => {
      const v = p.values[name] * 100;
      out.push(`<circle cx="${X(p.params).toFixed(1)}" cy="${Y(v).toFixed(1)}" r="4" fill="${c}"><title>${esc(`${p.label} ${name}: ${v.toFixed(1)}%`)}</title></circle>`);
      out.push(`<text x="${(X(p.params) + 6).toFixed(1)}" y="${(Y(v) - 6).toFixed(1)}" fill="${c}">${esc(`${p.label} ${v.toFixed(1)}%`)}</text>`);
    });
    out.push(`<line x1="${m.left + pw + 14}" x2="${m.left + pw + 34}" y1="${m.top + 10 + i * 20}" y2="${m.top + 10 + i * 20}" stroke="${c}" stroke-width="2"/>`);
    out.push(`<text x="${m.left + pw + 40}" y="${m.top + 14 + i * 20}">${esc(name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
