/**
 * `export-verl --scale 1.5b|7b|32b`: a lab recipe as the launch of a real model, following
 * Skywork-OR1's released training scripts (SkyworkAI/Skywork-OR1 @64e96af, or1_scripts/train/
 * {7b,32b}_{8k,16k,32k}.sh). What comes from where:
 *
 *   the paper's (released scripts)  R1-Distill base, 8K → 16K → 32K, lr 1e-6, 256 × 16, τ 1.0,
 *                                   Δ 1e-4, c in [0, 5e-3], c_0 0, prompt 2048, token budget
 *                                   (response + prompt + 1000) / SP, offloading, n_val 8,
 *                                   vLLM at 0.8 of GPU memory, save/test every 20 steps
 *   per size                        TP and SP as the fork's 7b/32b scripts set them; 1.5b has no
 *                                   released script: derived (the 7B settings; a smaller model
 *                                   needs no more parallelism)
 *   the lab's, as ratios            the stage plan's relative lengths, the entropy target relative
 *                                   to the measured start entropy, filters and rejection on/off,
 *                                   D_R / D_T, KL per stage
 *
 * The memory per GPU is an estimate (memoryEstimate): NOTES.md writes its formula.
 */
import { resolveStage, type RunConfig, type StageConfig } from '../rl/config';
import type { Override, VerlFlavor } from './mapping';

export type ScaleName = '1.5b' | '7b' | '32b';
export const SCALE_NAMES: readonly ScaleName[] = ['1.5b', '7b', '32b'];
export const isScaleName = (s: string): s is ScaleName => (SCALE_NAMES as readonly string[]).includes(s);

/** The Qwen2.5 architecture under each R1-Distill model (its Hugging Face config.json). */
export interface ModelArch {
  layers: number;
  hidden: number;
  intermediate: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
}

/** Parameters of a Qwen2 decoder with untied embeddings: q/k/v with bias, o, gated MLP, two RMSNorms a layer. */
export function paramCount(a: ModelArch): number {
  const kv = a.kvHeads * a.headDim;
  const attention = 2 * a.hidden * a.hidden + 2 * a.hidden * kv + a.hidden + 2 * kv;
  const mlp = 3 * a.hidden * a.intermediate;
  return a.layers * (attention + mlp + 2 * a.hidden) + 2 * a.vocab * a.hidden + a.hidden;
}

export interface ScaleSpec {
  name: ScaleName;
  /** MODEL_PATH's default. */
  model: string;
  arch: ModelArch;
  /** vLLM tensor parallel size (ROLLOUT_TP). */
  tp: number;
  /** Ulysses sequence parallel size of each stage (SP). */
  sp: readonly [number, number, number];
  /** Where tp/sp come from. */
  source: string;
}

/** The paper's settings (or1_scripts/train/7b_8k.sh; the 32b scripts differ only in TP/SP). */
export const PAPER = {
  responseLengths: [8192, 16384, 32768] as const,
  promptLength: 2048,
  /** MAX_TOKEN_LEN = (RES_LENGTH + MAX_PROMPT_LENGTH + 1000) / SP. */
  tokenSlack: 1000,
  lr: 1e-6,
  batchPrompts: 256,
  groupSize: 16,
  temperature: 1.0,
  targetEntropy: 0.2,
  delta: 1e-4,
  cMin: 0,
  cMax: 5e-3,
  c0: 0,
  nVal: 8,
  valTemperature: 0.6,
  gpuMemoryUtilization: 0.8,
  everySteps: 20,
  gpusPerNode: 8,
  scripts: 'SkyworkAI/Skywork-OR1@64e96af or1_scripts/train/',
};

