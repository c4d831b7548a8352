/**
 * `magic-lab export-verl` end to end: the parquet files read back (hyparquet) equal the lab's
 * datasets — train.parquet exactly the pool a run trains on, offline filter included — the launch
 * scripts carry every mapped setting, and user errors exit 2 with one line and write nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/model/checkpoint';
import { wasmBackend } from '../../src/model/cpu-policy';
import { buildRunDataset, getPreset, validateRunConfig } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';
import type { Problem } from '../../src/tasks';
import { planStages, stageOverrides, VERL_FLAVORS } from '../../src/verl/mapping';
import { groundTruth, promptText, type VerlRow } from '../../src/verl/rows';

async function run(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, (s) => out.push(s), (s) => err.push(s));
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function readRows(file: string): Promise<VerlRow[]> {
  const bytes = readFileSync(file);
  const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  // INT64 comes back as bigint.
  return rows.map((r) => ({ ...r, extra_info: { ...r.extra_info, index: Number(r.extra_info.index), difficulty: Number(r.extra_info.difficulty) } })) as VerlRow[];
}

/** The row a problem must become (rows.ts), checked field by field against what was read back. */
function expectRowsOf(rows: VerlRow[], problems: readonly Problem[], split: string): void {
  expect(rows.length).toBe(problems.length);
  rows.forEach((r, i) => {
    const p = problems[i];
    expect(r).toEqual({
      data_source: `magic-lab/${p.family}`,
      prompt: [{ role: 'user', content: promptText(p) }],
      ability: 'math',
      reward_model: { style: 'rule', ground_truth: groundTruth(p) },
      extra_info: { split, index: i, family: p.family, id: p.id, difficulty: p.difficulty, prompt: p.prompt, answer: p.answer },
    });
    expect(r.prompt[0].content).toContain(p.prompt);
  });
}

const BASE = new Uint8Array(readFileSync(new URL('../../public/checkpoints/base.mlck', import.meta.url)));
const BASE_TINY = new Uint8Array(readFileSync(new URL('../../public/checkpoints/base-tiny.mlck', import.meta.url)));

describe('export-verl --preset magic', () => {
  const out = join(mkdtempSync(join(tmpdir(), 'magic-export-')), 'verl');
  let stdout = '';
  beforeAll(async () => {
    const r = await run('export-verl', '--preset', 'magic', '--out', out);
    expect(r.code, r.err).toBe(0);
    stdout = r.out;
  });

  it('writes the data, reward.py, one script per stage and the notes', () => {
    for (const f of ['train.parquet', 'val.parquet', 'test.parquet', 'reward.py', 'fork_reward.py', 'run_stage1.sh', 'run_stage2.sh', 'NOTES.md', 'lab-config.json']) expect(existsSync(join(out, f)), f).toBe(true);
    expect(existsSync(join(out, 'run_stage3.sh'))).toBe(false);
    expect(JSON.parse(readFileSync(join(out, 'lab-config.json'), 'utf8'))).toEqual(getPreset('magic'));
  });

  it('train.parquet is exactly the offline-filtered pool a magic run from the shipped base trains on', async () => {
    const cfg = getPreset('magic');
    const backend = await wasmBackend({ threads: 1 });
    const messages: string[] = [];
    const trainer = await MagicTrainer.create(backend, cfg, { checkpoint: BASE, onProgress: (m) => messages.push(m) });
    const keep = trainer.offlineReport!.keep;
    trainer.destroy();
    backend.destroy();
    expect(messages.join('\n')).toMatch(/using the result stored in the base checkpoint/);
    const ds = buildRunDataset(cfg);
    expect(keep.length).toBeGreaterThan(100);
    expect(keep.length).toBeLessThan(ds.train.length);
    expectRowsOf(await readRows(join(out, 'train.parquet')), keep.map((i) => ds.train[i]), 'train');
    expect(stdout).toMatch(new RegExp(`kept ${keep.length}/1024`));
    expect(readFileSync(join(out, 'NOTES.md'), 'utf8')).toContain(`${keep.length} training problems`);
  });

  it('test.parquet is the whole held-out set, val.parquet its first eval.testProblems', async () => {
    const ds = buildRunDataset(getPreset('magic'));
    expectRowsOf(await readRows(join(out, 'test.parquet')), ds.test, 'test');
    expectRowsOf(await readRows(join(out, 'val.parquet')), ds.test.slice(0, 64), 'val');
    // Decontaminated: no training problem shares a canonical key with a test problem.
    const testIds = new Set(ds.test.map((p) => `${p.family}:${p.id}`));
    expect((await readRows(join(out, 'train.parquet'))).filter((r) => testIds.has(`${r.extra_info.family}:${r.extra_info.id}`))).toEqual([]);
  });

  it('each launch script contains every mapped setting of its stage, in both dialects', () => {
    const cfg = getPreset('magic');
    const trainRows = Number(/(\d+) training problems/.exec(readFileSync(join(out, 'NOTES.md'), 'utf8'))![1]);
    for (const plan of planStages(cfg)) {
      const script = readFileSync(join(out, `run_stage${plan.number}.sh`), 'utf8');
      for (const flavor of VERL_FLAVORS) for (const o of stageOverrides(cfg, plan, flavor, trainRows)) expect(script).toContain(`"${o.key}=${o.value}"`);
      expect(script).toContain(`"data.max_response_length=${plan.stage.maxResponseLength}"`);
    }
  });
});

