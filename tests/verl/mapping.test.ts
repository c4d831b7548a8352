/**
 * The verl mapping against verl's real schema (tests/verl/fixtures/verl-keys.json: the override keys
 * of verl v0.7.0's and Skywork-OR1's ppo_trainer.yaml), against RunConfig (every field mapped or
 * named in NOTES.md), and the launch scripts as bash runs them (a stand-in python3 records argv).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getPreset, presetNames, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { FIELD_MAP, fieldMapMarkdown, planStages, recipeGaps, stageOverrides, VERL_FLAVORS, type Override, type VerlFlavor } from '../../src/verl/mapping';
import { notesMarkdown, stageScript, type ExportInfo } from '../../src/verl/scripts';

interface KeyList {
  repo: string;
  commit: string;
  path: string;
  keys: string[];
  addedKeys: { key: string; readBy: string }[];
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/verl-keys.json', import.meta.url), 'utf8')) as { upstream: KeyList; skyworkOr1: KeyList };
const schemaOf = (flavor: VerlFlavor): KeyList => (flavor === 'upstream' ? fixture.upstream : fixture.skyworkOr1);

/** Every preset, plus a config whose stage ends on convergence (no preset does). */
function configs(): [string, RunConfig][] {
  const out: [string, RunConfig][] = presetNames().map((n) => [n, getPreset(n)]);
  out.push(['converging', validateRunConfig({ stages: [{ maxResponseLength: 24, steps: null, convergence: { window: 10 } }, { maxResponseLength: 40, steps: 50 }] })]);
  out.push(['cosine', validateRunConfig({ update: { lrSchedule: { mode: 'cosine', warmupSteps: 10, minRatio: 0.1 } } })]);
  return out;
}

describe('the learning-rate schedule', () => {
  const cfg = validateRunConfig({ stages: [{ maxResponseLength: 24, steps: 100 }, { maxResponseLength: 40, steps: 100 }], update: { lrSchedule: { mode: 'cosine', warmupSteps: 10, minRatio: 0.1 } } });
  const value = (flavor: VerlFlavor, stage: number, key: string) => stageOverrides(cfg, planStages(cfg)[stage], flavor, 1000).find((o) => o.key === key)?.value;
  it('upstream takes the type, warmup steps and floor as they are', () => {
    for (const stage of [0, 1]) {
      expect(value('upstream', stage, 'actor_rollout_ref.actor.optim.lr_scheduler_type')).toBe('cosine');
      expect(value('upstream', stage, 'actor_rollout_ref.actor.optim.lr_warmup_steps')).toBe('10');
      expect(value('upstream', stage, 'actor_rollout_ref.actor.optim.min_lr_ratio')).toBe('0.1');
    }
  });
  it("the fork takes the warmup as a ratio of each launch's total_training_steps (the stage's end step)", () => {
    expect(value('skywork-or1', 0, 'actor_rollout_ref.actor.optim.warmup_style')).toBe('cosine');
    expect(Number(value('skywork-or1', 0, 'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio')) * 100).toBeCloseTo(10, 12);
    expect(Number(value('skywork-or1', 1, 'actor_rollout_ref.actor.optim.lr_warmup_steps_ratio')) * 200).toBeCloseTo(10, 12);
  });
  it("NOTES.md says where verl's curve differs: a per-launch cosine horizon and a warmup one step later", () => {
    const notes = notesMarkdown(cfg, INFO);
    expect(notes).toMatch(/cosine runs once over the whole schedule \(200 steps\).*100, 200/);
    expect(notes).toMatch(/warmup starts at lr 0/);
    expect(notesMarkdown(getPreset('magic'), INFO)).not.toMatch(/cosine runs once|warmup starts at lr 0/);
  });
});

const INFO: ExportInfo = { name: 'test', source: 'a test', filter: 'All problems.', rows: { train: 1000, val: 64, test: 256 } };

