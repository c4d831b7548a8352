/**
 * The `magic-lab` command. Exit codes: 0 ok, 1 a check or run failed, 2 bad usage (flags or
 * config), with one message naming the flag or field.
 */
import { ConfigError } from '../model/config';
import { CheckpointError } from '../model/checkpoint';
import { helpText, RunFailure, UsageError } from './args';
import { bench, BENCH_FLAGS } from './bench';
import { gradcheck, GRADCHECK_FLAGS } from './gradcheck';
import { sft, SFT_FLAGS } from './sft';
import { train, TRAIN_FLAGS } from './train';
import { trainModel, TRAIN_MODEL_FLAGS } from './train-model';
import { evalModel, EVAL_MODEL_FLAGS } from './eval-model';
import { benchHf, BENCH_HF_FLAGS } from './bench-hf';
import { evalCommand, EVAL_FLAGS } from './eval';
import { data, DATA_FLAGS } from './data';
import { sweep, SWEEP_FLAGS } from './sweep';
import { MERGE_FLAGS } from './sweep-shard';
import { ablate, ABLATE_FLAGS } from './ablate';
import { compare, COMPARE_FLAGS } from './compare';
import { importVerl, IMPORT_VERL_FLAGS } from './import-verl';
import { exportVerl, EXPORT_VERL_FLAGS } from './export-verl';
import { RunLockError } from '../run/dir-lock';
import { FileReadError } from '../run/read-file';
import { OutputPathError } from '../run/write-file';
import { userFault } from './user-fault';
import { logprobs, LOGPROBS_FLAGS, tokenize, TOKENIZE_FLAGS } from './hf-model';
import { ModelFolderError } from '../model/hf/files';

const USAGE = `magic-lab — MAGIC Lab's headless command (--backend auto|webgpu|wasm: WebGPU through Dawn, or the WebAssembly SIMD CPU engine)

  magic-lab train --preset NAME [--config F.json] [--seed N] [--steps N] [--minutes M] [--out DIR] [--resume DIR]
  magic-lab train --model DIR [--lora R] [--preset NAME] [--config F.json] [--steps N] [--out DIR]   MAGIC on a Llama/Qwen2 folder (CPU engine), exported to DIR/model/
  magic-lab eval --checkpoint F [--k 8] [--problems N] [--temperatures 1,0.6]
  magic-lab eval --model DIR [--preset NAME] [--k 8] [--problems N] [--temperatures 1,0.6]   a Llama/Qwen2 folder on held-out problems
  magic-lab data build|inspect|filter [--preset NAME] [--config F] [--out DIR] [--checkpoint F]
  magic-lab gradcheck [--backend webgpu|wasm] [--seed N] [--tol X]   every kernel and the whole policy vs the float64 reference
  magic-lab bench [--config k=v,...] [--json F]   kernel GFLOP/s, train step and sampling throughput
  magic-lab bench --roofline [--json F] [--svg F]   CPU engine vs its peak GFLOP/s and bandwidth, per rung
  magic-lab bench --rl-parts N [--rung R] [--json F]   the RL step vs its phases run alone, eval vs rollout
  magic-lab bench --hf smollm2-135m [--lora R] [--json]   the real-model CPU engine: sampling and training tok/s, memory
  magic-lab sft [--config F] [--steps N] [--out F]  supervised warm start on imperfect traces → base checkpoint
  magic-lab sweep --presets A,B --seeds N [--steps N] --out DIR   presets × seeds, precise evals, summary with 95% CIs
  magic-lab sweep … --shard I/N --out DIR_I, then sweep merge DIR_1 … DIR_N --out DIR   one sweep over N machines
  magic-lab ablate FINDING [--seeds N] [--steps N] | --list | --replication   one paper finding → reports/FINDING/report.md
  magic-lab compare --a DIR --b DIR [--out F.md]   two sweeps paired by seed (e.g. backends): B − A with 95% CIs
  magic-lab export-verl (--run DIR | --preset NAME [--config F]) [--scale 1.5b|7b|32b] --out DIR   the recipe and its problems as a verl launch (parquet, reward.py, run_stageK.sh)
  magic-lab logprobs --model DIR (--tokens 1,2,3 | --text "…")   a Llama/Qwen2 folder's per-token log-probs (float64 reference forward)
  magic-lab tokenize --model DIR --text "…"   the ids of its tokenizer.json
  magic-lab import-verl LOG [LOG…] --out RUNFILE   a verl run's console log / W&B or TensorBoard CSV / JSONL → a run file the page imports

Run 'magic-lab <command> --help' for a command's flags.`;

