/**
 * Every Try-this card may claim only what its arms' reference runs (public/reference/, means over
 * seeds) show: each structured claim is checked here; the two claims the cards once made wrongly
 * must fail. The cards are the ones the page lists with the shipped index (a rung card,
 * lib/collapse-card.ts, joins once index.json lists its rung's file), each arm read from its
 * rung's files only: a listed card whose rung's file is missing fails here, it is not skipped.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { experimentsFor } from '../../src/ui/lib/collapse-card';
import { setupRefPreset, setupRung, type Experiment } from '../../src/ui/lib/experiments';
import { validateReferenceFile, validateReferenceIndex, type ReferenceFile } from '../../src/ui/lib/reference';
import { armReference, checkClaim, CLAIM_METRICS, claimText, type ArmReference, type Claim } from '../../src/ui/lib/try-claims';
import { chartSpecs } from '../../src/ui/lib/chartdata';
import { experimentConfig } from '../../src/ui/lib/experiments';
import { referenceSeries } from '../../src/ui/lib/refchart';
import { readContrast, referenceArmCurve } from '../../src/ui/lib/card-contrast';

const DIR = join(__dirname, '../../public/reference');
const files: ReferenceFile[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json') && f !== 'index.json')
  .sort()
  .map((f) => validateReferenceFile(JSON.parse(readFileSync(join(DIR, f), 'utf8')), f));

const index = validateReferenceIndex(JSON.parse(readFileSync(join(DIR, 'index.json'), 'utf8')));
const EXPERIMENTS: readonly Experiment[] = experimentsFor(index.entries);

const armsOf = (id: string): Record<string, ArmReference | null> => {
  const e = EXPERIMENTS.find((x) => x.id === id)!;
  return Object.fromEntries(e.setups.map((s) => [s.key, setupRefPreset(s) ? armReference(files, setupRefPreset(s)!, setupRung(s)) : null]));
};

describe('Try-this card claims against the reference runs', () => {
  for (const e of EXPERIMENTS) {
    it(`${e.id}: every claim holds in its reference runs`, () => {
      const arms = armsOf(e.id);
      const failures = (e.claims ?? []).map((c) => [claimText(c), checkClaim(c, arms)] as const).filter(([, why]) => why !== null);
      expect(failures).toEqual([]);
    });
  }

  it('every full-size card with reference arms states at least one checked claim', () => {
    for (const e of EXPERIMENTS) {
      const arms = armsOf(e.id);
      if (Object.values(arms).every(Boolean)) expect(e.claims?.length ?? 0, e.id).toBeGreaterThan(0);
    }
  });

  it('every reference arm of a card is in public/reference/', () => {
    for (const e of EXPERIMENTS)
      for (const s of e.setups) if (setupRefPreset(s)) expect(armReference(files, setupRefPreset(s)!, setupRung(s)), `${e.id}.${s.key}: no ${setupRefPreset(s)} at rung ${setupRung(s)} in public/reference/`).not.toBeNull();
  });

  it("every chart a card points to draws each reference arm's curves (no 'no data yet' under a card)", () => {
    const missing: string[] = [];
    for (const e of EXPERIMENTS)
      for (const s of e.setups) {
        const ref = setupRefPreset(s) ? armReference(files, setupRefPreset(s)!, setupRung(s)) : null;
        if (!ref) continue;
        const file = files.find((f) => f.name === ref.file)!;
        const one = { ...file, presets: { [ref.preset]: ref.data } };
        for (const id of e.charts) {
          const spec = chartSpecs(experimentConfig(s)).find((c) => c.id === id);
          if (!spec) {
            missing.push(`${e.id}: no chart ${id}`);
            continue;
          }
          const drawn = new Set(referenceSeries(spec, one).map((r) => r.seriesKey));
          // Every per-step series, and at least one held-out series where the chart has them.
          for (const x of spec.series) if (x.source === 'step' && !drawn.has(x.key)) missing.push(`${e.id}.${s.key} ${id}: ${ref.file} has no ${x.key}`);
          if (spec.series.some((x) => x.source === 'eval') && !spec.series.some((x) => x.source === 'eval' && drawn.has(x.key))) missing.push(`${e.id}.${s.key} ${id}: no held-out curve`);
        }
      }
    expect(missing).toEqual([]);
  });

  it("every contrast of a card with reference arms reads from them, on one of the card's charts, and differs as shown at the card's rung", () => {
    const bad: string[] = [];
    for (const e of EXPERIMENTS) {
      const arms = armsOf(e.id);
      if (!Object.values(arms).every(Boolean)) continue;
      for (const c of e.contrasts) {
        if (!e.charts.includes(c.chart)) bad.push(`${e.id}: contrast on ${c.chart}, not one of its charts`);
        const r = readContrast(c, e.setups.map((s) => referenceArmCurve(s.label, arms[s.key]!.data, c.metric)));
        if (!r) bad.push(`${e.id}: ${c.metric} has no points for both arms`);
        else if (/the same for/.test(r.sentence)) bad.push(`${e.id}: ${r.sentence}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it("every card contrast has a checked claim on the same curve and window: the arms' 95% bands apart (or one arm's α zero, the other's not)", () => {
    const missing: string[] = [];
    for (const e of EXPERIMENTS) {
      if (!Object.values(armsOf(e.id)).every(Boolean)) continue;
      for (const c of e.contrasts) {
        const same = (e.claims ?? []).filter((x) => CLAIM_METRICS[x.metric] === c.metric && JSON.stringify(x.window) === JSON.stringify(c.window));
        if (!same.some((x) => ('bands' in x && x.bands) || x.relation === 'zero' || x.relation === 'nonzero')) missing.push(`${e.id}: ${c.metric} ${JSON.stringify(c.window)}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('fails the claims the cards once made wrongly', () => {
    // "τ = 0.6 starts below the target": it starts at ~0.14, above 0.1.
    const tau: Claim = { metric: 'entropy', arm: 'b', relation: 'below-target', window: 'start' };
    expect(checkClaim(tau, armsOf('temperature'))).toMatch(/is not below the target 0.1/);
    // The reverse of the filtering card's "B ends lower than A" fails.
    const drift: Claim = { metric: 'entropy', arm: 'b', relation: 'above', than: 'a', window: 'end' };
    expect(checkClaim(drift, armsOf('filtering'))).toMatch(/is not above a/);
    // The entropy-control card's old arm B (no entropy term) is gone: a claim about it has no run to read.
    expect(checkClaim({ metric: 'entropy', arm: 'b', relation: 'similar', than: 'a', window: { to: 80 }, within: 0.01 }, armsOf('entropy-control'))).toMatch(/arm b has no reference run/);
    // τ = 0.6's realised α is larger over 80 steps, but the 95% bands overlap: no contrast the card may state.
    const alpha: Claim = { metric: 'entropy-coeff', arm: 'b', relation: 'above', than: 'a', window: { to: 80 } };
    expect(checkClaim(alpha, armsOf('temperature'))).toBeNull();
    expect(checkClaim({ ...alpha, bands: true }, armsOf('temperature'))).toMatch(/^b's 95% band \[.*\] overlaps a's \[.*\] \(steps ≤ 80\)$/);
    // An arm without reference data fails rather than passes.
    expect(checkClaim(tau, { a: null })).toMatch(/arm b has no reference run/);
  });
});