/** A Hydra key is valid when the schema declares it, or (given with +) the trainer reads it undeclared. */
function keyProblem(key: string, schema: KeyList): string | null {
  if (key.startsWith('+')) {
    const bare = key.slice(1);
    if (schema.keys.includes(bare)) return `${key}: declared in ${schema.path}, so Hydra refuses the +`;
    return schema.addedKeys.some((a) => bare === a.key || bare.startsWith(`${a.key}.`)) ? null : `${key}: neither declared nor read by ${schema.repo}`;
  }
  return schema.keys.includes(key) ? null : `${key}: not in ${schema.repo}@${schema.commit.slice(0, 7)} ${schema.path}`;
}

/** RunConfig leaf paths, stage indices written `stages[]`. */
function leafFields(v: unknown, path = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(v) && path === 'stages') v.forEach((s) => leafFields(s, 'stages[]', out));
  else if (typeof v === 'object' && v !== null && !Array.isArray(v)) for (const [k, c] of Object.entries(v)) leafFields(c, path ? `${path}.${k}` : k, out);
  else out.add(path);
  return out;
}

const generic = (field: string) => field.replace(/\[\d+\]/g, '[]');
/** The field itself or a group containing it. */
const covers = (group: string, field: string) => field === group || field.startsWith(`${group}.`);