export const SCALES: Record<ScaleName, ScaleSpec> = {
  '1.5b': {
    name: '1.5b',
    model: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B',
    arch: { layers: 28, hidden: 1536, intermediate: 8960, heads: 12, kvHeads: 2, headDim: 128, vocab: 151936 },
    tp: 1,
    sp: [1, 1, 1],
    source: 'derived: the fork ships no 1.5B training script; the 7B settings (TP 1, SP 1), which a model a fifth the size fits with room to spare',
  },
  '7b': {
    name: '7b',
    model: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B',
    arch: { layers: 28, hidden: 3584, intermediate: 18944, heads: 28, kvHeads: 4, headDim: 128, vocab: 152064 },
    tp: 1,
    sp: [1, 1, 1],
    source: 'or1_scripts/train/7b_{8k,16k,32k}.sh: TP=1, SP=1',
  },
  '32b': {
    name: '32b',
    model: 'deepseek-ai/DeepSeek-R1-Distill-Qwen-32B',
    arch: { layers: 64, hidden: 5120, intermediate: 27648, heads: 40, kvHeads: 8, headDim: 128, vocab: 152064 },
    tp: 2,
    sp: [1, 1, 2],
    source: 'or1_scripts/train/32b_{8k,16k,32k}.sh: TP=2; SP=1 at 8K and 16K, SP=2 at 32K',
  },
};

/** The GPU the node-count default is sized for (H100 / H800 / A100 80 GB). */
export const GPU_MEMORY_GIB = 80;
const GIB = 2 ** 30;

/** Tokens per GPU in one micro-batch: the fork's ppo_max_token_len_per_gpu. */
export const tokensPerGpu = (responseLength: number, sp: number, promptLength = PAPER.promptLength): number =>
  Math.floor((responseLength + promptLength + PAPER.tokenSlack) / sp);

export interface MemoryEstimate {
  /** fp32 weights + fp32 grads + Adam m and v, FSDP-sharded over every GPU: 16 P / W bytes. */
  state: number;
  /** One micro-batch of T tokens with gradient checkpointing: T × (2 L h + 2 (10 h + 3 I) + 4 V) bytes. */
  activations: number;
  /** The actor update: state + activations. */
  train: number;
  /** vLLM: bf16 weights split by TP (2 P / TP) + the KV cache of one longest sequence (4 L n_kv d_head (prompt + response) / TP). */
  rollout: number;
}

/**
 * Bytes per GPU of one stage (an estimate: no allocator slack, CUDA context or NCCL buffers).
 * With offloading on, the trainer's state leaves the GPU while vLLM generates, so the peak is
 * max(train, rollout) and vLLM takes gpu_memory_utilization of what is there; without it, the sum.
 */
export function memoryEstimate(arch: ModelArch, o: { gpus: number; tp: number; sp: number; responseLength: number; promptLength?: number }): MemoryEstimate {
  const P = paramCount(arch);
  const prompt = o.promptLength ?? PAPER.promptLength;
  const T = tokensPerGpu(o.responseLength, o.sp, prompt);
  const { layers: L, hidden: h, intermediate: I, vocab: V } = arch;
  const state = (16 * P) / o.gpus;
  const activations = T * (2 * L * h + 2 * (10 * h + 3 * I) + 4 * V);
  const kvPerToken = 4 * L * arch.kvHeads * arch.headDim; // K and V, bf16, every layer
  const rollout = (2 * P) / o.tp + (kvPerToken * (prompt + o.responseLength)) / o.tp;
  return { state, activations, train: state + activations, rollout };
}

export const gib = (bytes: number): string => (bytes / GIB).toFixed(1);

/** A stage fits a GPU_MEMORY_GIB GPU: the actor update in all of it, vLLM in its gpu_memory_utilization share. */
export const fitsGpu = (est: MemoryEstimate): boolean => est.train <= GPU_MEMORY_GIB * GIB && est.rollout <= PAPER.gpuMemoryUtilization * GPU_MEMORY_GIB * GIB;

/** Default NNODES: the fewest nodes (1, 2, 4, 8) of 8 GPUs on which every stage fits (fitsGpu). */
export function defaultNodes(spec: ScaleSpec): number {
  for (const n of [1, 2, 4, 8]) {
    if (PAPER.responseLengths.every((len, i) => fitsGpu(memoryEstimate(spec.arch, { gpus: n * PAPER.gpusPerNode, tp: spec.tp, sp: spec.sp[i], responseLength: len })))) return n;
  }
  return 8;
}

/**
 * The lab's base policy's entropy at the start of a run, at τ = 1: 0.21–0.24 nats (the shipped
 * base, src/rl/config/schema.ts at loss.entropy.target); the midpoint. The lab's target over it is
 * the ratio carried to the LLM.
 */
