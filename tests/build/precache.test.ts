/**
 * The service worker's precache list (vite.config.ts, written into dist/coi-sw.js at build): the
 * whole build but the service worker itself and the bases of on-demand rungs.
 */
import { describe, expect, it } from 'vitest';
import { getRung, RUNG_NAMES } from '../../src/rl/config/rungs';
import { ON_DEMAND_FILES, precachedFiles } from '../../vite.config';

describe('precache list', () => {
  it('keeps the page, the bundled bases and the reference runs; leaves out coi-sw.js and every on-demand base', () => {
    const bases = RUNG_NAMES.map(getRung);
    const bundled = bases.filter((r) => r.delivery === 'bundled').map((r) => r.baseFile);
    const onDemand = bases.filter((r) => r.delivery === 'on-demand').map((r) => r.baseFile);
    expect(bundled).toEqual(['checkpoints/base.mlck', 'checkpoints/base-small.mlck']);
    expect(onDemand).toEqual(['checkpoints/base-medium.mlck']);
    expect([...ON_DEMAND_FILES]).toEqual(onDemand); // the build's copy of the list agrees with the rungs
    const build = ['index.html', 'assets/index-1.js', 'coi-sw.js', 'reference/index.json', ...bundled, ...onDemand, 'checkpoints/base-small.sft.json'];
    expect(precachedFiles(build)).toEqual(['index.html', 'assets/index-1.js', 'reference/index.json', ...bundled, 'checkpoints/base-small.sft.json']);
  });
});
