/**
 * `export-verl --scale`: the size table against the released Skywork-OR1 scripts and the models'
 * Hugging Face configs, the memory estimate against numbers worked by hand, the exported files of
 * each scale (3 stages, the paper's values, the lab's ratios), the entropy-target lines as bash
 * runs them, and the CLI's usage error.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { getPreset, validateRunConfig } from '../../src/rl/config';
import { baseCheckpointSelection, buildExport } from '../../src/verl/export';
import { planStages, stageOverrides } from '../../src/verl/mapping';
import {
  defaultNodes,
  entropyRatio,
  memoryEstimate,
  paramCount,
  PAPER,
  scaledConfig,
  SCALE_NAMES,
  SCALES,
  targetEntropyLines,
  tokensPerGpu,
} from '../../src/verl/scale';
import { scriptOverrides } from './schema-check';

const GIB = 2 ** 30;

describe('the scale table', () => {
  it('the parameter counts of the R1-Distill models (Hugging Face: 1.78B, 7.62B, 32.8B)', () => {
    // 7B by hand: a layer = q,o 2·3584² + k,v 2·3584·512 + biases 3584 + 2·512 + MLP 3·3584·18944 + norms 2·3584
    // = 25,690,112 + 3,670,016 + 4,608 + 203,685,888 + 7,168 = 233,057,792; × 28 = 6,525,618,176;
    // embeddings and lm_head 2·152064·3584 = 1,089,994,752; final norm 3584: 7,615,616,512.
    expect(paramCount(SCALES['7b'].arch)).toBe(7_615_616_512);
    expect(paramCount(SCALES['1.5b'].arch)).toBe(1_777_088_000);
    expect(paramCount(SCALES['32b'].arch)).toBe(32_763_876_352);
  });

  it('follows the released scripts: 7b TP 1 SP 1; 32b TP 2, SP 2 only at 32K; 1.5b derived and says so', () => {
    expect(SCALE_NAMES).toEqual(['1.5b', '7b', '32b']);
    expect([SCALES['7b'].tp, SCALES['7b'].sp]).toEqual([1, [1, 1, 1]]);
    expect([SCALES['32b'].tp, SCALES['32b'].sp]).toEqual([2, [1, 1, 2]]);
    expect(SCALES['1.5b'].source).toMatch(/^derived: the fork ships no 1\.5B training script/);
    for (const n of SCALE_NAMES) expect(SCALES[n].model).toBe(`deepseek-ai/DeepSeek-R1-Distill-Qwen-${n.toUpperCase()}`);
    expect(PAPER).toMatchObject({ responseLengths: [8192, 16384, 32768], promptLength: 2048, lr: 1e-6, batchPrompts: 256, groupSize: 16, temperature: 1.0, targetEntropy: 0.2, delta: 1e-4, cMax: 5e-3, nVal: 8 });
    // MAX_TOKEN_LEN = (RES_LENGTH + MAX_PROMPT_LENGTH + 1000) / SP: 32b at 32K = (32768 + 2048 + 1000) / 2.
    expect(tokensPerGpu(8192, 1)).toBe(11240);
    expect(tokensPerGpu(32768, 2)).toBe(17908);
  });
});

describe('the memory estimate (per GPU, bytes)', () => {
  it('7B, stage 1 on one node of 8: worked by hand', () => {
    const est = memoryEstimate(SCALES['7b'].arch, { gpus: 8, tp: 1, sp: 1, responseLength: 8192 });
    // state = 16 · 7,615,616,512 / 8 = 15,231,233,024 (14.19 GiB)
    expect(est.state).toBe(15_231_233_024);
    // per token: 2·28·3584 = 200,704 + 2·(10·3584 + 3·18944) = 185,344 + 4·152064 = 608,256 → 994,304;
    // × T = 8192 + 2048 + 1000 = 11,240 tokens → 11,175,976,960 (10.41 GiB)
    expect(est.activations).toBe(11_175_976_960);
    expect(est.train).toBe(15_231_233_024 + 11_175_976_960);
    // rollout = 2 · P / TP = 15,231,233,024 + KV 4·28·4·128 = 57,344 bytes a token × 10,240 = 587,202,560
    expect(est.rollout).toBe(15_231_233_024 + 587_202_560);
  });

  it('more GPUs shrink only the sharded state; SP shrinks the activations; TP the rollout', () => {
    const a = SCALES['32b'].arch;
    const one = memoryEstimate(a, { gpus: 8, tp: 2, sp: 1, responseLength: 32768 });
    const two = memoryEstimate(a, { gpus: 16, tp: 2, sp: 1, responseLength: 32768 });
    expect(two.state).toBe(one.state / 2);
    expect(two.activations).toBe(one.activations);
    const sp2 = memoryEstimate(a, { gpus: 16, tp: 2, sp: 2, responseLength: 32768 });
    expect(sp2.activations).toBeLessThan(one.activations / 1.99);
    expect(memoryEstimate(a, { gpus: 16, tp: 1, sp: 2, responseLength: 32768 }).rollout).toBe(2 * sp2.rollout);
  });

  it('default node counts: 1.5b and 7b fit one node of 80 GiB GPUs, 32b needs two', () => {
    // 32b on one node, stage 2: state 16·32,763,876,352/8 = 65.5 GB (61.0 GiB) + activations of 19,432 tokens (27.7 GiB) > 80 GiB.
    expect(SCALE_NAMES.map((n) => defaultNodes(SCALES[n]))).toEqual([1, 1, 2]);
    const s2 = memoryEstimate(SCALES['32b'].arch, { gpus: 8, tp: 2, sp: 1, responseLength: 16384 });
    expect(s2.train / GIB).toBeGreaterThan(80);
    expect(memoryEstimate(SCALES['32b'].arch, { gpus: 16, tp: 2, sp: 1, responseLength: 16384 }).train / GIB).toBeLessThan(80);
  });
});

describe('the recipe at scale', () => {
  const lab = getPreset('magic');
  it('the paper\'s values, three stages, the lab\'s stage plan and switches', () => {
    const c = scaledConfig(lab);
    const plans = planStages(c);
    expect(plans.map((p) => [p.stage.maxResponseLength, p.stage.batchPrompts, p.stage.groupSize, p.stage.temperature, p.endStep])).toEqual([
      [8192, 256, 16, 1, 200],
      [16384, 256, 16, 1, 400],
      [32768, 256, 16, 1, 600],
    ]);
    expect(c.update.lr).toBe(1e-6);
    expect(c.loss.entropy).toMatchObject({ mode: 'adaptive', delta: 1e-4, cMin: 0, cMax: 5e-3, c0: 0 });
    expect([c.eval.k, c.data.offlineFilter, c.data.onlineFilter, c.rejection.mode]).toEqual([8, lab.data.offlineFilter, lab.data.onlineFilter, lab.rejection.mode]);
    // Relative stage lengths: 50 + 150 in the lab → 50, 150, 150; the lab's KL in its stage 2 carries to stages 2 and 3.
    const uneven = validateRunConfig({ stages: [{ maxResponseLength: 24, steps: 50 }, { maxResponseLength: 40, steps: 150, klBeta: 1e-3 }] }, lab);
    expect(planStages(scaledConfig(uneven)).map((p) => [p.endStep - p.startStep, p.stage.klBeta])).toEqual([[50, 0], [150, 1e-3], [150, 1e-3]]);
    // miniBatches is a ratio: 4 → ppo_mini_batch_size 64.
    const nsgd = scaledConfig(getPreset('off-policy-nsgd4'));
    expect(stageOverrides(nsgd, planStages(nsgd)[0], 'upstream', 1000).find((o) => o.key.endsWith('ppo_mini_batch_size'))?.value).toBe('64');
  });

  it('the entropy target keeps the lab\'s ratio to the start entropy (bash runs the lines)', () => {
    // The lab: target 0.1 over a start of 0.225 nats → 0.4444; an LLM starting at 0.6 gets 0.2666.
    expect(entropyRatio(lab)).toBeCloseTo(0.4444, 4);
    const sh = [...targetEntropyLines(lab), 'echo "$TARGET_ENTROPY"'].join('\n');
    const target = (env: Record<string, string>) => execFileSync('bash', ['-c', `set -euo pipefail\n${sh}`], { env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' }).trim();
    expect(target({})).toBe('0.2');
    expect(target({ START_ENTROPY: '0.6' })).toBe('0.2666');
    expect(target({ START_ENTROPY: '0.6', TARGET_ENTROPY: '0.3' })).toBe('0.3');
  });
});

describe('the exported files of each scale', () => {
  const cfg = getPreset('magic');
  for (const name of SCALE_NAMES) {
    it(name, () => {
      const { files } = buildExport(cfg, baseCheckpointSelection(cfg, null, 'not needed here'), { name: 'magic', source: 'test' }, name);
      const byName = new Map(files.map((f) => [f.name, f.contents]));
      expect([...byName.keys()].filter((n) => n.startsWith('run_stage'))).toEqual(['run_stage1.sh', 'run_stage2.sh', 'run_stage3.sh']);
      expect(JSON.parse(byName.get('lab-config.json') as string)).toEqual(cfg);
      const spec = SCALES[name];
      PAPER.responseLengths.forEach((len, i) => {
        const text = byName.get(`run_stage${i + 1}.sh`) as string;
        expect(text).toContain(`: "\${MODEL_PATH:=${spec.model}}"`);
        expect(text).toContain(`: "\${NNODES:=${defaultNodes(spec)}}"`);
        expect(text).toContain(`: "\${ROLLOUT_TP:=${spec.tp}}"`);
        expect(text).toContain(`: "\${SP:=${spec.sp[i]}}"`);
        expect(text).toContain(`: "\${PPO_MAX_TOKEN_LEN_PER_GPU:=$(( (${len} + MAX_PROMPT_LENGTH + 1000) / SP ))}"`);
        const up = Object.fromEntries(scriptOverrides(text, 'upstream').map((o) => [o.key, o.value]));
        const fork = Object.fromEntries(scriptOverrides(text, 'skywork-or1').map((o) => [o.key, o.value]));
        for (const o of [up, fork]) {
          expect(o).toMatchObject({
            'data.max_response_length': String(len),
            'data.train_batch_size': '256',
            'actor_rollout_ref.rollout.n': '16',
            'actor_rollout_ref.rollout.temperature': '1',
            'actor_rollout_ref.actor.optim.lr': '0.000001',
            'actor_rollout_ref.actor.ulysses_sequence_parallel_size': '${SP}',
            'actor_rollout_ref.actor.fsdp_config.param_offload': 'True',
            'actor_rollout_ref.actor.fsdp_config.optimizer_offload': 'True',
            'actor_rollout_ref.ref.fsdp_config.param_offload': 'True',
            'trainer.nnodes': '${NNODES}',
            'trainer.n_gpus_per_node': '${N_GPUS_PER_NODE}',
            'trainer.total_training_steps': String(200 * (i + 1)),
          });
        }
        expect(up['actor_rollout_ref.rollout.val_kwargs.n']).toBe('8');
        expect(fork).toMatchObject({
          'actor_rollout_ref.rollout.n_val': '8',
          'actor_rollout_ref.actor.adaptive_entropy.target_entropy': '${TARGET_ENTROPY}',
          'actor_rollout_ref.actor.adaptive_entropy.delta_ent_coef': '0.0001',
          'actor_rollout_ref.actor.adaptive_entropy.max_ent_coef': '0.005',
          'actor_rollout_ref.actor.entropy_coeff': '0',
          'actor_rollout_ref.actor.fsdp_config.grad_offload': 'True',
          'trainer.rejection_sample': 'True',
        });
      });
      const notes = byName.get('NOTES.md') as string;
      expect(notes).toContain(`## Scale: ${spec.model.split('/')[1]} (\`--scale ${name}\`)`);
      expect(notes).toMatch(/### Memory per GPU \(an estimate\)/);
      expect(notes).toContain('state = 16 P / W bytes');
      expect(notes).toContain(`${defaultNodes(spec)} × 8 (default)`);
      expect(notes).toContain('0.4444 × START_ENTROPY');
      expect(notes).not.toContain("## Values are the lab's");
      if (name === '1.5b') expect(notes).toContain('derived: the fork ships no 1.5B training script');
    });
  }

  it('without --scale the export is as before: the lab\'s values, two stages', () => {
    const { files } = buildExport(cfg, baseCheckpointSelection(cfg, null, 'x'), { name: 'magic', source: 'test' });
    expect(files.filter((f) => f.name.startsWith('run_stage')).length).toBe(2);
    const notes = files.find((f) => f.name === 'NOTES.md')!.contents as string;
    expect(notes).toContain("## Values are the lab's");
    expect(notes).not.toContain('## Scale');
  });
});

describe('export-verl --scale on the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'magic-export-scale-'));
  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['export-verl', ...argv], (s) => out.push(s), (s) => err.push(s));
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('--scale 7b writes the three stages', async () => {
    const out = join(dir, 'seven');
    const r = await run('--preset', 'magic-tiny', '--scale', '7b', '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/scale 7b: deepseek-ai\/DeepSeek-R1-Distill-Qwen-7B, 3 stages/);
    expect(readFileSync(join(out, 'run_stage3.sh'), 'utf8')).toContain('"data.max_response_length=32768"');
  });

  it('--scale 32b stage 3 as bash runs it: the per-size defaults reach verl, environment wins', async () => {
    const out = join(dir, 'thirty-two');
    expect((await run('--preset', 'magic-tiny', '--scale', '32b', '--out', out)).code).toBe(0);
    // A stand-in python3 that records its arguments, one a line.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'python3'), '#!/usr/bin/env bash\nprintf \'%s\\n\' "$@" > "$ARGV_FILE"\n');
    chmodSync(join(bin, 'python3'), 0o755);
    const resume = join(dir, 'stage2-end');
    mkdirSync(resume, { recursive: true });
    const argvFile = join(dir, 'argv');
    const argv = (env: Record<string, string>) => {
      execFileSync('bash', [join(out, 'run_stage3.sh')], { env: { PATH: `${bin}:${process.env.PATH}`, ARGV_FILE: argvFile, RESUME_FROM: resume, ...env } });
      return readFileSync(argvFile, 'utf8').split('\n');
    };
    const up = argv({});
    // (32768 + 2048 + 1000) / 2 = 17908 tokens; 2 nodes, TP 2, SP 2 at 32K.
    for (const a of ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu=17908', 'trainer.nnodes=2', 'trainer.n_gpus_per_node=8', 'actor_rollout_ref.rollout.tensor_model_parallel_size=2', 'actor_rollout_ref.actor.ulysses_sequence_parallel_size=2', "actor_rollout_ref.model.path='deepseek-ai/DeepSeek-R1-Distill-Qwen-32B'", 'data.max_prompt_length=2048']) expect(up).toContain(a);
    const fork = argv({ VERL_FLAVOR: 'skywork-or1', NNODES: '4', SP: '4', START_ENTROPY: '0.9', MODEL_PATH: '/models/r1-32b' });
    for (const a of ['actor_rollout_ref.actor.ppo_max_token_len_per_gpu=8954', 'trainer.nnodes=4', 'actor_rollout_ref.actor.adaptive_entropy.target_entropy=0.4', "actor_rollout_ref.model.path='/models/r1-32b'"]) expect(fork).toContain(a);
  });

  it('an unknown scale: exit 2, one line naming the flag and the choices, nothing written', async () => {
    const out = join(dir, 'never');
    const r = await run('--preset', 'magic', '--scale', '13b', '--out', out);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--scale: unknown scale "13b" \(one of 1\.5b, 7b, 32b\)/);
    expect(r.err.split('\n').length).toBe(1);
    expect(existsSync(out)).toBe(false);
  });
});