export const LAB_START_ENTROPY = 0.225;

export const entropyRatio = (cfg: RunConfig): number => cfg.loss.entropy.target / LAB_START_ENTROPY;

/** Lab stage whose choices a scaled stage takes: the same index, the last one past the lab's end. */
const labStageOf = (cfg: RunConfig, k: number): number => Math.min(k, cfg.stages.length - 1);

const labStageSteps = (cfg: RunConfig, i: number): number => {
  const s = cfg.stages[i];
  return s.steps ?? s.convergence!.maxSteps;
};

/**
 * The recipe at scale, as a RunConfig the mapping reads (not a lab config: its response lengths
 * exceed the lab model's context, so it is never validated or trained by the lab). The paper's
 * values where the released scripts set them; the lab's choices where they are ratios or switches.
 */
export function scaledConfig(cfg: RunConfig): RunConfig {
  const c = structuredClone(cfg);
  c.stages = PAPER.responseLengths.map((len, k): StageConfig => {
    const lab = resolveStage(cfg, labStageOf(cfg, k));
    return {
      maxResponseLength: len,
      // The lab plan's relative stage lengths: stage k runs the steps of the lab's stage k (its budget when that stage converges).
      steps: labStageSteps(cfg, labStageOf(cfg, k)),
      convergence: null,
      batchPrompts: PAPER.batchPrompts,
      groupSize: PAPER.groupSize,
      temperature: PAPER.temperature,
      klBeta: lab.klBeta,
    };
  });
  c.rollout = { ...c.rollout, batchPrompts: PAPER.batchPrompts, groupSize: PAPER.groupSize, temperature: PAPER.temperature };
  // verl's optimizer defaults, which the released scripts leave as they are.
  c.update = { ...c.update, lr: PAPER.lr, lrSchedule: { mode: 'constant', warmupSteps: 0, minRatio: 0 }, beta1: 0.9, beta2: 0.999, weightDecay: 0.01, gradClip: 1.0 };
  c.loss = { ...c.loss, entropy: { ...c.loss.entropy, target: PAPER.targetEntropy, delta: PAPER.delta, cMin: PAPER.cMin, cMax: PAPER.cMax, c0: PAPER.c0 } };
  c.eval = { ...c.eval, k: PAPER.nVal, everySteps: PAPER.everySteps, temperatures: [PAPER.valTemperature, 1.0] };
  c.checkpoint = { everySteps: PAPER.everySteps };
  return c;
}

/** Launch parameters of a scaled stage, in the order the script sets them (later defaults read earlier ones). */
export function scaleParameters(spec: ScaleSpec, stageIndex: number): { name: string; default: string; meaning: string }[] {
  const len = PAPER.responseLengths[stageIndex];
  return [
    { name: 'MODEL_PATH', default: spec.model, meaning: 'the policy to train: a Hugging Face id or a local directory' },
    { name: 'NNODES', default: String(defaultNodes(spec)), meaning: 'trainer.nnodes: Ray nodes (the fewest of 8 GPUs on which every stage fits 80 GiB GPUs: Scale section)' },
    { name: 'N_GPUS_PER_NODE', default: String(PAPER.gpusPerNode), meaning: 'trainer.n_gpus_per_node (the released scripts: 8)' },
    { name: 'ROLLOUT_TP', default: String(spec.tp), meaning: 'vLLM tensor parallel size' },
    { name: 'SP', default: String(spec.sp[stageIndex]), meaning: 'Ulysses sequence parallel size of the actor (this stage)' },
    { name: 'GPU_MEMORY_UTILIZATION', default: String(PAPER.gpuMemoryUtilization), meaning: 'vLLM\'s share of GPU memory' },
    { name: 'MAX_PROMPT_LENGTH', default: String(PAPER.promptLength), meaning: 'data.max_prompt_length' },
    { name: 'PPO_MAX_TOKEN_LEN_PER_GPU', default: `$(( (${len} + MAX_PROMPT_LENGTH + ${PAPER.tokenSlack}) / SP ))`, meaning: 'tokens per GPU micro-batch: (response + prompt + 1000) / SP, as the released scripts' },
  ];
}

