import { describe, expect, it } from 'vitest';
import { setupFromUrl, urlSearchFor } from '../../src/ui/lib/url';
import { fitFontSize, projectorFromUrl, withProjector } from '../../src/ui/lib/view';

describe('view=projector', () => {
  it('is read from the link, and only view=projector turns it on', () => {
    expect(projectorFromUrl('?view=projector')).toBe(true);
    expect(projectorFromUrl('?preset=magic-tiny&view=projector&hide=config')).toBe(true);
    expect(projectorFromUrl('')).toBe(false);
    expect(projectorFromUrl('?view=')).toBe(false);
    expect(projectorFromUrl('?view=Projector')).toBe(false);
  });

  it('is written to and removed from the link, the other parameters kept', () => {
    expect(withProjector('?preset=magic-tiny&hide=config,stages', true)).toBe('?preset=magic-tiny&hide=config,stages&view=projector');
    expect(withProjector('?preset=magic-tiny&view=projector', false)).toBe('?preset=magic-tiny');
    expect(withProjector('?view=projector', false)).toBe('');
    expect(withProjector('', true)).toBe('?view=projector');
  });

  it('is a page parameter: a link with it still loads its config, and the config sync keeps it', () => {
    const setup = setupFromUrl('?preset=magic-tiny&seed=7&view=projector');
    expect(setup.error).toBeNull();
    expect(setup.config.seed).toBe(7);
    expect(urlSearchFor(setup.config, 'magic-tiny', '?preset=magic-tiny&view=projector')).toContain('view=projector');
  });
});

describe('fitFontSize', () => {
  it('keeps the base size when the content fits', () => {
    expect(fitFontSize(15, 300, 300)).toBe(15);
    expect(fitFontSize(15, 200, 300)).toBe(15);
  });
  it('shrinks in proportion, with slack, when it does not', () => {
    const size = fitFontSize(15, 600, 300);
    expect(size).toBeLessThan(7.5);
    expect(size).toBeGreaterThan(7);
    expect((600 * size) / 15).toBeLessThanOrEqual(300);
  });
  it('never goes below the minimum, and ignores unmeasured boxes (a closed panel)', () => {
    expect(fitFontSize(15, 3000, 100)).toBe(7);
    expect(fitFontSize(15, 3000, 100, 9)).toBe(9);
    expect(fitFontSize(15, 0, 0)).toBe(15);
    expect(fitFontSize(15, 500, 0)).toBe(15);
  });
});
