/** `magic-lab bench --rl-parts N`: a bad N or a flag it cannot be combined with exits 2 with one line, before any engine opens. */
import { describe, expect, it } from 'vitest';
import { cliRunner } from './harness';
import { main } from '../../src/cli/main';

const run = cliRunner(main);

describe('bench --rl-parts usage errors', () => {
  const cases: [string[], RegExp][] = [
    [['bench', '--rl-parts', '1'], /^magic-lab bench: --rl-parts: must be at least 2, got 1$/],
    [['bench', '--rl-parts', '0'], /^magic-lab bench: --rl-parts: must be at least 2, got 0$/],
    [['bench', '--rl-parts', 'x'], /^magic-lab bench: --rl-parts: expected/],
    [['bench', '--rl-parts', '2.5'], /^magic-lab bench: --rl-parts: expected an integer/],
    [['bench', '--rl-parts', '4', '--compare'], /^magic-lab bench: --rl-parts .*cannot be combined with --compare$/],
    [['bench', '--rl-parts', '4', '--rl-steps', '3'], /^magic-lab bench: --rl-parts .*cannot be combined with --rl-steps$/],
    [['bench', '--rl-parts', '4', '--roofline'], /^magic-lab bench: --roofline .*cannot be combined with --rl-parts$/],
    [['bench', '--rl-parts', '4', '--rung', 'huge'], /--rung/],
  ];
  for (const [argv, msg] of cases) {
    it(`${argv.join(' ')} → exit 2 with one line`, async () => {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.errLines[0]).toMatch(msg);
      expect(r.out).toBe('');
    });
  }
});
