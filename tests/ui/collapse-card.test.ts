/**
 * The collapse card (src/ui/lib/collapse-card.ts): a rung card that joins the list once the
 * reference index lists entropy-control at the small rung, reads that rung's reference runs only,
 * and whose comparison line names the step of collapse by the sweep's rule. Checked on the
 * synthetic fixture (tests/ui/collapse-fixture.ts, e2e/fixtures/collapse/) until the real file ships.
 */
import { mkdtempSync, readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rungOf } from '../../src/rl/config';
import { writeReference } from '../../src/sweep/reference';
import { collapseStats, type Row } from '../../src/sweep/run-metrics';
import { COLLAPSE_CARD, COLLAPSE_CARD_READY, experimentsFor, findCard } from '../../src/ui/lib/collapse-card';
import { EXPERIMENTS, experimentConfig, experimentSearch, setupRefPreset, setupRung } from '../../src/ui/lib/experiments';
import { validateReferenceFile, validateReferenceIndex, type ReferenceFile, type ReferenceIndexEntry } from '../../src/ui/lib/reference';
import { armReference, checkClaim, claimText, curveCollapse, curveStepRows } from '../../src/ui/lib/try-claims';
import { cardReferenceEntries, cardReferenceFile, compareArms, referenceEntropySeries, type ArmSeries } from '../../src/ui/lib/try-play';
import { collapseFixture, FIXTURE_DIR } from './collapse-fixture';

const ROOT = join(__dirname, '../..');
const fixtureText = (f: string) => readFileSync(join(ROOT, FIXTURE_DIR, f), 'utf8');
const shippedIndex = validateReferenceIndex(JSON.parse(readFileSync(join(ROOT, 'public/reference/index.json'), 'utf8')));
const fixtureIndex = validateReferenceIndex(JSON.parse(fixtureText('index.json')));
const smallEntry = fixtureIndex.entries[0];
const fixture = validateReferenceFile(JSON.parse(fixtureText('entropy-control-small.json')), 'entropy-control-small.json', smallEntry);
const tinyFiles: ReferenceFile[] = readdirSync(join(ROOT, 'public/reference'))
  .filter((f) => f.endsWith('.json') && f !== 'index.json')
  .map((f) => validateReferenceFile(JSON.parse(readFileSync(join(ROOT, 'public/reference', f), 'utf8')), f));
const armsIn = (files: readonly ReferenceFile[]) => Object.fromEntries(COLLAPSE_CARD.setups.map((s) => [s.key, armReference(files, setupRefPreset(s)!, setupRung(s))]));

describe('the collapse fixture', () => {
  it('is what the real writer makes from tests/ui/collapse-fixture.ts (UPDATE_COLLAPSE_FIXTURE=1 rewrites it)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'collapse-fixture-'));
    writeReference(dir, collapseFixture());
    for (const f of ['entropy-control-small.json', 'index.json']) {
      const made = readFileSync(join(dir, f), 'utf8');
      if (process.env.UPDATE_COLLAPSE_FIXTURE === '1') writeFileSync(join(ROOT, FIXTURE_DIR, f), made);
      expect(fixtureText(f), f).toBe(made);
    }
    expect(smallEntry).toMatchObject({ name: 'entropy-control-small', file: 'entropy-control-small.json', rung: 'small', presets: ['magic', 'entropy-off'] });
    expect(fixture.rung).toBe('small');
  });

  it('a bad or mismatched rung is one error naming the field and file', () => {
    const bad = JSON.parse(fixtureText('index.json'));
    bad.entries[0].rung = 'huge';
    expect(() => validateReferenceIndex(bad)).toThrow(/reference\/index\.json: entries\[0\]\.rung must be one of tiny, small, medium, got "huge"/);
    const file = JSON.parse(fixtureText('entropy-control-small.json'));
    expect(() => validateReferenceFile({ ...file, rung: 3 }, 'entropy-control-small.json')).toThrow(/entropy-control-small\.json: rung must be one of/);
    expect(() => validateReferenceFile(file, 'entropy-control-small.json', { ...smallEntry, rung: undefined })).toThrow(/rung is "small" but the index lists this file at rung "tiny"/);
  });
});

