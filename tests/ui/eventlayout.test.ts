import { describe, expect, it } from 'vitest';
import { labelWidth, layoutEventLabels, placeEventMarks, ROW_HEIGHT } from '../../src/ui/lib/eventlayout';

const box = (x: number, anchor: 'start' | 'end', text: string) => (anchor === 'start' ? [x, x + labelWidth(text)] : [x - labelWidth(text), x]);
const overlaps = (a: number[], b: number[]) => a[0] < b[1] && b[0] < a[1];

describe('event label layout', () => {
  const opts = { left: 44, right: 300 };

  it('a lone label starts just right of its line, on the lowest row', () => {
    expect(layoutEventLabels([{ x: 100, text: 'α on' }], opts)).toEqual([{ x: 102, anchor: 'start', row: 0, shown: true }]);
  });

  it('"α on" and "α off" one step apart are stacked, not run together', () => {
    const labels = [
      { x: 120, text: 'α on' },
      { x: 124, text: 'α off' },
    ];
    const out = layoutEventLabels(labels, opts);
    expect(out.every((o) => o.shown)).toBe(true);
    expect(out[0].row).toBe(0);
    expect(out[1].row).toBe(1);
  });

  it('no label runs past the right edge: one near it ends at its line instead', () => {
    const out = layoutEventLabels([{ x: 298, text: 'collapse' }], opts);
    expect(out[0]).toMatchObject({ anchor: 'end', shown: true });
    const [a, b] = box(out[0].x, out[0].anchor, 'collapse');
    expect(b).toBeLessThanOrEqual(300);
    expect(a).toBeGreaterThanOrEqual(44);
  });

  it('many labels at one place: placed rows never overlap, and those with no free row are dropped', () => {
    const labels = Array.from({ length: 8 }, (_, i) => ({ x: 200 + i, text: `event ${i}` }));
    const out = layoutEventLabels(labels, { ...opts, rows: 3 });
    expect(out.filter((o) => o.shown)).toHaveLength(3);
    expect(out.slice(3).every((o) => !o.shown)).toBe(true);
    for (let i = 0; i < out.length; i++)
      for (let j = i + 1; j < out.length; j++) {
        if (!out[i].shown || !out[j].shown || out[i].row !== out[j].row) continue;
        expect(overlaps(box(out[i].x, out[i].anchor, labels[i].text), box(out[j].x, out[j].anchor, labels[j].text))).toBe(false);
      }
    for (const [i, o] of out.entries()) if (o.shown) expect(box(o.x, o.anchor, labels[i].text)[1]).toBeLessThanOrEqual(300);
  });

  it('a line outside the plot gets no label; the result keeps the input order', () => {
    const out = layoutEventLabels(
      [
        { x: 250, text: 'b' },
        { x: 10, text: 'off plot' },
        { x: 60, text: 'a' },
      ],
      opts,
    );
    expect(out.map((o) => o.shown)).toEqual([true, false, true]);
    expect(out[0].x).toBe(252);
    expect(out[2].x).toBe(62);
  });
});

describe('event marks on the canvas', () => {
  const plot = { x: 44, y: 6, width: 256, height: 140 };
  it('a line at each step on the x domain, off-domain ones not drawn, labels in rows above the foot', () => {
    const marks = placeEventMarks(
      [
        { step: 50, label: 'α on' },
        { step: 51, label: 'α off' },
        { step: 250, label: 'α on' },
      ],
      [0, 200],
      plot,
    );
    expect(marks[0].x).toBe(44 + 64);
    expect(marks[1].x).toBeCloseTo(44 + 51 * 1.28);
    // Past the domain's end: neither line nor label.
    expect(marks[2].x).toBeNull();
    expect(marks[2].label.shown).toBe(false);
    // The two near labels stacked: the lowest row 3 px above the foot, the next ROW_HEIGHT above it.
    expect(marks.slice(0, 2).map((m) => m.label.y).sort((a, b) => b - a)).toEqual([6 + 140 - 3, 6 + 140 - 3 - ROW_HEIGHT]);
  });
});