describe('export-verl: where the problems come from', () => {
  const root = mkdtempSync(join(tmpdir(), 'magic-export-src-'));

  it('--run with a checkpoint: the run\'s config and the pool its offline filter kept', async () => {
    const tiny = decodeCheckpoint(BASE_TINY);
    const config = validateRunConfig({ data: { offlineFilter: { enabled: true, samples: 4 } } }, getPreset('magic-tiny'));
    const keep = [1, 4, 5, 9];
    const dir = join(root, 'run-a');
    mkdirSync(dir);
    const summary = 'offline filter (N=4): kept 4/16 prompts';
    writeFileSync(join(dir, 'checkpoint.mlck'), encodeCheckpoint({ model: tiny.model, params: tiny.params, meta: { kind: 'magic-lab-run', config, state: { step: 3, offline: { keep, summary } } } }));
    const out = join(root, 'out-a');
    const r = await run('export-verl', '--run', dir, '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(summary);
    const ds = buildRunDataset(config);
    expectRowsOf(await readRows(join(out, 'train.parquet')), keep.map((i) => ds.train[i]), 'train');
    expect(readFileSync(join(out, 'run_stage1.sh'), 'utf8')).toContain(': "${EXPERIMENT_NAME:=run-a}"');
    expect(readFileSync(join(out, 'NOTES.md'), 'utf8')).toContain('checkpoint at step 3');
  });

  it('--run with only config.json, and a preset whose seed has no stored filter result: every problem, said so', async () => {
    const dir = join(root, 'run-b');
    mkdirSync(dir);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(getPreset('magic-tiny')));
    const r = await run('export-verl', '--run', dir, '--out', join(root, 'out-b'));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/does not filter offline/);
    expect((await readRows(join(root, 'out-b', 'train.parquet'))).length).toBe(16);

    const seeded = await run('export-verl', '--preset', 'magic', '--seed', '7', '--out', join(root, 'out-c'));
    expect(seeded.code, seeded.err).toBe(0);
    expect(seeded.out).toMatch(/Offline filter NOT applied: .*no offline-filter result for this config and seed/);
    expect(readFileSync(join(root, 'out-c', 'NOTES.md'), 'utf8')).toMatch(/Offline filter NOT applied/);
    const rows = await readRows(join(root, 'out-c', 'train.parquet'));
    expect(rows.map((x) => x.extra_info.prompt)).toEqual(buildRunDataset(validateRunConfig({ seed: 7 }, getPreset('magic'))).train.map((p) => p.prompt));
  });
});