export async function main(argv: string[], log: (s: string) => void = console.log, err: (s: string) => void = console.error): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'gradcheck':
        if (rest.includes('--help')) return log(helpText('gradcheck', 'kernels vs float64 reference', GRADCHECK_FLAGS)), 0;
        return (await gradcheck(rest, log)).ok ? 0 : 1;
      case 'bench':
        if (rest.some((a) => a === '--hf' || a.startsWith('--hf='))) {
          if (rest.includes('--help')) return log(helpText('bench', 'the CPU engine on a real model shape (random weights)', BENCH_HF_FLAGS)), 0;
          await benchHf(rest, log);
          return 0;
        }
        if (rest.includes('--help')) return log(helpText('bench', 'throughput benchmark', BENCH_FLAGS)), 0;
        await bench(rest, log);
        return 0;
      case 'train':
        if (rest.some((a) => a === '--model' || a.startsWith('--model='))) {
          if (rest.includes('--help')) return log(helpText('train', 'a MAGIC RL run on a Hugging Face Llama/Qwen2 folder (CPU engine; docs/real-models.md)', TRAIN_MODEL_FLAGS)), 0;
          await trainModel(rest, log);
          return 0;
        }
        if (rest.includes('--help')) return log(helpText('train', 'a MAGIC RL run', TRAIN_FLAGS)), 0;
        await train(rest, log);
        return 0;
      case 'eval':
        if (rest.some((a) => a === '--model' || a.startsWith('--model='))) {
          if (rest.includes('--help')) return log(helpText('eval', 'held-out avg@k / pass@k / maj@k of a Hugging Face Llama/Qwen2 folder (CPU engine)', EVAL_MODEL_FLAGS)), 0;
          await evalModel(rest, log);
          return 0;
        }
        if (rest.includes('--help')) return log(helpText('eval', 'held-out avg@k / pass@k / maj@k', EVAL_FLAGS)), 0;
        await evalCommand(rest, log);
        return 0;
      case 'data':
        if (rest.includes('--help')) return log(helpText('data build|inspect|filter', 'datasets of a config', DATA_FLAGS)), 0;
        await data(rest, log);
        return 0;
      case 'sft':
        if (rest.includes('--help')) return log(helpText('sft', 'supervised warm start → base checkpoint', SFT_FLAGS)), 0;
        await sft(rest, log);
        return 0;
      case 'sweep':
        if (rest[0] === 'merge' && rest.includes('--help')) return log(helpText('sweep merge DIR…', 'the shards of one sweep → its summary (docs/sweeps.md)', MERGE_FLAGS)), 0;
        if (rest.includes('--help')) return log(helpText('sweep', 'presets × seeds with precise evals and confidence intervals', SWEEP_FLAGS)), 0;
        await sweep(rest, log);
        return 0;
      case 'compare':
        if (rest.includes('--help')) return log(helpText('compare', 'two sweeps paired by seed', COMPARE_FLAGS)), 0;
        await compare(rest, log);
        return 0;
      case 'export-verl':
        if (rest.includes('--help')) return log(helpText('export-verl', 'a lab recipe and its problems as a verl launch (docs/verl.md)', EXPORT_VERL_FLAGS)), 0;
        await exportVerl(rest, log);
        return 0;
      case 'import-verl':
        if (rest.includes('--help')) return log(helpText('import-verl LOG [LOG…]', "a cluster run's log → a MAGIC Lab run file (docs/verl-import.md)", IMPORT_VERL_FLAGS)), 0;
        await importVerl(rest, log, err);
        return 0;
      case 'logprobs':
        if (rest.includes('--help')) return log(helpText('logprobs', "a Hugging Face Llama/Qwen2 folder's log p of each token given its prefix (docs/real-models.md)", LOGPROBS_FLAGS)), 0;
        await logprobs(rest, log);
        return 0;
      case 'tokenize':
        if (rest.includes('--help')) return log(helpText('tokenize', "a model folder's tokenizer.json ids of a text", TOKENIZE_FLAGS)), 0;
        await tokenize(rest, log);
        return 0;
      case 'ablate':
        if (rest.includes('--help')) return log(helpText('ablate FINDING', 'reproduce one finding of the paper (--list: the findings)', ABLATE_FLAGS)), 0;
        await ablate(rest, log);
        return 0;
      case undefined:
      case 'help':
      case '--help':
        log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        err(`magic-lab: unknown command ${JSON.stringify(command)} (magic-lab help lists the commands)`);
        return 2;
    }
  } catch (e) {
    // A file the user named that cannot be used is a usage error too: one line, exit 2.
    if (e instanceof UsageError || e instanceof ConfigError || e instanceof CheckpointError || e instanceof RunLockError || e instanceof FileReadError || e instanceof ModelFolderError || e instanceof OutputPathError) {
      err(`magic-lab ${command}: ${oneLine(e.message)}`);
      return 2;
    }
    // A file system that refuses (read-only, full, a file where a directory belongs, a closed pipe)
    // or an engine out of memory: the user's to fix, one line, exit 2. Anything else is ours: exit 1.
    const fault = userFault(e);
    if (fault !== null) {
      err(`magic-lab ${command}: ${fault}`);
      return 2;
    }
    if (e instanceof RunFailure) {
      err(`magic-lab ${command}: ${e.message}`);
      return 1;
    }
    err(`magic-lab ${command}: ${(e as Error).stack ?? e}`);
    return 1;
  }
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ');