describe('the collapse card', () => {
  it('joins the cards once the index lists entropy-control at the small rung (not tiny\'s file of the same finding)', () => {
    expect(COLLAPSE_CARD_READY(shippedIndex.entries)).toBe(shippedIndex.entries.some((e) => e.name === 'entropy-control-small' && e.rung === 'small'));
    expect(experimentsFor([...shippedIndex.entries, smallEntry]).map((e) => e.id)).toEqual([...EXPERIMENTS.map((e) => e.id), 'collapse']);
    const notMarked: ReferenceIndexEntry = { ...smallEntry, rung: undefined };
    expect(experimentsFor([notMarked])).toBe(EXPERIMENTS);
    expect(findCard('collapse.b')?.setup.key).toBe('b');
    expect(findCard('temperature.a')?.experiment.id).toBe('temperature');
  });

  it('trains at the small rung from its base; its link carries rung=small', () => {
    for (const s of COLLAPSE_CARD.setups) expect(rungOf(experimentConfig(s)), s.key).toBe('small');
    expect(experimentConfig(COLLAPSE_CARD.setups[1]).loss.entropy.mode).toBe('off');
    expect(experimentSearch(COLLAPSE_CARD, COLLAPSE_CARD.setups[0])).toMatch(/[?&]rung=small/);
    expect(experimentSearch(COLLAPSE_CARD, COLLAPSE_CARD.setups[0])).toMatch(/try=collapse\.a/);
  });

  it('reads its rung\'s reference entries and files only', () => {
    const tiny = shippedIndex.entries.filter((e) => !e.rung);
    expect(cardReferenceEntries(COLLAPSE_CARD, tiny)).toBeNull(); // tiny's magic and entropy-off do not stand in
    expect(cardReferenceEntries(COLLAPSE_CARD, [...tiny, smallEntry])).toEqual([smallEntry]);
    // ...and a tiny card never takes the small file's presets of the same name.
    const tinyCard = EXPERIMENTS.find((e) => e.id === 'entropy-control')!;
    expect(cardReferenceEntries(tinyCard, [smallEntry])).toBeNull();
    expect(cardReferenceFile(COLLAPSE_CARD, [...tinyFiles.filter((f) => !f.rung), fixture])!.presets['A: MAGIC (small rung)']).toBe(fixture.presets.magic);
    expect(cardReferenceFile(COLLAPSE_CARD, tinyFiles.filter((f) => !f.rung))).toBeNull();
  });

  it('every claim holds in the fixture; against tiny\'s files alone each arm is an error, not a pass', () => {
    const fails = (COLLAPSE_CARD.claims ?? []).map((c) => [claimText(c), checkClaim(c, armsIn([fixture, ...tinyFiles]))] as const).filter(([, why]) => why !== null);
    expect(fails).toEqual([]);
    const tinyOnly = tinyFiles.filter((f) => !f.rung);
    for (const c of COLLAPSE_CARD.claims ?? []) expect(checkClaim(c, armsIn(tinyOnly)), claimText(c)).toMatch(/has no reference run/);
    // The collapse claims can fail: the arms swapped.
    expect(checkClaim({ metric: 'entropy', arm: 'a', relation: 'collapses', window: 'all' }, armsIn([fixture]))).toMatch(/does not collapse/);
    expect(checkClaim({ metric: 'entropy', arm: 'b', relation: 'holds-target', window: 'all' }, armsIn([fixture]))).toMatch(/below 0.9 × the target 0.1/);
    expect(checkClaim({ metric: 'entropy', arm: 'b', relation: 'never-collapses', window: 'all' }, armsIn([fixture]))).toMatch(/collapses: its 10-step mean falls below the target 0.1 at step \d+ for \d+ steps/);
    expect(checkClaim({ metric: 'entropy', arm: 'a', relation: 'never-collapses', window: 'all' }, armsIn([fixture]))).toBeNull();
  });

  it('its comparison line names the moment of collapse from the reference curves', () => {
    const file = cardReferenceFile(COLLAPSE_CARD, [fixture])!;
    const series: ArmSeries[] = COLLAPSE_CARD.setups.map((s) => referenceEntropySeries(s.label, file.presets[s.label]));
    const text = compareArms(series, 0.1, { collapse: true });
    // e2e/collapse-card.spec.ts expects the same step.
    expect(text).toMatch(/^A's 10-step mean held at or above 0\.9× the target; B's entropy fell through the target 0\.1 at step 124 and stayed below it\. Mean entropy over the last 20% of steps: A 0\.1\d+, B 0\.0\d+ nats\.$/);
    // Without the option the line is the other cards' (unchanged).
    expect(compareArms(series, 0.1)).toMatch(/^B's entropy fell below the target 0\.1 at step \d+; A's never did\./);
  });
});

