/**
 * The text files of an export: one `run_stageK.sh` per stage (both dialects of mapping.ts in one
 * script, chosen by VERL_FLAVOR) and NOTES.md (parameters, stages, what verl does differently).
 * Pure: strings in, strings out.
 */
import type { RunConfig } from '../rl/config';
import { LAUNCH_PARAMETERS, planStages, recipeGaps, stageOverrides, VERL_FLAVORS, type Override, type StagePlan, type VerlFlavor } from './mapping';
import { scaleNotes, scaleOverrides, scaleParameters, targetEntropyLines, type ScaleSpec } from './scale';

/** What the scripts and notes say about the export's origin and data. */
export interface ExportInfo {
  /** Recipe name: the preset or the run folder's name (EXPERIMENT_NAME's default). */
  name: string;
  /** One line: where the config came from. */
  source: string;
  /** One line: how the training problems were chosen (offline filter applied or not, and why). */
  filter: string;
  rows: { train: number; val: number; test: number };
  /** --scale: the size, and the lab's own config (the ratios carried over come from it). */
  scale?: { spec: ScaleSpec; lab: RunConfig };
  /** --model: the model folder MODEL_PATH defaults to (absolute), instead of the paper's or the scale's base. */
  modelPath?: string;
}

/** A parameter's default in the scripts and NOTES.md: MODEL_PATH is --model's folder when one was given. */
function withModelPath<P extends { name: string; default: string }>(p: P, info: ExportInfo): P {
  return p.name === 'MODEL_PATH' && info.modelPath ? { ...p, default: info.modelPath } : p;
}

/** The overrides a stage's script writes: the mapping's, plus the scale's memory layout under --scale. */
export function scriptOverrides(cfg: RunConfig, plan: StagePlan, flavor: VerlFlavor, info: ExportInfo): Override[] {
  const o = stageOverrides(cfg, plan, flavor, info.rows.train);
  return info.scale ? scaleOverrides(o, flavor) : o;
}

