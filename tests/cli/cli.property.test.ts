/**
 * The CLI's contract on user errors, property-tested (fast-check): random and hostile configs
 * (tests/config-arbitraries.ts) in a --config file, configs too big for this machine, hostile
 * flags — `magic-lab train`, `sweep` and `eval` run in-process exit 2 with exactly one line on
 * stderr, no stack trace, and write nothing. Only inputs refused before training are tried: a
 * config the validator and the resource check both accept would start a run, and is skipped.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { main } from '../../src/cli/main';
import { nodeHostLimits } from '../../src/cli/resources';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { checkRunResources } from '../../src/rl/resources';
import { hostileNumber, partialConfig, PROTO_NAMES } from '../config-arbitraries';

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, (s) => out.push(s), (s) => err.push(s));
  return { code, out, err };
}

/** Exit 2, one line on stderr naming the command, no stack trace, nothing written in `dir` but `keep`. */
function expectUserError(r: { code: number; err: string[] }, dir: string, keep: string[]) {
  expect(r.code, r.err.join('\n')).toBe(2);
  expect(r.err).toHaveLength(1);
  expect(r.err[0]).not.toContain('\n');
  expect(r.err[0]).toMatch(/^magic-lab (train|sweep|eval): /);
  expect(r.err[0]).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(readdirSync(dir).sort()).toEqual([...keep].sort());
}

/** Whether train would start a run with this partial config over magic-tiny (then the case is skipped). */
function wouldTrain(partial: unknown): boolean {
  try {
    const cfg = validateRunConfig(partial, getPreset('magic-tiny'));
    checkRunResources(cfg, { host: nodeHostLimits(), engine: { engine: 'wasm', memoryBytes: 2 ** 31 - 2 ** 17, threads: availableParallelism() } });
    return true;
  } catch {
    return false;
  }
}

/** Big on purpose: each of these is refused by the resource check (data, heap, engine, checkpoint). */
const tooBig = fc.oneof(
  fc.record({ data: fc.record({ difficulty: fc.constantFrom(1, 2), trainSize: fc.integer({ min: 20_000, max: 1_000_000 }) }) }),
  fc.record({ rollout: fc.record({ batchPrompts: fc.integer({ min: 20_000, max: 100_000 }), groupSize: fc.integer({ min: 64, max: 1024 }) }) }),
  fc.record({ model: fc.record({ dModel: fc.constantFrom(1024, 2048, 4096), nLayers: fc.integer({ min: 16, max: 64 }), nHeads: fc.constant(16) }) }),
  fc.record({ data: fc.record({ difficulty: fc.constant(5), trainSize: fc.integer({ min: 200_000, max: 1_000_000 }), offlineFilter: fc.constant({ enabled: true, samples: 1024 }) }) }),
  fc.record({ data: fc.record({ difficulty: fc.constant(5), testSize: fc.constant(1_000_000) }), eval: fc.record({ testProblems: fc.constant(1_000_000), k: fc.integer({ min: 64, max: 1024 }) }) }),
);

/** JSON text of a partial config; a value too deep for JSON.stringify is written by hand. */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return `{"seed":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
  }
}

describe('magic-lab on random and hostile input (fast-check)', () => {
  it('train: a bad or too-big --config exits 2 with one line, no stack trace, nothing written', async () => {
    let tried = 0;
    let tooBigRefused = 0;
    await fc.assert(
      fc.asyncProperty(fc.oneof(partialConfig, tooBig), async (partial) => {
        fc.pre(!wouldTrain(JSON.parse(jsonText(partial))));
        tried++;
        const dir = mkdtempSync(join(tmpdir(), 'magic-prop-'));
        try {
          writeFileSync(join(dir, 'c.json'), jsonText(partial));
          const r = await run(['train', '--preset', 'magic-tiny', '--config', join(dir, 'c.json'), '--out', join(dir, 'run'), '--backend', 'wasm', '--quiet']);
          expectUserError(r, dir, ['c.json']);
          if (/ would (need|hold|take|be) | need \d+ distinct /.test(r.err[0])) tooBigRefused++;
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
    expect(tried).toBeGreaterThan(20);
    // Both kinds are reached: validation errors and resource refusals.
    expect(tooBigRefused).toBeGreaterThan(3);
  });

  it('train: hostile flags and files exit 2 with one line, nothing written', async () => {
    const flag = fc.constantFrom('--preset', '--config', '--seed', '--steps', '--minutes', '--out', '--resume', '--base', '--backend', '--threads', '--bogus', '--', '-x', '--__proto__', '--constructor', '--toString');
    const value = fc.oneof(fc.string({ maxLength: 8 }), hostileNumber.map(String), fc.constantFrom('', '-1', '1.5', 'NaN', '1e400', 'magic', 'magic-tiny', 'wasm', 'gpu', '/nonexistent/x', ...PROTO_NAMES));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(flag, value), { maxLength: 6 }), async (tokens) => {
        const dir = mkdtempSync(join(tmpdir(), 'magic-prop-'));
        try {
          // A config refused last, so that flags parsed fine still end before training.
          writeFileSync(join(dir, 'bad.json'), '{"seed": -1}');
          const r = await run(['train', ...tokens, '--config', join(dir, 'bad.json'), '--out', join(dir, 'run')]);
          expectUserError(r, dir, ['bad.json']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('train: a --config file that is not JSON, or nested 100,000 deep, is one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-prop-'));
    const texts = ['', '{', '[1,2]', 'null', '{"seed": 1,}', '\u0000\uFEFF{}x', `{"seed":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, `{"model":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}}`];
    for (const [i, text] of texts.entries()) {
      writeFileSync(join(dir, `c${i}.json`), text);
      const r = await run(['train', '--preset', 'magic-tiny', '--config', join(dir, `c${i}.json`), '--out', join(dir, 'run')]);
      expectUserError(r, dir, texts.slice(0, i + 1).map((_, j) => `c${j}.json`));
    }
  });

  it('sweep: a bad or too-big --config exits 2 with one line before the sweep directory exists', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(partialConfig, tooBig), async (partial) => {
        fc.pre(!wouldTrain(JSON.parse(jsonText(partial))));
        const dir = mkdtempSync(join(tmpdir(), 'magic-prop-'));
        try {
          writeFileSync(join(dir, 'c.json'), jsonText(partial));
          const r = await run(['sweep', '--presets', 'magic-tiny', '--seeds', '1', '--config', join(dir, 'c.json'), '--out', join(dir, 'sweep'), '--backend', 'wasm', '--eval-problems', '4', '--no-png']);
          expectUserError(r, dir, ['c.json']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 12 },
    );
  });

  it('eval: more samples than the heap holds, or more problems than the test set, is one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'magic-prop-'));
    for (const [k, problems] of [['100000000', '8'], ['8', '100000'], ['1e400', '4'], ['-3', '4']]) {
      const r = await run(['eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--preset', 'magic-tiny', '--k', k, '--problems', problems, '--backend', 'wasm']);
      expectUserError(r, dir, []);
    }
    expect(existsSync(dir)).toBe(true);
  });
});