describe('the collapse rule on curves (the sweep\'s collapseStats, per step)', () => {
  const rows = (vs: number[]): Row[] => vs.map((v, i) => ({ step: i + 1, 'actor/entropy': v }) as Row);

  it('a per-step series comes back unchanged; a binned grid is held over its bins', () => {
    expect(curveStepRows([1, 2, 3], [0.3, 0.2, 0.1]).map((r) => [r.step, r['actor/entropy']])).toEqual([[1, 0.3], [2, 0.2], [3, 0.1]]);
    expect(curveStepRows([0, 1], [0.5, 0.4]).map((r) => r.step)).toEqual([0, 1]);
    // aggregateCurves' bins of 10 ending at 10, 20, 25 (a short last bin).
    const g = curveStepRows([10, 20, 25], [0.3, 0.2, 0.1]);
    expect(g.map((r) => r.step)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect([g[9]['actor/entropy'], g[10]['actor/entropy'], g[24]['actor/entropy']]).toEqual([0.3, 0.2, 0.1]);
  });

  it('collapse: the first step of ≥ 50 steps with a 10-step mean below the target (odd length)', () => {
    const vs = Array.from({ length: 137 }, (_, i) => (i < 40 ? 0.2 : 0.05));
    const c = curveCollapse(rows(vs).map((r) => r.step), vs, 0.1);
    expect(c).toMatchObject({ collapsed: 1, belowAtEnd: true });
    expect(c.collapseStep).toBe(collapseStats(rows(vs), 0.1).collapseStep);
    expect(c.collapseStep).toBe(47); // steps 38..47: 3 × 0.2 + 7 × 0.05 → 0.095 < 0.1 (at 46: 0.11)
    // A steady 0.095 is below the target throughout: by the sweep's rule that is a collapse, not "held".
    expect(curveCollapse([...Array(60).keys()].map((i) => i + 1), Array(60).fill(0.095), 0.1).collapseStep).toBe(10);
    const text = compareArms([{ label: 'A: held', steps: rows(vs).map((r) => r.step), values: vs.map(() => 0.12) }, { label: 'B: off', steps: rows(vs).map((r) => r.step), values: vs }], 0.1, { collapse: true });
    expect(text).toMatch(/^A's 10-step mean held at or above 0\.9× the target; B's entropy fell through the target 0\.1 at step 47 and stayed below it\./);
  });

  it('no collapse: a dip shorter than 50 steps, or a series too short (odd lengths)', () => {
    const dip = Array.from({ length: 101 }, (_, i) => (i >= 30 && i < 60 ? 0.05 : 0.2));
    const c = curveCollapse(dip.map((_, i) => i + 1), dip, 0.1);
    expect(c.collapsed).toBe(0);
    expect(Number.isNaN(c.collapseStep)).toBe(true);
    const back = Array.from({ length: 151 }, (_, i) => (i >= 20 && i < 100 ? 0.05 : 0.2));
    const steps = back.map((_, i) => i + 1);
    expect(compareArms([{ label: 'A: dip', steps, values: dip.concat(Array(50).fill(0.2)) }, { label: 'B: back', steps, values: back }], 0.1, { collapse: true })).toMatch(
      /^A's 10-step mean dipped to 0\.050 at step 40, below 0\.9× the target, but was below the target for at most 27 steps in a row \(a collapse is 50\); B's entropy fell through the target 0\.1 at step 27 and stayed below it for at least 50 steps\./,
    );
    const short = [0.2, 0.1, 0.05, 0.01, 0.0, 0.0, 0.0];
    expect(compareArms([{ label: 'A: x', steps: [1, 2, 3, 4, 5, 6, 7], values: short }, { label: 'B: y', steps: [1, 2, 3, 4, 5, 6, 7], values: short }], 0.1, { collapse: true })).toMatch(/^A has fewer than 10 steps; B has fewer than 10 steps\./);
  });
});

describe('the shipped collapse card (public/reference/entropy-control-small.json, seeds 101–105)', () => {
  it('is listed by the shipped index, and its line names the step the sweep\'s rule gives (e2e/collapse-card.spec.ts expects it)', () => {
    expect(COLLAPSE_CARD_READY(shippedIndex.entries)).toBe(true);
    const entry = shippedIndex.entries.find((e) => e.name === 'entropy-control-small')!;
    const shipped = validateReferenceFile(JSON.parse(readFileSync(join(ROOT, 'public/reference/entropy-control-small.json'), 'utf8')), 'entropy-control-small.json', entry);
    const file = cardReferenceFile(COLLAPSE_CARD, [shipped])!;
    const series: ArmSeries[] = COLLAPSE_CARD.setups.map((s) => referenceEntropySeries(s.label, file.presets[s.label]));
    const twin = curveCollapse(series[1].steps, series[1].values, 0.1);
    const magic = curveCollapse(series[0].steps, series[0].values, 0.1);
    expect(twin.collapsed).toBe(1);
    expect(magic.collapsed).toBe(0);
    expect(twin.collapseStep).toBe(15);
    expect(compareArms(series, 0.1, { collapse: true })).toContain("B's entropy fell through the target 0.1 at step 15 and stayed below it.");
  });
});