/** Characters a value may hold inside the script's double quotes ($ only as ${NAME}). */
const SAFE_VALUE = /^(?:[A-Za-z0-9_.,:[\]'/+\- ]|\$\{[A-Z_]+\})*$/;

function quoted(o: Override): string {
  if (!SAFE_VALUE.test(o.value) || !/^\+?[a-z0-9_.]+$/.test(o.key)) throw new Error(`verl export: override ${o.key}=${o.value} cannot be written safely into a shell script`);
  return `"${o.key}=${o.value}"`;
}

/** Experiment names go into Hydra and paths: letters, digits, . _ - only. */
export function experimentName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  return clean === '' ? 'magic-lab' : clean;
}

const PARAMETER_DEFAULTS: Record<string, string> = {
  DATA_DIR: '$HERE',
  CKPT_DIR: '$DATA_DIR/checkpoints',
};

export function stageScript(cfg: RunConfig, plan: StagePlan, info: ExportInfo): string {
  const total = cfg.stages.length;
  const s = plan.stage;
  const lines: string[] = [
    '#!/usr/bin/env bash',
    `# Stage ${plan.number} of ${total} of the lab recipe "${info.name}" on verl (magic-lab export-verl; ${info.source}).`,
    `# Steps ${plan.startStep + 1}-${plan.endStep}${plan.convergence ? ' at most (the lab ends this stage on convergence: NOTES.md)' : ''}, max response length ${s.maxResponseLength}, D_R ${s.batchPrompts} prompts x G ${s.groupSize}, τ ${s.temperature}${s.klBeta > 0 ? `, KL β ${s.klBeta}` : ''}.`,
    plan.number === 1 ? '# Starts from MODEL_PATH.' : `# Resumes from stage ${plan.number - 1}'s last checkpoint (RESUME_FROM), as the paper relaunches with a longer context.`,
    '# Usage: bash run_stage' + plan.number + '.sh [more Hydra overrides, applied last]. Parameters (environment) and what verl',
    '# does differently from the lab: NOTES.md.',
    'set -euo pipefail',
    'HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
  ];
  const scaled = info.scale ? scaleParameters(info.scale.spec, plan.number - 1) : [];
  for (const p of scaled.map((q) => withModelPath(q, info))) lines.push(`: "\${${p.name}:=${p.default}}"`);
  for (const p of LAUNCH_PARAMETERS) {
    if (p.name === 'RESUME_FROM' || scaled.some((q) => q.name === p.name)) continue;
    const def = p.name === 'EXPERIMENT_NAME' ? experimentName(info.name) : p.name === 'MODEL_PATH' && info.modelPath ? info.modelPath : (PARAMETER_DEFAULTS[p.name] ?? p.default);
    lines.push(`: "\${${p.name}:=${def}}"`);
  }
  if (info.scale) lines.push(...targetEntropyLines(info.scale.lab));
  lines.push('export DATA_DIR THINK_PREFILLED # read by fork_reward.py, the fork\'s wiring of reward.py (NOTES.md)');
  const stageDir = `$CKPT_DIR/stage${plan.number}`;
  if (plan.number === 1) {
    lines.push('# An interrupted stage continues from its own latest checkpoint.', 'RESUME=("trainer.resume_mode=auto")');
  } else {
    const prev = planStages(cfg)[plan.number - 2];
    lines.push(
      `: "\${RESUME_FROM:=$CKPT_DIR/stage${plan.number - 1}/global_step_${prev.endStep}}"`,
      `if [ -f "${stageDir}/latest_checkpointed_iteration.txt" ]; then`,
      '  RESUME=("trainer.resume_mode=auto") # this stage was interrupted: continue it',
      'else',
      `  [ -d "$RESUME_FROM" ] || { echo "run_stage${plan.number}.sh: $RESUME_FROM does not exist: run run_stage${plan.number - 1}.sh first, or set RESUME_FROM" >&2; exit 2; }`,
      '  if [ "$VERL_FLAVOR" = skywork-or1 ]; then',
      '    RESUME=("trainer.resume_mode=\'$RESUME_FROM\'") # the fork reads the folder from resume_mode',
      '  else',
      '    RESUME=("trainer.resume_mode=resume_path" "trainer.resume_from_path=\'$RESUME_FROM\'")',
      '  fi',
      'fi',
    );
  }
  lines.push('case "$VERL_FLAVOR" in');
  for (const flavor of VERL_FLAVORS) {
    lines.push(`  ${flavor})`, `    MAIN=(${flavor === 'upstream' ? '-m verl.trainer.main_ppo' : '"$DATA_DIR/fork_reward.py"'})`, '    OVERRIDES=(');
    for (const o of scriptOverrides(cfg, plan, flavor, info)) lines.push(`      ${quoted(o)}`);
    lines.push('    )', '    ;;');
  }
  lines.push(
    '  *)',
    '    echo "VERL_FLAVOR must be upstream or skywork-or1, got $VERL_FLAVOR" >&2',
    '    exit 2',
    '    ;;',
    'esac',
    'exec python3 "${MAIN[@]}" "${OVERRIDES[@]}" "${RESUME[@]}" "$@"',
    '',
  );
  return lines.join('\n');
}

/** Lab-scale values next to the paper's (7B math, released scripts), for a run at LLM scale. */
function scaleTable(cfg: RunConfig): string[] {
  const plans = planStages(cfg);
  const e = cfg.loss.entropy;
  const A = 'actor_rollout_ref.actor';
  const rows: [string, string, string, string][] = [
    ['update.lr', String(cfg.update.lr), '1e-6', `${A}.optim.lr=1e-6`],
    ['rollout.batchPrompts × groupSize', `${plans[0].stage.batchPrompts} × ${plans[0].stage.groupSize}`, '256 × 16', 'data.train_batch_size=256 actor_rollout_ref.rollout.n=16'],
    ['stages[].maxResponseLength', plans.map((p) => p.stage.maxResponseLength).join(' → '), '8192 → 16384 → 32768 tokens', 'data.max_response_length=8192'],
    ['loss.entropy.target', String(e.target), '0.2', `${A}.adaptive_entropy.target_entropy=0.2`],
    ['loss.entropy.delta', String(e.delta), '1e-4 (scripts; 0.005 in the text)', `${A}.adaptive_entropy.delta_ent_coef=1e-4`],
    ['loss.entropy.cMax / c0', `${e.cMax} / ${e.c0}`, '5e-3 / 0', `${A}.adaptive_entropy.max_ent_coef=5e-3 ${A}.entropy_coeff=0`],
  ];
  return [
    '| field | this export | paper (7B) | override |',
    '| --- | --- | --- | --- |',
    ...rows.map(([f, lab, paper, ov]) => `| \`${f}\` | ${lab} | ${paper} | \`${ov}\` |`),
    '',
    'Longer responses also need PPO_MAX_TOKEN_LEN_PER_GPU of at least prompt + response length.',
  ];
}

/** The parameters table of NOTES.md: under --scale, stage 1's defaults (the Scale section gives each stage's). */
function notesParameters(info: ExportInfo): { name: string; default: string; meaning: string }[] {
  return notesParametersOf(info).map((p) => withModelPath(p, info));
}

function notesParametersOf(info: ExportInfo): { name: string; default: string; meaning: string }[] {
  if (!info.scale) return [...LAUNCH_PARAMETERS];
  const scaled = scaleParameters(info.scale.spec, 0);
  const extra = [
    { name: 'START_ENTROPY', default: 'unset', meaning: 'the LLM\'s measured entropy at the start (nats, τ 1): sets TARGET_ENTROPY by the lab\'s ratio (Scale section)' },
    { name: 'TARGET_ENTROPY', default: 'ratio × START_ENTROPY, else 0.2', meaning: 'adaptive_entropy.target_entropy (the fork)' },
  ];
  return [...scaled, ...extra, ...LAUNCH_PARAMETERS.filter((p) => !scaled.some((q) => q.name === p.name))];
}

export function notesMarkdown(cfg: RunConfig, info: ExportInfo): string {
  const plans = planStages(cfg);
  const gaps = recipeGaps(cfg);
  const flavorName: Record<VerlFlavor, string> = { upstream: 'upstream verl (v0.7.0)', 'skywork-or1': "Skywork-OR1's fork (VERL_FLAVOR=skywork-or1)" };
  const gapLines = (pick: (f: VerlFlavor[]) => boolean) =>
    gaps.filter((g) => pick(g.flavors)).map((g) => `- ${g.fields.map((f) => `\`${f}\``).join(', ')}: ${g.text}`);
  const lines: string[] = [
    `# "${info.name}" on verl`,
    '',
    `Exported by \`magic-lab export-verl\` from ${info.source}. verl: volcengine/verl v0.7.0 (f9c855f), or Skywork-OR1's fork`,
    '(SkyworkAI/Skywork-OR1 @64e96af) with VERL_FLAVOR=skywork-or1; the lab\'s tests check every key against their `ppo_trainer.yaml`.',
    '',
    '## Files',
    '',
    `- \`train.parquet\`: ${info.rows.train} training problems in verl's RL layout (data_source, prompt, ability, reward_model, extra_info). ${info.filter}`,
    `- \`val.parquet\`: the first ${info.rows.val} test problems, what the lab evaluates every eval.everySteps steps (data.val_files).`,
    `- \`test.parquet\`: all ${info.rows.test} held-out test problems (decontaminated against train), for a final evaluation.`,
    '- `reward.py`: the lab\'s verifiers as `compute_score(data_source, solution_str, ground_truth, extra_info=None)`, Python standard library only; it scores exactly as the lab does (the lab\'s tests check it).',
    `- ${plans.map((p) => `\`run_stage${p.number}.sh\``).join(', ')}: one launch per stage, \`python3 -m verl.trainer.main_ppo\` with Hydra overrides.`,
    '',
    '## Run',
    '',
    '```sh',
    ...plans.map((p) => `bash run_stage${p.number}.sh`),
    '```',
    '',
    'Each stage resumes from the previous stage\'s last checkpoint ($CKPT_DIR/stageK/global_step_N; RESUME_FROM overrides it);',
    'an interrupted stage continues from its own. Extra arguments are Hydra overrides applied after the exported ones.',
    '',
    '| stage | steps | max response length | D_R × G | τ | β | ppo_mini_batch_size |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...plans.map((p) => `| ${p.number} | ${p.startStep + 1}–${p.endStep}${p.convergence ? ' (budget)' : ''} | ${p.stage.maxResponseLength} | ${p.stage.batchPrompts} × ${p.stage.groupSize} | ${p.stage.temperature} | ${p.stage.klBeta} | ${p.miniBatchPrompts} |`),
    '',
    'Parameters (environment variables):',
    '',
    '| variable | default | meaning |',
    '| --- | --- | --- |',
    ...notesParameters(info).map((p) => `| \`${p.name}\` | ${p.name === 'EXPERIMENT_NAME' ? `\`${experimentName(info.name)}\`` : p.default.includes(' ') && !p.default.startsWith('$') ? p.default : `\`${p.default}\``} | ${p.meaning} |`),
    '',
    'The answer format is the lab\'s: the response opens with `<think>`, and after `</think>` comes the answer alone. The prompts say so;',
    'a chat template that already ends the generation prompt with `<think>` (DeepSeek-R1-Distill) is why THINK_PREFILLED defaults to True',
    '(upstream passes it to reward.py as custom_reward_function.reward_kwargs.think_prefilled).',
    '',
    ...(info.scale
      ? scaleNotes(info.scale.lab, cfg, info.scale.spec)
      : ['## Values are the lab\'s', '', 'The settings are those of a 100K-parameter character model. For an LLM, export with `--scale 1.5b|7b|32b`, or pass the paper\'s as extra overrides:', '', ...scaleTable(cfg)]),
    '',
    "## Skywork-OR1's fork: the reward function",
    '',
    'The fork has no custom_reward_function keys: its `verl/trainer/main_ppo.py` passes its own compute_score to `run_ppo` and builds the reward manager with `is_long_penalty`, `is_binary_reward` and `is_power4_reward`, which only its `yr` manager accepts. With VERL_FLAVOR=skywork-or1 the scripts run `python3 $DATA_DIR/fork_reward.py` instead of `-m verl.trainer.main_ppo` (same overrides, no patch of the fork): it swaps in reward.py as `compute_score(response, ground_truth, data_source) -> (score, metadata)`, the `yr` manager\'s call, adds $DATA_DIR to the Ray workers\' PYTHONPATH and starts the fork\'s main. On a cluster, $DATA_DIR must be the same path on every node (a shared filesystem).',
    '',
    '## What verl does differently',
    '',
    'Every RunConfig field without a key in a dialect is named here with what it means for this export and what to do.',
    '',
    '### Both dialects',
    '',
    ...gapLines((f) => f.length === 2),
    '',
    `### ${flavorName.upstream}`,
    '',
    ...gapLines((f) => f.length === 1 && f[0] === 'upstream'),
    '',
    `### ${flavorName['skywork-or1']}`,
    '',
    ...gapLines((f) => f.length === 1 && f[0] === 'skywork-or1'),
    '',
  ];
  return lines.join('\n');
}
