import { describe, expect, it } from 'vitest';
import { getPreset, presetNames } from '../../src/rl/config';
import { backendFromUrl, setupFromUrl, urlSearchFor, withBackend } from '../../src/ui/lib/url';

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

  it('an invalid link gives one clear error and falls back to the preset', () => {
    const bad = setupFromUrl('?preset=grpo-tiny&loss.epsLow=-3');
    expect(bad.preset).toBe('grpo-tiny');
    expect(bad.config).toEqual(getPreset('grpo-tiny'));
    expect(bad.error).toMatch(/Invalid link.*"grpo-tiny".*loss\.epsLow/);
    const unknown = setupFromUrl('?preset=nope');
    expect(unknown.preset).toBe('magic');
    expect(unknown.error).toMatch(/unknown preset "nope"/);
    const typo = setupFromUrl('?preset=magic-tiny&los.epsLow=0.1');
    expect(typo.error).toMatch(/los/);
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