describe('the fixture is the real schema', () => {
  it('names its source and holds the keys every verl launch uses', () => {
    expect(fixture.upstream.repo).toBe('volcengine/verl');
    expect(fixture.upstream.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(fixture.skyworkOr1.repo).toBe('SkyworkAI/Skywork-OR1');
    expect(fixture.skyworkOr1.commit).toMatch(/^[0-9a-f]{40}$/);
    for (const k of ['algorithm.adv_estimator', 'actor_rollout_ref.rollout.n', 'data.train_batch_size', 'trainer.test_freq']) {
      expect(fixture.upstream.keys).toContain(k);
      expect(fixture.skyworkOr1.keys).toContain(k);
    }
    // The dialects do differ where mapping.ts says they do.
    expect(fixture.upstream.keys).toContain('actor_rollout_ref.actor.clip_ratio_high');
    expect(fixture.skyworkOr1.keys).not.toContain('actor_rollout_ref.actor.clip_ratio_high');
    expect(fixture.skyworkOr1.keys).toContain('actor_rollout_ref.actor.adaptive_entropy.target_entropy');
    expect(fixture.upstream.keys).not.toContain('actor_rollout_ref.actor.adaptive_entropy.target_entropy');
    expect(keyProblem('actor_rollout_ref.actor.made_up', fixture.upstream)).toMatch(/not in volcengine\/verl/);
  });
});

describe('every emitted key exists in verl', () => {
  for (const flavor of VERL_FLAVORS) {
    it(`${flavor}: every override of every stage of every preset, and every key FIELD_MAP names`, () => {
      const schema = schemaOf(flavor);
      const problems = new Set<string>();
      for (const [, cfg] of configs()) {
        for (const plan of planStages(cfg)) for (const o of stageOverrides(cfg, plan, flavor, 1000)) problems.add(keyProblem(o.key, schema) ?? '');
      }
      for (const key of ['trainer.resume_mode', ...(flavor === 'upstream' ? ['trainer.resume_from_path'] : [])]) problems.add(keyProblem(key, schema) ?? '');
      for (const row of FIELD_MAP) {
        const keys = (flavor === 'upstream' ? row.upstream : row.skywork).split(', ').filter(Boolean);
        for (const k of keys) problems.add(keyProblem(k, schema) ?? '');
      }
      problems.delete('');
      expect([...problems]).toEqual([]);
    });
  }
});

describe('every RunConfig field is mapped or named in NOTES.md', () => {
  for (const [name, cfg] of configs()) {
    it(name, () => {
      const notes = notesMarkdown(cfg, INFO);
      const named = new Set([...notes.matchAll(/`([a-zA-Z[\]0-9.]+)`/g)].map((m) => generic(m[1])));
      const missing: string[] = [];
      for (const field of leafFields(cfg)) {
        for (const flavor of VERL_FLAVORS) {
          const mapped = FIELD_MAP.some((r) => covers(r.field, field) && (flavor === 'upstream' ? r.upstream : r.skywork) !== '');
          const inNotes = [...named].some((n) => covers(n, field));
          if (!mapped && !inNotes) missing.push(`${flavor}: ${field}`);
        }
      }
      expect(missing).toEqual([]);
      // …and what the notes name for a dialect is exactly its gaps.
      for (const gap of recipeGaps(cfg)) for (const f of gap.fields) expect(notes).toContain(`\`${f}\``);
    });
  }

  it('FIELD_MAP tells the truth: each override carries the fields whose row names its key', () => {
    const wrong = new Set<string>();
    const carried = new Set<string>();
    for (const [, cfg] of configs()) {
      for (const plan of planStages(cfg)) {
        for (const flavor of VERL_FLAVORS) {
          for (const o of stageOverrides(cfg, plan, flavor, 1000)) {
            for (const f of o.fields.map(generic)) {
              const row = FIELD_MAP.find((r) => r.field === f);
              const keys = row ? (flavor === 'upstream' ? row.upstream : row.skywork).split(', ') : [];
              if (!keys.includes(o.key)) wrong.add(`${flavor} ${o.key} carries ${f}, whose row lists ${keys.join(', ') || 'nothing'}`);
              carried.add(`${flavor} ${f}`);
            }
          }
        }
      }
    }
    expect([...wrong]).toEqual([]);
    const unused = FIELD_MAP.flatMap((r) => VERL_FLAVORS.filter((fl) => (fl === 'upstream' ? r.upstream : r.skywork) !== '' && !carried.has(`${fl} ${r.field}`)).map((fl) => `${fl} ${r.field}`));
    expect(unused).toEqual([]);
  });

  it('docs/verl.md carries the field → key table as FIELD_MAP has it', () => {
    const docs = readFileSync(new URL('../../docs/verl.md', import.meta.url), 'utf8');
    expect(docs).toContain(fieldMapMarkdown());
    for (const row of FIELD_MAP) expect(fieldMapMarkdown()).toContain(`| \`${row.field}\` |`);
  });
});

describe('the values follow the config', () => {
  const args = (preset: string, stage: number, flavor: VerlFlavor) => {
    const cfg = getPreset(preset);
    return Object.fromEntries(stageOverrides(cfg, planStages(cfg)[stage], flavor, 1000).map((o: Override) => [o.key, o.value]));
  };
  const A = 'actor_rollout_ref.actor';
  const R = 'actor_rollout_ref.rollout';

  it('magic: GRPO with the recipe\'s G, τ, D_R, D_T, lengths, clip, aggregation, optimizer, eval and checkpoint cadence', () => {
    const [s1, s2] = [args('magic', 0, 'upstream'), args('magic', 1, 'upstream')];
    expect(s1).toMatchObject({
      'algorithm.adv_estimator': 'grpo',
      'data.train_batch_size': '16',
      'data.max_response_length': '24',
      [`${R}.n`]: '8',
      [`${R}.temperature`]: '1',
      [`${R}.top_p`]: '1',
      [`${A}.ppo_mini_batch_size`]: '16',
      [`${A}.ppo_epochs`]: '1',
      [`${A}.clip_ratio_low`]: '0.2',
      [`${A}.clip_ratio_high`]: '0.2',
      [`${A}.loss_agg_mode`]: 'token-mean',
      [`${A}.use_kl_loss`]: 'False',
      [`${A}.entropy_coeff`]: '0',
      [`${A}.optim.lr`]: '0.0006',
      [`${A}.optim.betas`]: '[0.9,0.999]',
      [`${A}.optim.weight_decay`]: '0.01',
      [`${A}.grad_clip`]: '1',
      [`${R}.val_kwargs.n`]: '8',
      [`${R}.val_kwargs.temperature`]: '1',
      'trainer.test_freq': '20',
      'trainer.save_freq': '20',
      'trainer.total_training_steps': '200',
      'trainer.val_before_train': 'True',
      'custom_reward_function.path': "'${DATA_DIR}/reward.py'",
    });
    expect(s2).toMatchObject({ 'data.max_response_length': '40', 'trainer.total_training_steps': '400', 'trainer.val_before_train': 'False' });
    const fork = args('magic', 0, 'skywork-or1');
    expect(fork).toMatchObject({
      [`${A}.clip_ratio`]: '0.2',
      [`${A}.entropy_coeff`]: '1',
      [`${A}.adaptive_entropy.enabled`]: 'True',
      [`${A}.adaptive_entropy.target_entropy`]: String(getPreset('magic').loss.entropy.target),
      [`${A}.adaptive_entropy.delta_ent_coef`]: '0.005',
      [`${A}.adaptive_entropy.min_ent_coef`]: '0',
      [`${A}.adaptive_entropy.max_ent_coef`]: '2',
      'trainer.rejection_sample': 'True',
      [`${R}.n_val`]: '8',
    });
  });

  it('the ablations change exactly their keys', () => {
    expect(args('grpo', 0, 'upstream')).toMatchObject({ [`${A}.loss_agg_mode`]: 'seq-mean-token-mean', [`${A}.use_kl_loss`]: 'True', [`${A}.kl_loss_coef`]: '0.001', [`${A}.kl_loss_type`]: 'low_var_kl' });
    expect(args('grpo', 0, 'skywork-or1')).toMatchObject({ 'trainer.rejection_sample': 'False', [`${A}.adaptive_entropy.enabled`]: 'False', [`${A}.entropy_coeff`]: '0' });
    expect(args('kl-on', 0, 'upstream')[`${A}.use_kl_loss`]).toBe('False');
    expect(args('kl-on', 1, 'upstream')).toMatchObject({ [`${A}.use_kl_loss`]: 'True', [`${A}.kl_loss_coef`]: '0.001' });
    expect(args('off-policy-nsgd4', 0, 'upstream')[`${A}.ppo_mini_batch_size`]).toBe('4');
    expect(args('clip-high-0.28', 0, 'upstream')).toMatchObject({ [`${A}.clip_ratio_high`]: '0.28', [`${A}.ppo_mini_batch_size`]: '4' });
    expect(args('temp-0.6', 1, 'skywork-or1')[`${R}.temperature`]).toBe('0.6');
    expect(args('const-entropy-large', 0, 'upstream')[`${A}.entropy_coeff`]).toBe('0.5');
    expect(args('const-entropy-large', 0, 'skywork-or1')).toMatchObject({ [`${A}.entropy_coeff`]: '0.5', [`${A}.adaptive_entropy.enabled`]: 'False' });
    expect(args('single-stage', 0, 'upstream')).toMatchObject({ 'data.max_response_length': '40', 'trainer.total_training_steps': '400' });
    expect(planStages(getPreset('single-stage')).length).toBe(1);
  });

  it('the fork saves the last step of every stage (it only saves multiples of save_freq)', () => {
    const cfg = validateRunConfig({ stages: [{ maxResponseLength: 24, steps: 30 }, { maxResponseLength: 40, steps: 45 }], checkpoint: { everySteps: 20 } });
    for (const plan of planStages(cfg)) {
      const o = Object.fromEntries(stageOverrides(cfg, plan, 'skywork-or1', 1000).map((x) => [x.key, Number(x.value)]));
      expect(plan.endStep % o['trainer.save_freq']).toBe(0);
    }
  });
});

describe('launch scripts, as bash runs them', () => {
  const root = mkdtempSync(join(tmpdir(), 'magic-verl-scripts-'));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  // A stand-in python3 that records its arguments, one a line.
  writeFileSync(join(bin, 'python3'), '#!/usr/bin/env bash\nprintf \'%s\\n\' "$@" > "$ARGV_FILE"\n');
  chmodSync(join(bin, 'python3'), 0o755);

  const expand = (value: string, env: Record<string, string>) => value.replace(/\$\{([A-Z_]+)\}/g, (_, n: string) => env[n]);

  for (const preset of ['magic', 'kl-on', 'grpo']) {
    for (const flavor of VERL_FLAVORS) {
      it(`${preset} (${flavor}): each stage passes exactly its overrides, then resume, then the user's`, () => {
        const cfg = getPreset(preset);
        const dir = mkdtempSync(join(root, `${preset}-`));
        const plans = planStages(cfg);
        for (const plan of plans) writeFileSync(join(dir, `run_stage${plan.number}.sh`), stageScript(cfg, plan, INFO));
        const env: Record<string, string> = {
          MODEL_PATH: '/models/r1',
          NNODES: '2',
          N_GPUS_PER_NODE: '4',
          ROLLOUT_TP: '1',
          GPU_MEMORY_UTILIZATION: '0.5',
          PPO_MAX_TOKEN_LEN_PER_GPU: '8192',
          MAX_PROMPT_LENGTH: '256',
          THINK_PREFILLED: 'False',
          DATA_DIR: dir,
          CKPT_DIR: join(dir, 'ck'),
          PROJECT_NAME: 'p',
          EXPERIMENT_NAME: 'e',
          LOGGER: '[console]',
          VERL_FLAVOR: flavor,
        };
        for (const plan of plans) {
          const argvFile = join(dir, `argv${plan.number}`);
          const run = () => spawnSync('bash', [join(dir, `run_stage${plan.number}.sh`), 'trainer.val_only=False'], { env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}`, ARGV_FILE: argvFile }, encoding: 'utf8' });
          let resume: string[];
          if (plan.number === 1) resume = ['trainer.resume_mode=auto'];
          else {
            const previous = join(dir, 'ck', `stage${plan.number - 1}`, `global_step_${plans[plan.number - 2].endStep}`);
            const missing = run();
            expect(missing.status).toBe(2);
            expect(missing.stderr).toContain(`${previous} does not exist`);
            mkdirSync(previous, { recursive: true });
            resume = flavor === 'upstream' ? ['trainer.resume_mode=resume_path', `trainer.resume_from_path='${previous}'`] : [`trainer.resume_mode='${previous}'`];
          }
          const r = run();
          expect(r.status, r.stderr).toBe(0);
          const argv = readFileSync(argvFile, 'utf8').trimEnd().split('\n');
          // The fork starts through fork_reward.py, which wires reward.py in (its main_ppo has no reward keys).
          const main = flavor === 'upstream' ? ['-m', 'verl.trainer.main_ppo'] : [join(dir, 'fork_reward.py')];
          const expected = [...main, ...stageOverrides(cfg, plan, flavor, INFO.rows.train).map((o) => `${o.key}=${expand(o.value, env)}`), ...resume, 'trainer.val_only=False'];
          expect(argv).toEqual(expected);
          expect(argv).toContain(`actor_rollout_ref.model.path='/models/r1'`);
          expect(argv).toContain('trainer.nnodes=2');
        }
        // An interrupted stage continues from its own checkpoint.
        if (plans.length > 1) {
          mkdirSync(join(dir, 'ck', 'stage2'), { recursive: true });
          writeFileSync(join(dir, 'ck', 'stage2', 'latest_checkpointed_iteration.txt'), '140');
          const argvFile = join(dir, 'argv-again');
          execFileSync('bash', [join(dir, 'run_stage2.sh')], { env: { ...process.env, ...env, PATH: `${bin}:${process.env.PATH}`, ARGV_FILE: argvFile } });
          expect(readFileSync(argvFile, 'utf8')).toMatch(/^trainer\.resume_mode=auto$/m);
        }
      });
    }
  }

  it('an unknown VERL_FLAVOR stops with exit 2', () => {
    const cfg = getPreset('magic');
    const file = join(root, 'flavor.sh');
    writeFileSync(file, stageScript(cfg, planStages(cfg)[0], INFO));
    const r = spawnSync('bash', [file], { env: { ...process.env, VERL_FLAVOR: 'nope', PATH: `${bin}:${process.env.PATH}`, ARGV_FILE: join(root, 'x') }, encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/VERL_FLAVOR must be upstream or skywork-or1, got nope/);
  });
});
