/**
 * `magic-lab train` on a run that diverges: non-finite steps are skipped until
 * update.maxNonfiniteSteps come in a row, then the run stops with exit 1 and one line naming the
 * step, the quantity and the last good checkpoint, which is the one left on disk (written before
 * the failure, never after). The divergence is injected under the CLI: the backend it acquires
 * (mocked here, so this file has its own module graph) gives every actor update from the chosen
 * update call on a learning signal of 3e38 per token (advantage × token weight): its loss and
 * gradient overflow f32, and the real CPU engine computes, checks and rejects those steps.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { cliRunner } from './harness';
import type { Backend } from '../../src/model/engine';

/** First actor update call (1-based, counted per acquired backend) that is made non-finite; Infinity = none. */
let poisonFrom = Infinity;

vi.mock('../../src/cli/backend', async (importOriginal) => {
  const orig = await importOriginal<typeof import('../../src/cli/backend')>();
  const { interceptUpdates } = await import('../update-hook');
  const inject = (backend: Backend): Backend =>
    interceptUpdates(
      backend,
      (call, update, b, loss, o) => {
        if (call < poisonFrom) return update(b, loss, o);
        // Advantage × token weight = 3e38 on every response token: the summed loss overflows f32.
        const advantages = b.advantages!.map((x, i) => (b.mask[i] ? 3e38 / b.weights[i] : x));
        return update({ ...b, advantages }, loss, o);
      },
      'actor',
    );
  return { ...orig, acquireBackend: async (...a: Parameters<typeof orig.acquireBackend>) => inject(await orig.acquireBackend(...a)) };
});

const { main } = await import('../../src/cli/main');
const { decodeCheckpoint } = await import('../../src/model/checkpoint');

const run = cliRunner(main);

const records = (dir: string) =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, number | string>)
    .filter((r) => r.type === 'step');

describe('magic-lab train: a run that diverges', () => {
  it('stops with exit 1 and one line naming the last good checkpoint, which is what stays on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-diverge-'));
    const cfg = join(dir, 'config.json');
    // magic-tiny where every step updates once (every group kept, a constant entropy bonus), a
    // checkpoint every 2 steps, K = 2.
    writeFileSync(
      cfg,
      JSON.stringify({
        stages: [{ maxResponseLength: 10, steps: 8 }],
        rejection: { mode: 'off' },
        loss: { entropy: { mode: 'constant', constantCoef: 0.05 } },
        update: { lr: 1e-2, maxNonfiniteSteps: 2 },
        eval: { everySteps: 0, k: 2, temperatures: [1], testProblems: 2 },
        checkpoint: { everySteps: 2 },
      }),
    );
    const common = ['--preset', 'magic-tiny', '--config', cfg, '--backend', 'wasm', '--threads', '1', '--quiet'];

    // The same run without injection, 3 steps: its checkpoint is the state the diverging run must keep.
    poisonFrom = Infinity;
    const clean = join(dir, 'clean');
    expect((await run('train', ...common, '--steps', '3', '--out', clean)).code).toBe(0);

    // Steps 4 and 5 are non-finite: step 4 is skipped (its checkpoint is written: weights untouched),
    // step 5 is the second in a row and stops the run.
    poisonFrom = 4;
    const out = join(dir, 'run');
    const r = await run('train', ...common, '--out', out);
    poisonFrom = Infinity;
    const ckFile = join(out, 'checkpoint.mlck');
    expect(r.code, r.err).toBe(1);
    expect(r.err.split('\n')).toHaveLength(1);
    expect(r.err).toBe(
      `magic-lab train: the run diverged at step 5: 2 optimizer steps in a row rejected as non-finite (last: loss -Infinity); stopped, not saved — the last good checkpoint is ${ckFile} (step 4)`,
    );

    // Step 4 went on with a warning; step 5 stopped the run.
    expect(r.out).toContain('warning: step 4: 1 optimizer step rejected as non-finite (loss or grad norm) and skipped: weights untouched');
    expect(r.out).not.toMatch(/warning: step [1-35]/);
    // The journal holds steps 1–4 (step 4 counted as rejected), nothing of step 5.
    expect(records(out).map((s) => [s.step, s['actor/nonfinite_steps']])).toEqual([[1, 0], [2, 0], [3, 0], [4, 1]]);
    expect(existsSync(`${ckFile}.tmp`)).toBe(false);
    // On disk: the checkpoint of step 4, whose weights and AdamW state are those after step 3 (the
    // rejected step 4 changed neither, and did not count as an AdamW step).
    const kept = decodeCheckpoint(new Uint8Array(readFileSync(ckFile)), ckFile);
    const ref = decodeCheckpoint(new Uint8Array(readFileSync(join(clean, 'checkpoint.mlck'))));
    const state = kept.meta.state as { step: number; adamStep: number };
    expect([state.step, state.adamStep]).toEqual([4, 3]);
    expect((ref.meta.state as { adamStep: number }).adamStep).toBe(3);
    const bits = (a: Float32Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
    expect(bits(kept.params).equals(bits(ref.params))).toBe(true);
    expect(bits(kept.adam!.m).equals(bits(ref.adam!.m))).toBe(true);
    expect(bits(kept.adam!.v).equals(bits(ref.adam!.v))).toBe(true);
    // Steps 1–3 are those of the run without injection.
    const strip = (s: Record<string, number | string>) => Object.fromEntries(Object.entries(s).filter(([k]) => !k.startsWith('perf/') && !k.startsWith('timing_s/') && k !== 'time_ms'));
    expect(records(out).slice(0, 3).map(strip)).toEqual(records(clean).map(strip));
  }, 120_000);
});
