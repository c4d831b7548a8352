import { describe, expect, it } from 'vitest';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { EXPERIMENTS, experimentConfig, experimentSearch, findExperiment, SHORT_STAGE_STEPS } from '../../src/ui/lib/experiments';
import { HIDEABLE, shownFor, studentSearch, teachingFromUrl, withTeaching } from '../../src/ui/lib/teach';
import { setupFromUrl } from '../../src/ui/lib/url';

describe('teacher mode URL', () => {
  it('reads teacher=1 and hide=, keeps known ids in the bar order, lists unknown ones', () => {
    const t = teachingFromUrl('?preset=magic&hide=stages,config,nope&teacher=1');
    expect(t).toEqual({ teacher: true, hidden: ['stages', 'config'], unknown: ['nope'], tryId: null });
    expect(teachingFromUrl('')).toEqual({ teacher: false, hidden: [], unknown: [], tryId: null });
    expect(teachingFromUrl('?teacher=0').teacher).toBe(false);
    expect(teachingFromUrl('?hide=chart-clipfrac&hide=runs').hidden).toEqual(['chart-clipfrac', 'runs']);
  });
  it('writes them back with readable commas and keeps the config parameters', () => {
    const s = withTeaching('?preset=temp-0.6&seed=3', { teacher: true, hidden: ['config', 'presets'] });
    expect(s).toBe('?preset=temp-0.6&seed=3&teacher=1&hide=presets,config');
    expect(withTeaching(s, { hidden: [] })).toBe('?preset=temp-0.6&seed=3&teacher=1');
    expect(studentSearch(`${s}&run=run-x`)).toBe('?preset=temp-0.6&seed=3&hide=presets,config');
  });
  it('the page parameters do not make the config link invalid', () => {
    const u = setupFromUrl('?preset=magic-tiny&teacher=1&hide=config,stages&try=first-look.a&loss.epsHigh=0.25');
    expect(u.error).toBeNull();
    expect(u.preset).toBe('magic-tiny');
    expect(u.config.loss.epsHigh).toBe(0.25);
  });
  it('hiding the whole config hides each of its groups', () => {
    const shown = shownFor(['config']);
    expect(shown('config-loss')).toBe(false);
    expect(shown('stages')).toBe(true);
    expect(shownFor(['config-model'])('config-loss')).toBe(true);
    expect(new Set(HIDEABLE.map((h) => h.id)).size).toBe(HIDEABLE.length);
    expect(HIDEABLE.map((h) => h.id)).toContain('chart-entropy');
  });
});

describe('Try-this cards', () => {
  it('every setup builds a valid config; full-size ones are shortened, keeping lengths and batch', () => {
    for (const e of EXPERIMENTS) {
      expect(e.setups.length, e.id).toBeGreaterThanOrEqual(1);
      for (const s of e.setups) {
        const cfg = experimentConfig(s);
        expect(() => validateRunConfig(cfg)).not.toThrow();
        const base = getPreset(s.preset);
        if (!s.fullSchedule) {
          expect(cfg.stages.map((x) => x.steps)).toEqual(base.stages.map(() => SHORT_STAGE_STEPS));
          // The stored offline-filter result is keyed by these: they must not change.
          expect(cfg.stages.map((x) => x.maxResponseLength)).toEqual(base.stages.map((x) => x.maxResponseLength));
          expect(cfg.rollout).toEqual(base.rollout);
        }
      }
    }
  });
  it('each setup is a link that reproduces it (the existing URL encoding) and names the card', () => {
    for (const e of EXPERIMENTS)
      for (const s of e.setups) {
        const search = experimentSearch(e, s, '?backend=wasm&hide=runs');
        const back = setupFromUrl(search);
        expect(back.error, search).toBeNull();
        expect(back.preset).toBe(s.preset);
        expect(back.config).toEqual(experimentConfig(s));
        const t = teachingFromUrl(search);
        expect(t.tryId).toBe(`${e.id}.${s.key}`);
        expect(t.hidden).toEqual(['runs']);
        expect(new URLSearchParams(search).get('backend')).toBe('wasm');
        expect(findExperiment(t.tryId)?.setup).toBe(s);
      }
  });
  it('the comparisons differ in what they are about', () => {
    const temp = EXPERIMENTS.find((e) => e.id === 'temperature')!;
    expect(experimentConfig(temp.setups[1]).rollout.temperature).toBe(0.6);
    expect(experimentConfig(temp.setups[0]).rollout.temperature).toBe(1);
    const ent = EXPERIMENTS.find((e) => e.id === 'entropy-control')!;
    expect(ent.setups.map((s) => experimentConfig(s).loss.entropy.mode)).toEqual(['adaptive', 'constant']);
    expect(experimentSearch(ent, ent.setups[0])).toBe(`?preset=magic&stages=${encodeURIComponent(JSON.stringify(experimentConfig(ent.setups[0]).stages.map((x) => ({ maxResponseLength: x.maxResponseLength, steps: x.steps }))))}&try=entropy-control.a`.replace(/%2C/g, ','));
    // An arm with overrides carries them in its link.
    const first = EXPERIMENTS.find((e) => e.id === 'first-look')!;
    expect(experimentSearch(first, first.setups[1])).toBe('?preset=magic-tiny&loss.entropy.target=3&try=first-look.b');
    expect(findExperiment('nope.a')).toBeNull();
    expect(findExperiment(null)).toBeNull();
  });
});