/**
 * Script lines that set TARGET_ENTROPY: the lab's ratio times START_ENTROPY (the LLM's measured
 * entropy at the start, nats at τ = 1) when given, else the paper's 0.2.
 */
export function targetEntropyLines(cfg: RunConfig): string[] {
  const ratio = Number(entropyRatio(cfg).toPrecision(4));
  return [
    `# The lab's entropy target is ${ratio} x its base's start entropy: with START_ENTROPY (the LLM's first actor/entropy at τ 1) the target keeps that ratio.`,
    `if [ -n "\${START_ENTROPY:-}" ]; then : "\${TARGET_ENTROPY:=$(awk -v e="$START_ENTROPY" 'BEGIN { printf "%.4g", ${ratio} * e }')}"; fi`,
    `: "\${TARGET_ENTROPY:=${PAPER.targetEntropy}}"`,
  ];
}

const A = 'actor_rollout_ref.actor';

/** The scale-only overrides of a stage: the released scripts' memory layout, added to the mapping's. */
export function scaleOverrides(base: readonly Override[], flavor: VerlFlavor): Override[] {
  const o = base.map((x) => (x.key === `${A}.adaptive_entropy.target_entropy` ? { ...x, value: '${TARGET_ENTROPY}' } : x));
  const add = (key: string, value: string) => o.push({ key, value, fields: [] });
  add('actor_rollout_ref.model.use_remove_padding', 'True');
  add('actor_rollout_ref.model.enable_gradient_checkpointing', 'True');
  add(`${A}.ulysses_sequence_parallel_size`, '${SP}');
  add(`${A}.fsdp_config.param_offload`, 'True');
  // Upstream offloads gradients with the parameters (param_offload); the fork has its own key.
  if (flavor === 'skywork-or1') add(`${A}.fsdp_config.grad_offload`, 'True');
  add(`${A}.fsdp_config.optimizer_offload`, 'True');
  add('actor_rollout_ref.ref.fsdp_config.param_offload', 'True');
  return o;
}

/** 1e-6, not 0.000001. */
const sci = (x: number): string => (x === 0 ? '0' : x.toExponential());

const modelName = (spec: ScaleSpec): string => spec.model.split('/').pop()!;

