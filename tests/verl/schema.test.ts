/**
 * Every override of every generated run_stageK.sh, both flavours, against verl's composed config
 * as scripts/verl-schema.py recorded it from verl v0.7.0 and Skywork-OR1's fork (key and type).
 */
import { describe, expect, it } from 'vitest';
import { getPreset, presetNames, validateRunConfig, type RunConfig } from '../../src/rl/config';
import { baseCheckpointSelection, buildExport } from '../../src/verl/export';
import { VERL_FLAVORS } from '../../src/verl/mapping';
import { SCALE_NAMES, type ScaleName } from '../../src/verl/scale';
import { loadSchema, overrideProblems, scriptOverrides, scriptProblems, valueType } from './schema-check';

function scripts(cfg: RunConfig, name: string, scale?: ScaleName): { name: string; text: string }[] {
  const { files } = buildExport(cfg, baseCheckpointSelection(cfg, null, 'not needed here'), { name, source: 'test' }, scale);
  return files.filter((f) => /^run_stage\d+\.sh$/.test(f.name)).map((f) => ({ name: f.name, text: f.contents as string }));
}

const CONFIGS: [string, RunConfig][] = [
  ...presetNames().map((n): [string, RunConfig] => [n, getPreset(n)]),
  ['cosine, KL, online filter', validateRunConfig({ data: { onlineFilter: true }, update: { lrSchedule: { mode: 'cosine', warmupSteps: 10, minRatio: 0.1 } }, stages: [{ maxResponseLength: 24, steps: 10, klBeta: 0.01 }, { maxResponseLength: 40, steps: 10 }] })],
];

describe("the recorded schema is verl's", () => {
  it('names its source commits and covers the composed config', () => {
    const up = loadSchema('upstream');
    expect(up.commit).toBe('f9c855f7cf04d603c9546bc01776c74806a879c1');
    expect(Object.keys(up.keys).length).toBe(537);
    expect(up.keys['actor_rollout_ref.actor.optim.lr']).toBe('float');
    const fork = loadSchema('skywork-or1');
    expect(fork.commit).toBe('64e96afa213ae89d0ad21932106d3b8aafe9ace2');
    expect(fork.keys['actor_rollout_ref.actor.adaptive_entropy.enabled']).toBe('bool');
  });
});

describe('every override of every generated script fits verl (both flavours)', () => {
  for (const [name, cfg] of CONFIGS) {
    it(name, () => {
      for (const s of scripts(cfg, name)) {
        for (const f of VERL_FLAVORS) expect(scriptOverrides(s.text, f).length, `${s.name} ${f}`).toBeGreaterThan(40);
        expect(scriptProblems(s.text, VERL_FLAVORS), s.name).toEqual([]);
      }
    });
  }
});

describe('--scale 1.5b, 7b, 32b: every override of every stage fits verl (both flavours)', () => {
  const cfgs: [string, RunConfig][] = [
    ['magic', getPreset('magic')],
    ['no-rejection, constant entropy, KL in stage 2', validateRunConfig({ rejection: { mode: 'off' }, loss: { entropy: { mode: 'constant' } }, stages: [{ maxResponseLength: 24, steps: 10 }, { maxResponseLength: 40, steps: 10, klBeta: 1e-3 }] })],
  ];
  for (const scale of SCALE_NAMES) {
    for (const [name, cfg] of cfgs) {
      it(`${scale}: ${name}`, () => {
        const all = scripts(cfg, name, scale);
        expect(all.map((s) => s.name)).toEqual(['run_stage1.sh', 'run_stage2.sh', 'run_stage3.sh']);
        for (const s of all) {
          for (const f of VERL_FLAVORS) expect(scriptOverrides(s.text, f).some((o) => o.key === 'actor_rollout_ref.actor.ulysses_sequence_parallel_size'), `${s.name} ${f}`).toBe(true);
          expect(scriptProblems(s.text, VERL_FLAVORS), s.name).toEqual([]);
        }
      });
    }
  }
  it('fails on a scale key that upstream lacks', () => {
    const text = scripts(getPreset('magic'), 'magic', '7b')[0].text;
    const moved = text.replace('"actor_rollout_ref.actor.fsdp_config.param_offload=True"', '"actor_rollout_ref.actor.fsdp_config.grad_offload=True"');
    expect(moved).not.toBe(text);
    expect(scriptProblems(moved, ['upstream'])).toEqual(["upstream: actor_rollout_ref.actor.fsdp_config.grad_offload: not in volcengine/verl@f9c855f's composed config"]);
  });
});

describe('the check can fail', () => {
  const text = scripts(getPreset('magic'), 'magic')[0].text;
  it('a renamed key in a generated script', () => {
    const renamed = text.replaceAll('"actor_rollout_ref.actor.ppo_epochs=', '"actor_rollout_ref.actor.ppo_epoch=');
    expect(renamed).not.toBe(text);
    const problems = scriptProblems(renamed, VERL_FLAVORS);
    expect(problems).toContain("upstream: actor_rollout_ref.actor.ppo_epoch: not in volcengine/verl@f9c855f's composed config");
    expect(problems).toContain("skywork-or1: actor_rollout_ref.actor.ppo_epoch: not in SkyworkAI/Skywork-OR1@64e96af's composed config");
  });
  it('a value of the wrong type, a needless +, a + the trainer does not read', () => {
    const up = loadSchema('upstream');
    expect(overrideProblems('actor_rollout_ref.rollout.n', 'True', up)).toHaveLength(1);
    expect(overrideProblems('actor_rollout_ref.actor.use_kl_loss', '3', up)).toHaveLength(1);
    expect(overrideProblems('trainer.logger', 'console', up)).toHaveLength(1);
    expect(overrideProblems('+actor_rollout_ref.actor.optim.lr', '1e-6', up)).toHaveLength(1);
    expect(overrideProblems('+actor_rollout_ref.actor.optim.nesterov', 'True', up)).toHaveLength(1);
    expect(overrideProblems('+custom_reward_function.reward_kwargs.think_prefilled', '${THINK_PREFILLED}', up)).toEqual([]);
    expect(overrideProblems('actor_rollout_ref.actor.clip_ratio_c', '1000000000', up)).toEqual([]);
    expect([valueType('${LOGGER}'), valueType('1e-6'), valueType('True'), valueType("'${DATA_DIR}/x'")]).toEqual(['list', 'float', 'bool', 'str']);
  });
});