describe('export-verl usage errors: exit 2, one line naming the flag or file, nothing written', () => {
  const dir = mkdtempSync(join(tmpdir(), 'magic-export-err-'));
  const aFile = join(dir, 'a-file');
  writeFileSync(aFile, 'not json\n');
  const emptyRun = join(dir, 'empty-run');
  mkdirSync(emptyRun);
  const baseRun = join(dir, 'base-as-run');
  mkdirSync(baseRun);
  writeFileSync(join(baseRun, 'checkpoint.mlck'), BASE_TINY);
  const badCfgRun = join(dir, 'bad-config-run');
  mkdirSync(badCfgRun);
  writeFileSync(join(badCfgRun, 'config.json'), JSON.stringify({ rollout: { groupSize: 1 } }));
  const badConfig = join(dir, 'bad.json');
  writeFileSync(badConfig, JSON.stringify({ loss: { epsLow: -1 } }));
  const brokenCk = join(dir, 'broken-run');
  mkdirSync(brokenCk);
  writeFileSync(join(brokenCk, 'checkpoint.mlck'), 'not a checkpoint');

  const out = join(dir, 'never');
  const cases: [string[], RegExp][] = [
    [['--out', out], /give exactly one of --run DIR and --preset NAME/],
    [['--run', emptyRun, '--preset', 'magic', '--out', out], /give exactly one of --run DIR and --preset NAME/],
    [['--preset', 'magic'], /--out DIR is required/],
    [['--preset', 'nope', '--out', out], /--preset: .*unknown preset "nope"/],
    [['--preset', 'magic', '--config', join(dir, 'missing.json'), '--out', out], /--config: cannot read .*missing\.json/],
    [['--preset', 'magic', '--config', aFile, '--out', out], /--config: .*a-file is not a JSON object/],
    [['--preset', 'magic', '--config', badConfig, '--out', out], /--config: loss\.epsLow: must be in \[0, 1\), got -1/],
    [['--preset', 'magic', '--seed', '-1', '--out', out], /--seed: must be at least 0/],
    [['--preset', 'magic', '--seed', 'x', '--out', out], /--seed: expected a number/],
    [['--preset', 'magic', '--base', join(dir, 'nope.mlck'), '--out', out], /--base: .*nope\.mlck does not exist/],
    [['--preset', 'magic', '--base', 'public/checkpoints/base-tiny.mlck', '--out', out], /--base: .*holds a different model/],
    [['--preset', 'magic', '--out', aFile], /--out: .*a-file is a file, not a folder/],
    [['--run', join(dir, 'no-such-run'), '--out', out], /--run: .*no-such-run does not exist/],
    [['--run', aFile, '--out', out], /--run: .*a-file is not a folder/],
    [['--run', emptyRun, '--out', out], /--run: .*empty-run holds neither checkpoint\.mlck nor config\.json/],
    [['--run', emptyRun, '--seed', '3', '--out', out], /--run exports the run as it was: it cannot be combined with --seed/],
    [['--run', baseRun, '--out', out], /--run: .*checkpoint\.mlck is not a run checkpoint/],
    [['--run', badCfgRun, '--out', out], /--run: .*config\.json: rollout\.groupSize/],
    [['--run', brokenCk, '--out', out], /--run: checkpoint .*broken-run.*checkpoint\.mlck/],
    [['--bogus'], /unknown flag --bogus/],
  ];
  for (const [argv, msg] of cases) {
    it(argv.join(' ').replace(dir, '…'), async () => {
      const r = await run('export-verl', ...argv);
      expect(r.code, r.out).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.split('\n').length).toBe(1);
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(existsSync(out)).toBe(false);
    });
  }

  it('--help lists the flags', async () => {
    const r = await run('export-verl', '--help');
    expect(r.code).toBe(0);
    for (const f of ['--run', '--preset', '--config', '--seed', '--base', '--out']) expect(r.out).toContain(f);
  });
});
