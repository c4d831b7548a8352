import { describe, expect, it } from 'vitest';
import { getPreset, presetNames } from '../../src/rl/config';
import { studentSearch } from '../../src/ui/lib/teach';
import { backendFromUrl, nearestField, setupFromUrl, urlSearchFor, withBackend } from '../../src/ui/lib/url';

describe('config in the URL', () => {
  it('round-trips every preset unchanged', () => {
    for (const name of presetNames()) {
      const search = urlSearchFor(getPreset(name), name);
      expect(search).toBe(`?preset=${encodeURIComponent(name)}`);
      const back = setupFromUrl(search);
      expect(back.error).toBeNull();
      expect(back.preset).toBe(name);
      expect(back.config).toEqual(getPreset(name));
    }
  });

  it('round-trips edited fields, stages and the seed', () => {
    const cfg = getPreset('magic-tiny');
    cfg.seed = 42;
    cfg.loss.epsHigh = 0.26;
    cfg.stages = [...cfg.stages, { maxResponseLength: 16, steps: null, convergence: { window: 3, minImprovement: 0.02, maxSteps: 10 }, batchPrompts: 4, groupSize: null, temperature: 0.9 }];
    const search = urlSearchFor(cfg, 'magic-tiny', '?run=abc');
    expect(search).toContain('seed=42');
    expect(search).toContain('run=abc');
    const back = setupFromUrl(search);
    expect(back.error).toBeNull();
    expect(back.config).toEqual(cfg);
  });

  it('opens on magic with no parameters', () => {
    const s = setupFromUrl('');
    expect(s.preset).toBe('magic');
    expect(s.error).toBeNull();
  });

  it('a bad value is left out and named in one sentence; the preset and every other value are kept', () => {
    const bad = setupFromUrl('?preset=grpo-tiny&loss.epsLow=-3&seed=7');
    expect(bad.preset).toBe('grpo-tiny');
    expect(bad.config).toEqual({ ...getPreset('grpo-tiny'), seed: 7 });
    expect(bad.error).toBe("This link's loss.epsLow=-3 (must be in [0, 1), got -3) was left out; every other value is kept.");
    const unknown = setupFromUrl('?preset=nope&seed=3');
    expect(unknown.preset).toBe('magic');
    expect(unknown.config.seed).toBe(3);
    expect(unknown.error).toMatch(/^This link's preset=nope \(no such preset\) was left out/);
    const typo = setupFromUrl('?preset=magic-tiny&los.epsLow=0.1');
    expect(typo.preset).toBe('magic-tiny');
    expect(typo.error).toMatch(/los\.epsLow \(no such field; did you mean loss\.epsLow\?\)/);
  });

  it('keeps lr and the rung beside an unknown key, and hints the field a bare name means', () => {
    const s = setupFromUrl('?update.lr=0.001&foo=1&rung=small');
    expect(s.rung).toBe('small');
    expect(s.config.update.lr).toBe(0.001);
    expect(s.config.model).toEqual(getPreset('magic', 'small').model);
    expect(s.error).toBe("This link's foo (no such field) was left out; every other value is kept.");
    expect(setupFromUrl('?lr=abc').error).toBe("This link's lr (no such field; did you mean update.lr?) was left out; every other value is kept.");
    expect(nearestField('lr')).toBe('update.lr');
    expect(nearestField('update.lrr')).toBe('update.lr');
    expect(nearestField('zzzzzzzz')).toBeNull();
  });

  it('names every bad value at once; a key given twice uses neither value', () => {
    const s = setupFromUrl('?rung=huge&seed=5&seed=6&update.lr=abc&loss.epsHigh=0.3');
    expect(s.rung).toBe('tiny');
    expect(s.config.seed).toBe(getPreset('magic').seed);
    expect(s.config.loss.epsHigh).toBe(0.3);
    expect(s.error).toMatch(/^This link's rung=huge \(no such rung; rungs: tiny, small, medium\), seed \(given 2 times\) and update\.lr=abc \(must be a finite number, got "abc"\) were left out; every other value is kept\.$/);
    // One sentence: no full stop before the end.
    expect(s.error!.slice(0, -1)).not.toMatch(/\.\s/);
  });

  it('lesson= is a page parameter: accepted, and kept through config edits with the rung and the values', () => {
    const lesson = encodeURIComponent(JSON.stringify({ title: 'T', cards: [{ card: 'temperature' }] }));
    const search = `?preset=magic&rung=small&update.lr=0.002&lesson=${lesson}&teacher=1`;
    const s = setupFromUrl(search);
    expect(s.error).toBeNull();
    expect(s.rung).toBe('small');
    expect(s.config.update.lr).toBe(0.002);
    const edited = { ...s.config, seed: 9 };
    const next = new URLSearchParams(urlSearchFor(edited, s.preset, search, s.rung));
    expect(next.get('lesson')).toBe(decodeURIComponent(lesson));
    expect(next.get('rung')).toBe('small');
    expect(next.get('update.lr')).toBe('0.002');
    expect(next.get('seed')).toBe('9');
    expect(next.get('teacher')).toBe('1');
    // The students' link keeps all of it but the teacher bar.
    const student = new URLSearchParams(studentSearch(`?${next.toString()}`));
    expect([...student.keys()].sort()).toEqual(['lesson', 'preset', 'rung', 'seed', 'update.lr']);
    expect(setupFromUrl(`?${student.toString()}`)).toEqual({ ...s, config: edited });
  });
});

describe('backend= in the URL', () => {
  it('reads the engine choice, auto when absent or unknown', () => {
    expect(backendFromUrl('?preset=magic&backend=wasm')).toBe('wasm');
    expect(backendFromUrl('?backend=webgpu')).toBe('webgpu');
    expect(backendFromUrl('?preset=magic')).toBe('auto');
    expect(backendFromUrl('?backend=cuda')).toBe('auto');
  });
  it('writes it, dropping it for auto, and keeps it through config edits', () => {
    expect(withBackend('?preset=magic', 'wasm')).toBe('?preset=magic&backend=wasm');
    expect(withBackend('?preset=magic&backend=wasm', 'auto')).toBe('?preset=magic');
    expect(withBackend('?backend=wasm', 'auto')).toBe('');
    const search = urlSearchFor(getPreset('grpo'), 'grpo', '?preset=magic&backend=webgpu');
    expect(new URLSearchParams(search).get('backend')).toBe('webgpu');
    // A page parameter is not a config field: the setup still decodes.
    expect(setupFromUrl(search).error).toBeNull();
  });
});
