/** --rung on the commands that take a preset: unknown names, a rung's missing base, the rung's SFT defaults, a sweep's record of it. */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliRunner } from './harness';
import { main } from '../../src/cli/main';
import { poolTag } from '../../src/cli/ablate';
import { encodeCheckpoint } from '../../src/model/checkpoint';
import { initParams } from '../../src/model/init';
import { getPreset, RUNG_NAMES, rungBaseConfig, rungOf } from '../../src/rl/config';
import { DEFAULT_SFT_CONFIG, rungSftDefaults, validateSftConfig } from '../../src/rl/sft';
import { defaultBaseFor, DEFAULT_BASE, rungBasePath } from '../../src/run/rung-base';
import { planSweep, sweepSpec, type SweepOptions } from '../../src/sweep/plan';

const run = cliRunner(main);
const dir = mkdtempSync(join(tmpdir(), 'magic-rung-'));
/** Runs `fn` in an empty working directory: the CLI reads a rung's base from public/ under it, so there every base is missing. */
async function inBareDir<T>(fn: () => T | Promise<T>): Promise<T> {
  const here = process.cwd();
  process.chdir(mkdtempSync(join(tmpdir(), 'magic-rung-bare-')));
  try {
    return await fn();
  } finally {
    process.chdir(here);
  }
}
const BAD = /^magic-lab [a-z-]+: --rung: unknown rung "huge" \(valid: tiny, small, medium\)$/;

describe('--rung on the command line', () => {
  const cases: string[][] = [
    ['train', '--rung', 'huge', '--out', join(dir, 't')],
    ['sft', '--rung', 'huge', '--out', join(dir, 's.mlck')],
    ['eval', '--checkpoint', 'public/checkpoints/base-tiny.mlck', '--rung', 'huge'],
    ['data', 'inspect', '--rung', 'huge'],
    ['export-verl', '--preset', 'magic', '--rung', 'huge', '--out', join(dir, 'v')],
    ['sweep', '--presets', 'magic', '--rung', 'huge', '--out', join(dir, 'w')],
    ['ablate', 'temperature', '--rung', 'huge', '--out', join(dir, 'x')],
  ];
  for (const argv of cases) {
    it(`${argv.slice(0, 2).join(' ')} … --rung huge → exit 2, one line naming --rung and the rungs`, async () => {
      const r = await run(...argv);
      expect(r.code).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.err).toMatch(BAD);
    });
  }

  it('train --rung medium where its base checkpoint is missing: exit 2, says how to build it, writes nothing', async () => {
    // In a bare folder, as a copy of the CLI without public/ has it: the medium base is shipped, but not there.
    const out = join(dir, 'medium-run');
    await inBareDir(async () => {
      expect(existsSync(rungBasePath('medium'))).toBe(false);
      const r = await run('train', '--rung', 'medium', '--out', out, '--quiet');
      expect(r.code).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.err).toMatch(/--rung medium: public\/checkpoints\/base-medium\.mlck .*does not exist; build it with `magic-lab sft --rung medium`, or start from random init with --base none/);
    });
    expect(existsSync(out)).toBe(false);
  });

  it('train --base none starts from random init even where a base would match', async () => {
    const out = join(dir, 'scratch');
    const r = await run('train', '--preset', 'magic', '--config', writeJson('steps1.json', { stages: [{ maxResponseLength: 8, steps: 1 }], rollout: { batchPrompts: 2, groupSize: 2 }, data: { trainSize: 16, testSize: 8, offlineFilter: { enabled: false } }, eval: { testProblems: 2, k: 1, temperatures: [1] } }), '--base', 'none', '--out', out, '--quiet');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/from random init/);
  }, 120_000);

  it('--help of every command with a preset lists the rungs', async () => {
    for (const c of ['train', 'sft', 'eval', 'data', 'export-verl', 'sweep', 'ablate']) {
      const r = await run(c, ...(c === 'data' ? ['inspect'] : []), '--help');
      expect(r.out, c).toMatch(/--rung .*tiny .*small .*medium/);
    }
  });
});

function writeJson(name: string, v: unknown): string {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(v));
  return f;
}

describe('default base and SFT per rung', () => {
  it('each rung config defaults to its own base file; tiny keeps public/checkpoints/base.mlck; a hand-made shape the tiny one', () => {
    expect(DEFAULT_BASE).toBe('public/checkpoints/base.mlck');
    for (const r of RUNG_NAMES) expect(defaultBaseFor(getPreset('magic', r))).toBe(rungBasePath(r));
    expect(defaultBaseFor(getPreset('magic-tiny'))).toBe(DEFAULT_BASE);
  });

  it('rungSftDefaults: tiny is the old default (the tiny rung\'s model); small/medium take the rung\'s model and fit its context', () => {
    expect(rungSftDefaults('tiny')).toBe(DEFAULT_SFT_CONFIG);
    expect(rungOf(DEFAULT_SFT_CONFIG)).toBe('tiny');
    for (const r of ['small', 'medium'] as const) {
      const c = validateSftConfig({}, rungSftDefaults(r));
      expect(c.model).toEqual(rungBaseConfig(r).model);
      expect(rungOf(c)).toBe(r);
      expect(c.evalMaxResponseLength).toBeLessThan(c.model.contextLength);
      // Room beyond the longest stage, so the base's held-out evaluation never cuts what RL would allow.
      expect(c.evalMaxResponseLength).toBe(Math.max(...rungBaseConfig(r).stages.map((s) => s.maxResponseLength)) + 40);
      expect(c.families).toEqual(rungBaseConfig(r).data.families);
    }
    // A config file still overrides the rung's fields, and is checked against the rung's context.
    expect(() => validateSftConfig({ evalMaxResponseLength: 300 }, rungSftDefaults('small'))).toThrow(/evalMaxResponseLength/);
  });
});

describe('a sweep at a rung', () => {
  const options = (rung: SweepOptions['rung'], base: string | null): SweepOptions => ({
    presets: ['magic'], variants: null, seeds: [7], steps: 1, minutes: null, config: null, backend: null, threads: null,
    evalProblems: 8, evalK: 1, evalTemperatures: [1], base, out: join(dir, `sweep-${rung}`), command: 'test', ...(rung ? { rung } : {}),
  });

  it('tiny (or none given) records no rung, so the sweeps made before the ladder keep their identity', () => {
    for (const r of [undefined, 'tiny'] as const) {
      expect(sweepSpec(options(r, null))).not.toHaveProperty('rung');
      expect(planSweep(options(r, null))[0].identity).not.toHaveProperty('rung');
      expect(poolTag(options(r, null))).toBe('steps1-default');
    }
  });

  it('small: the runs are small models, the rung is in the spec, identity and pool; a missing rung base is refused with how to build it', async () => {
    await inBareDir(() => {
      expect(existsSync(rungBasePath('medium'))).toBe(false);
      expect(() => planSweep(options('medium', null))).toThrow(/--rung medium: .*magic-lab sft --rung medium/);
    });
    expect(planSweep(options('small', null))[0].base?.file).toBe(rungBasePath('small'));
    const model = rungBaseConfig('small').model;
    const file = join(dir, 'small-base.mlck');
    writeFileSync(file, encodeCheckpoint({ model, params: initParams(model, 1), meta: { kind: 'test' } }));
    const o = options('small', file);
    const [p] = planSweep(o);
    expect(p.config.model).toEqual(model);
    expect(p.identity.rung).toBe('small');
    expect(p.base?.file).toBe(file);
    expect(sweepSpec(o).rung).toBe('small');
    expect(poolTag(o)).toMatch(/-small$/);
  });
});
