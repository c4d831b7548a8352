/**
 * Divergence in a forward pass (issue #27): a forward pass that overflows f32 (finite weights can
 * do it: a huge learning rate without a gradient clip) gives non-finite log-probs / entropies. The
 * run stops as diverged (exit 1, one line naming the step and the last good checkpoint), not with
 * `RangeError: entropy estimate must be finite` and a trace; nothing is saved after it. The
 * overflow is injected under the CLI (this file has its own module graph): from a chosen
 * generation call on, the policy's `generate` returns a NaN entropy (rollouts) or log-prob.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Backend } from '../../src/model/engine';
import { cliRunner } from './harness';

/** First generate call (1-based, per acquired backend) whose output is made non-finite; Infinity = none. */
let poisonFrom = Infinity;
let poison: 'entropy' | 'logp' = 'entropy';

vi.mock('../../src/cli/backend', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/cli/backend')>();
  const inject = (backend: Backend): Backend => {
    let calls = 0;
    return {
      ...backend,
      createPolicy: async (cfg, name) => {
        const p = await backend.createPolicy(cfg, name);
        const generate = p.generate.bind(p);
        p.generate = async (req) => {
          const res = await generate(req);
          if (++calls >= poisonFrom) res[poison][0][0] = NaN;
          return res;
        };
        return p;
      },
    };
  };
  return { ...orig, acquireBackend: async (...a: Parameters<typeof orig.acquireBackend>) => inject(await orig.acquireBackend(...a)) };
});

const { main } = await import('../../src/cli/main');

const run = cliRunner(main);
const engine = ['--backend', 'wasm', '--threads', '1', '--quiet'];

describe('magic-lab train: a forward pass that overflows', () => {
  it('stops as diverged with one line; the checkpoint on disk is the last good one, unchanged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-fwd-diverge-'));
    const cfg = join(dir, 'c.json');
    writeFileSync(cfg, JSON.stringify({ stages: [{ maxResponseLength: 12, steps: 6 }], eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 }, checkpoint: { everySteps: 2 } }));
    const out = join(dir, 'run');
    expect((await run('train', '--preset', 'magic-tiny', '--config', cfg, '--out', out, '--steps', '2', ...engine)).code).toBe(0);
    const file = join(out, 'checkpoint.mlck');
    // Resumed at step 2: the first generate call is step 3's rollout.
    poisonFrom = 1;
    const before = readFileSync(file);
    const journal = readFileSync(join(out, 'metrics.jsonl'), 'utf8');

    const r = await run('train', '--resume', out, ...engine);
    poisonFrom = Infinity;
    expect(r.code, r.err).toBe(1);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(
      new RegExp(`^magic-lab train: the run diverged at step 3: a response token's entropy is NaN: the policy's forward pass overflowed in the step's rollouts; stopped, not saved — the last good checkpoint is ${file} \\(step 2\\)$`),
    );
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readFileSync(join(out, 'metrics.jsonl'), 'utf8')).toBe(journal);
  });
});

describe('magic-lab train: an evaluation whose forward pass overflows', () => {
  it('stops as diverged before anything is saved', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-fwd-eval-'));
    const out = join(dir, 'run');
    poison = 'logp';
    poisonFrom = 1; // the step-0 evaluation
    const r = await run('train', '--preset', 'magic-tiny', '--out', out, '--steps', '2', ...engine);
    poisonFrom = Infinity;
    expect(r.code, r.err).toBe(1);
    expect(r.errLines).toEqual([`magic-lab train: the run diverged at step 0: a response token's log-prob is NaN: the policy's forward pass overflowed in the evaluation; stopped, not saved — no checkpoint was written before it`]);
    expect(existsSync(join(out, 'checkpoint.mlck'))).toBe(false);
  });
});
