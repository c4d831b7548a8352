/** "These presets differ only in field X": sweep --differ-only and the findings' differIn, on resolved configs. */
import { describe, expect, it } from 'vitest';
import { checkDifferOnly, checkFindingDiffers, extraDifference, parseDifferOnly } from '../../src/sweep/differ';
import { FINDINGS, getFinding, type Finding } from '../../src/sweep/findings';

const plain = { config: null, seeds: [101], variants: null };

describe('differ-only', () => {
  it('magic and its no-control twin differ only in loss.entropy; grpo in more', () => {
    expect(() => checkDifferOnly(plain, ['magic', 'entropy-off'], ['loss.entropy'])).not.toThrow();
    expect(() => checkDifferOnly(plain, ['magic-tiny', 'entropy-off-tiny', 'const-entropy-small-tiny'], ['loss.entropy'])).not.toThrow();
    expect(() => checkDifferOnly(plain, ['magic', 'entropy-off', 'grpo'], ['loss.entropy'])).toThrow('--differ-only: grpo differs from magic in data.offlineFilter.enabled, not only in loss.entropy');
    expect(extraDifference(plain, 'magic', 'grpo', ['data', 'loss', 'rejection'])).toBeUndefined();
  });

  it('compares configs as the sweep resolves them: after --config and variants', () => {
    const variants = { 'lr-high': { preset: 'entropy-off', config: { update: { lr: 1e-3 } } } };
    expect(() => checkDifferOnly({ ...plain, variants }, ['magic', 'lr-high'], ['loss.entropy'])).toThrow('--differ-only: lr-high differs from magic in update.lr, not only in loss.entropy');
    expect(() => checkDifferOnly({ ...plain, variants }, ['magic', 'lr-high'], ['loss.entropy', 'update.lr'])).not.toThrow();
    // A --config applies to every arm alike, so it adds no difference.
    expect(() => checkDifferOnly({ ...plain, config: { update: { lr: 1e-3 } } }, ['magic', 'entropy-off'], ['loss.entropy'])).not.toThrow();
  });

  it('parses the field list and refuses a field the config does not have', () => {
    expect(parseDifferOnly(' loss.entropy , stages[1].klBeta', plain, 'magic')).toEqual(['loss.entropy', 'stages[1].klBeta']);
    expect(() => parseDifferOnly('loss.entropi', plain, 'magic')).toThrow('--differ-only: loss.entropi is not a field of the run config');
    expect(() => parseDifferOnly(',', plain, 'magic')).toThrow('--differ-only: expected a comma-separated list');
  });

  it('every registered finding\'s differIn holds (ablate checks it before running)', () => {
    for (const f of FINDINGS) expect(() => checkFindingDiffers(f, plain), f.id).not.toThrow();
  });

  it('a check that declares too little is refused with one line naming both presets and the first extra field', () => {
    const f = getFinding('magic-vs-grpo')!;
    const wrong: Finding = { ...f, checks: [{ kind: 'paired', a: 'magic', b: 'grpo', metric: 'gain/avg/t1.0', direction: 1, says: 'x', differIn: ['loss.entropy'] }] };
    expect(() => checkFindingDiffers(wrong, plain)).toThrow('ablate magic-vs-grpo: grpo differs from magic in data.offlineFilter.enabled, but the check "x" declares only loss.entropy');
  });
});