/** NOTES.md's Scale section: where each value comes from, the Ray layout, and the memory estimate. */
export function scaleNotes(lab: RunConfig, scaled: RunConfig, spec: ScaleSpec): string[] {
  const P = paramCount(spec.arch);
  const nodes = defaultNodes(spec);
  const e = lab.loss.entropy;
  const ratio = Number(entropyRatio(lab).toPrecision(4));
  const labSteps = lab.stages.map((_, i) => labStageSteps(lab, i));
  const steps = scaled.stages.map((s) => s.steps!);
  const m = lab.update.miniBatches;
  const onOff = (b: boolean) => (b ? 'on' : 'off');
  const memRows = [1, 2, 4].flatMap((n) =>
    PAPER.responseLengths.map((len, i) => {
      const est = memoryEstimate(spec.arch, { gpus: n * PAPER.gpusPerNode, tp: spec.tp, sp: spec.sp[i], responseLength: len });
      const fits = fitsGpu(est) ? 'yes' : 'no';
      return `| ${n} × ${PAPER.gpusPerNode}${n === nodes ? ' (default)' : ''} | ${i + 1} | ${len} | ${spec.sp[i]} | ${tokensPerGpu(len, spec.sp[i])} | ${gib(est.state)} | ${gib(est.activations)} | ${gib(est.train)} | ${gib(est.rollout)} | ${fits} |`;
    }),
  );
  return [
    `## Scale: ${modelName(spec)} (\`--scale ${spec.name}\`)`,
    '',
    `The launch follows Skywork-OR1's released training scripts (${PAPER.scripts}${spec.name === '32b' ? '32b' : '7b'}_{8k,16k,32k}.sh). Parallelism: ${spec.source}.`,
    `lab-config.json is the lab's recipe as tuned; the scripts carry the values below. The model has ${(P / 1e9).toFixed(2)}B parameters (${spec.arch.layers} layers, hidden ${spec.arch.hidden}, ${spec.arch.kvHeads} KV heads; its config.json).`,
    '',
    '### From the released scripts',
    '',
    '| setting | value | script variable |',
    '| --- | --- | --- |',
    `| base model (MODEL_PATH) | \`${spec.model}\` | MODEL_PATH (the paper's base of this size) |`,
    `| stages: response length | ${PAPER.responseLengths.join(' → ')} | RES_LENGTH of the _8k, _16k, _32k scripts |`,
    `| prompt length | ${PAPER.promptLength} | MAX_PROMPT_LENGTH |`,
    `| lr | ${sci(PAPER.lr)} (constant, no warmup; verl's Adam defaults β (0.9, 0.999), weight decay 0.01, grad clip 1) | actor.optim.lr |`,
    `| D_R × G, τ | ${PAPER.batchPrompts} × ${PAPER.groupSize}, τ ${PAPER.temperature} | ROLLOUT_BATCH_SIZE, GROUP_SIZE, TRAIN_TEMPERATURE |`,
    `| adaptive entropy (fork) | target ${PAPER.targetEntropy} unless START_ENTROPY (below), Δ ${sci(PAPER.delta)}, c in [${PAPER.cMin}, ${sci(PAPER.cMax)}], c_0 ${PAPER.c0} | TGT_ENTROPY, DELTA_ENT_COEF, MIN/MAX_ENT_COEF, ENTROPY_COEFF |`,
    `| validation | n ${PAPER.nVal} per problem (upstream at τ ${PAPER.valTemperature}; the fork at 0.6 and 1.0), every ${PAPER.everySteps} steps; checkpoints every ${PAPER.everySteps} | N_VAL_SAMPLES, test_freq, save_freq |`,
    `| memory | FSDP param, grad (fork key; upstream offloads grads with params) and optimizer offload, reference param offload, gradient checkpointing, remove padding; vLLM at ${PAPER.gpuMemoryUtilization} of GPU memory | fsdp_config.*_offload, gpu_memory_utilization |`,
    `| tokens per GPU micro-batch | (response + prompt + ${PAPER.tokenSlack}) / SP: ${PAPER.responseLengths.map((l, i) => tokensPerGpu(l, spec.sp[i])).join(', ')} | MAX_TOKEN_LEN |`,
    `| ROLLOUT_TP, SP per stage | ${spec.tp}; ${spec.sp.join(', ')} | TP, SP |`,
    '',
    '### The lab\'s choices, carried over as ratios',
    '',
    `- **Stage plan.** The released scripts set no step count (total_epochs=30; the paper moves to the next length by hand). The lab's stages run ${labSteps.join(' + ')} steps (\`stages[].steps\`; the default recipe's 200 + 200 was tuned: it beat 100 + 100 by +1.3 points of held-out avg@8, and a shorter first stage lost); the scaled stages keep those relative lengths, stage k taking the lab's stage k (the last one past its end): ${steps.join(' + ')} steps. They are budgets: stop a stage when val/ plateaus and start the next with RESUME_FROM. The lengths themselves double as in the paper (the lab's ${lab.stages.map((s) => s.maxResponseLength).join(' → ')} is bounded by its ${lab.model.contextLength}-token context).`,
    `- **Entropy target.** The lab's target (${e.target}) is ${ratio} × its base policy's start entropy (${LAB_START_ENTROPY} nats at τ 1, the midpoint of the 0.21–0.24 the shipped base starts at; the default 0.1 was tuned: +2.3 points of held-out gain over 0.15, while 0.2 lost 5.5). Set START_ENTROPY to the LLM's own start (the first actor/entropy a stage-1 run logs) and TARGET_ENTROPY becomes ${ratio} × START_ENTROPY; without it the scripts use the paper's ${PAPER.targetEntropy}. The lab's Δ ${e.delta}, c_max ${e.cMax} and c_0 ${e.c0} are tuned to a 400-step, 100K-parameter run and are not carried: the paper's are. Mode: ${e.mode}${e.mode === 'adaptive' ? ' (the fork\'s controller; upstream has none: entropy_coeff 0)' : ''}.`,
    `- **Filters.** Offline filter ${onOff(lab.data.offlineFilter.enabled)}: ${lab.data.offlineFilter.enabled ? `train.parquet holds what the lab's policy left; for ${modelName(spec)} drop the prompts it solves 0/${lab.data.offlineFilter.samples} or ${lab.data.offlineFilter.samples}/${lab.data.offlineFilter.samples} (the offline-filter entry below says how; the fork's or1_scripts/data_preprocess/download_and_filter_data_${spec.name === '1.5b' ? '1p5b' : spec.name}.py does this per size for its own data)` : 'every problem is exported'}. Online filter ${onOff(lab.data.onlineFilter)}${lab.data.onlineFilter ? ' (the fork records per-prompt solve rates under trainer.stats_path, as the released scripts)' : ''}. Rejection sampling ${lab.rejection.mode} (the fork's trainer.rejection_sample=${lab.rejection.mode !== 'off' ? 'True, as the released scripts' : 'False'}).`,
    `- **D_R / D_T.** update.miniBatches = ${m}: ppo_mini_batch_size = ${PAPER.batchPrompts} / ${m} = ${Math.max(1, Math.floor(PAPER.batchPrompts / m))} prompts (the paper: 256, one optimizer step per RL step).`,
    `- **KL.** Each scaled stage takes β of the lab stage it maps to: ${scaled.stages.map((s) => s.klBeta ?? 0).join(', ')}.`,
    '',
    '### GPUs and the Ray layout',
    '',
    `NNODES defaults to ${nodes}: the fewest nodes of ${PAPER.gpusPerNode} GPUs on which every stage fits an ${GPU_MEMORY_GIB} GiB GPU by the estimate below. The world size W = NNODES × N_GPUS_PER_NODE must be a multiple of ROLLOUT_TP and SP, and ${PAPER.batchPrompts} × ${PAPER.groupSize} responses a multiple of W / SP.`,
    '',
    '```sh',
    `# one node (${PAPER.gpusPerNode} GPUs)`,
    'NNODES=1 bash run_stage1.sh',
    '# several nodes: start Ray on each, then launch on the head node (DATA_DIR and CKPT_DIR on a shared filesystem)',
    'ray start --head --dashboard-host=0.0.0.0             # node 0: prints its address, e.g. 10.0.0.1:6379',
    'ray start --address=10.0.0.1:6379                     # every other node',
    `NNODES=${Math.max(2, nodes)} bash run_stage1.sh && NNODES=${Math.max(2, nodes)} bash run_stage2.sh && NNODES=${Math.max(2, nodes)} bash run_stage3.sh`,
    '```',
    '',
    '### Memory per GPU (an estimate)',
    '',
    'Per GPU, with P parameters, L layers, hidden h, MLP width I, vocabulary V, W GPUs and T = (response + prompt + 1000) / SP tokens per micro-batch:',
    '',
    '- state = 16 P / W bytes: fp32 weights (4) + fp32 gradients (4) + Adam m and v (8) per parameter, FSDP-sharded over all W GPUs;',
    '- activations = T × (2 L h + 2 (10 h + 3 I) + 4 V) bytes: bf16 layer inputs kept by gradient checkpointing, one layer recomputed, bf16 logits and their gradient;',
    '- train = state + activations (the actor update); rollout = 2 P / TP + 4 L n_kv d_head (prompt + response) / TP bytes: vLLM\'s bf16 weights and the KV cache of one longest sequence.',
    '',
    `With offloading on (as here) the state leaves the GPU while vLLM generates, so a GPU needs max(train, rollout); vLLM then takes GPU_MEMORY_UTILIZATION of the memory and batches as many sequences as fit. This is an estimate: it leaves out allocator fragmentation, the CUDA context, NCCL buffers and the entropy and log-prob temporaries, so keep 10–20% spare. "fits": train ≤ ${GPU_MEMORY_GIB} GiB and rollout ≤ ${PAPER.gpuMemoryUtilization} × ${GPU_MEMORY_GIB} GiB.`,
    '',
    '| nodes × GPUs | stage | response | SP | T | state GiB | activations GiB | train GiB | rollout GiB | fits |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...memRows,
  ];
}
