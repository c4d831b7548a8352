import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { cliRunner } from './harness';

const run = cliRunner(main);

describe('eval --families / --difficulty on a base checkpoint', () => {
  it('tests the base on the named family and level', async () => {
    const r = await run('eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--families', 'sort', '--difficulty', '3', '--k', '2', '--problems', '3', '--temperatures', '1', '--backend', 'wasm', '--threads', '1');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/3 test problems × 2 samples/);
    expect(r.out).toMatch(/val\/pass@2\/t1\.0\s+\d/);
  }, 120_000);

  it('a level above a family’s hardest is one line naming data.difficulty, exit 2', async () => {
    const r = await run('eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--families', 'countdown', '--difficulty', '6', '--backend', 'wasm');
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/data\.difficulty: must be an integer in \[1, 5\], got 6/);
  });

  it('an unknown family is one line naming data.families, exit 2', async () => {
    const r = await run('eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--families', 'chess', '--backend', 'wasm');
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/data\.families/);
  });
});
