// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { composeChartSvg, escapeXml, layoutChartPng, PNG_PAD, textWidth } from '../../src/ui/lib/chartpng';

describe('chart PNG composition (title, chart with its axes, x axis name, legend)', () => {
  const legend = [
    { label: 'train reward', colour: '#2563eb' },
    { label: 'avg@2 τ=1', colour: '#dc2626', dash: '4 2', dot: true },
    { label: 'reference: magic (5 seeds)', colour: '#0d9488', band: true },
  ];

  it('puts the title above the chart, the x axis name under it and the legend below, inside the image', () => {
    const l = layoutChartPng({ title: 'Reward & held-out accuracy', chartWidth: 400, chartHeight: 170, legend });
    expect(l.width).toBe(400 + 2 * PNG_PAD);
    expect(l.titleY).toBeLessThan(l.chartY);
    expect(l.xLabelY).toBeGreaterThan(l.chartY + 170);
    expect(l.legend).toHaveLength(3);
    for (const e of l.legend) {
      expect(e.y).toBeGreaterThan(l.xLabelY);
      expect(e.y).toBeLessThan(l.height);
      expect(e.x + 22 + textWidth(e.entry.label)).toBeLessThanOrEqual(l.width);
    }
    // Entries of one row do not overlap.
    const [a, b] = l.legend;
    expect(b.x).toBeGreaterThanOrEqual(a.x + 22 + textWidth(a.entry.label));
  });

  it('wraps legend rows at the chart width; a long title widens the image', () => {
    const many = Array.from({ length: 12 }, (_, i) => ({ label: `run ${i}: avg@8 τ=0.6`, colour: '#000' }));
    const l = layoutChartPng({ title: 'x', chartWidth: 300, chartHeight: 100, legend: many });
    const rows = new Set(l.legend.map((e) => e.y));
    expect(rows.size).toBeGreaterThan(3);
    for (const e of l.legend) expect(e.x + 22 + textWidth(e.entry.label)).toBeLessThanOrEqual(l.width - PNG_PAD + 1e-9);
    expect(layoutChartPng({ title: 'T'.repeat(100), chartWidth: 200, chartHeight: 100, legend: [] }).width).toBeGreaterThan(200 + 2 * PNG_PAD);
    // No legend: the image ends under the x axis name.
    const bare = layoutChartPng({ title: 'x', chartWidth: 200, chartHeight: 100, legend: [] });
    expect(bare.height).toBe(bare.xLabelY + PNG_PAD);
  });

  it('composes one SVG with the title, subtitle, the nested chart, the axis name and every legend label (escaped)', () => {
    const chart = '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="170"><g class="recharts-xAxis"></g></svg>';
    const { svg, width, height } = composeChartSvg({ title: 'Reward & held-out <accuracy>', subtitle: 'magic-tiny #1', chartSvg: chart, chartWidth: 400, chartHeight: 170, legend });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain(`width="${width}" height="${height}"`);
    expect(svg).toContain('Reward &amp; held-out &lt;accuracy&gt;');
    expect(svg).toContain('magic-tiny #1');
    expect(svg).toContain(chart);
    expect(svg).toMatch(/>step<\/text>/);
    for (const e of legend) expect(svg).toContain(`>${escapeXml(e.label)}</text>`);
    expect(svg).toContain('stroke-dasharray="4 2"');
    expect(svg.match(/<circle /g)).toHaveLength(1); // the held-out entry's dot
    expect(svg.match(/fill-opacity="0.25"/g)).toHaveLength(1); // the band's swatch
    expect(new DOMParser().parseFromString(svg, 'image/svg+xml').querySelector('parsererror')).toBeNull();
  });
});
