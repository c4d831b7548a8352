/** `magic-lab bench --roofline`: its chart draws every rung, and its flags refuse what it cannot do. */
import { describe, expect, it } from 'vitest';
import { bench } from '../../src/cli/bench';
import { efficiencySvg } from '../../src/cli/roofline-svg';

describe('roofline chart and flags', () => {
  it('draws one line per series with a labelled point per rung', () => {
    const svg = efficiencySvg(
      [
        { label: 'tiny', params: 1e5, values: { train: 0.2, sampling: 0.05 } },
        { label: 'small', params: 8e5, values: { train: 0.3, sampling: 0.1 } },
      ],
      't',
      's',
    );
    expect(svg.match(/<polyline/g)?.length).toBe(2);
    expect(svg.match(/<circle/g)?.length).toBe(4);
    expect(svg).toContain('small 30.0%');
    // Every point lies inside the plot frame (the y axis reaches past the largest value).
    const frame = svg.match(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none"/)!.slice(1).map(Number);
    const high = efficiencySvg([{ label: 'a', params: 1e5, values: { train: 0.76 } }, { label: 'b', params: 4e6, values: { train: 0.2 } }], 't', 's');
    for (const chart of [svg, high]) {
      for (const m of chart.matchAll(/<circle cx="([\d.]+)" cy="([\d.]+)"/g)) {
        const [cx, cy] = [Number(m[1]), Number(m[2])];
        expect(cx > frame[0] && cx < frame[0] + frame[2] && cy > frame[1] && cy < frame[1] + frame[3], `point ${cx},${cy} outside the frame`).toBe(true);
      }
    }
    expect(() => efficiencySvg([], 't', 's')).toThrow(/no points/);
  });

  it('refuses --svg without --roofline and --roofline with another backend', async () => {
    await expect(bench(['--svg', 'x.svg'], () => {})).rejects.toThrow(/--svg: only with --roofline/);
    await expect(bench(['--roofline', '--backend', 'webgpu'], () => {})).rejects.toThrow(/--backend wasm/);
    await expect(bench(['--roofline', '--compare'], () => {})).rejects.toThrow(/cannot be combined with --compare/);
  });
});
