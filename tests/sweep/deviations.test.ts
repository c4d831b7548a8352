/** REPLICATION.md's deviations section: the lab's values come from the rungs' configs, every differing field is listed with a reason. */
import { describe, expect, it } from 'vitest';
import { getPreset, rungBaseConfig } from '../../src/rl/config';
import { DEVIATIONS, deviationsMarkdown } from '../../src/sweep/deviations';

const row = (md: string[], field: string) => md.find((l) => l.startsWith(`| \`${field}\``))!;

describe('deviations from the paper', () => {
  it("each row shows the rung's magic value, read from its config", () => {
    const md = deviationsMarkdown(['tiny', 'small']);
    for (const d of DEVIATIONS) {
      const cells = row(md, d.field).split(' | ');
      expect(cells[3]).toBe(String(d.value(getPreset('magic', 'tiny'))));
      expect(cells[4]).toBe(String(d.value(getPreset('magic', 'small'))));
    }
    expect(row(md, 'loss.entropy.delta')).toContain('| 0.005 | 0.02 |');
    expect(row(md, 'update.lr')).toContain('| 0.0006 | 0.0002 |');
  });

  it('names a reason for every rung shown, and the small rung its own where its value differs from tiny', () => {
    const md = deviationsMarkdown(['tiny', 'small']);
    for (const d of DEVIATIONS) {
      const r = row(md, d.field);
      expect(r).toContain('tiny: ');
      expect(r).toContain('small: ');
      if (d.value(rungBaseConfig('small')) !== d.value(rungBaseConfig('tiny'))) expect(d.why.small).toBeTruthy();
    }
  });

  it('covers the entropy controller and the learning rate, the fields issue #22 asks to justify', () => {
    expect(DEVIATIONS.map((d) => d.field)).toEqual(expect.arrayContaining(['update.lr', 'loss.entropy.target', 'loss.entropy.delta', 'loss.entropy.c0', 'loss.entropy.cMax']));
  });
});
