#!/bin/bash
# One `magic-lab sweep` spread over a SLURM job array: array task i runs shard i/N of the presets × seeds grid in
# the project's container image (deploy/Dockerfile), each in its own directory under $RESULTS.
#
#   apptainer build magic-lab.sif docker-daemon://magic-lab:latest      # once, from `docker build -f deploy/Dockerfile -t magic-lab .`
#   sbatch --array=1-4 deploy/slurm-sweep.sh                           # N = the array's size
#   # when every task is done (a dependent job: sbatch --dependency=afterok:JOBID …):
#   apptainer exec --bind "$RESULTS:/results" --pwd /opt/magic-lab magic-lab.sif \
#     node bin/magic-lab.mjs sweep merge /results/shard-1 /results/shard-2 /results/shard-3 /results/shard-4 --out /results/merged
#
# A task that stops (time limit, preemption) continues where it was when resubmitted: `sbatch --array=3 …`.
# Change the grid with the environment (PRESETS, SEEDS, STEPS, EVAL_PROBLEMS), the same for every task.
#SBATCH --job-name=magic-lab-sweep
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --mem=8G
#SBATCH --time=12:00:00
#SBATCH --output=magic-lab-sweep-%A_%a.out
set -euo pipefail

IMAGE=${IMAGE:-magic-lab.sif}
RESULTS=${RESULTS:-$PWD/sweep-results}
PRESETS=${PRESETS:-magic,grpo}
SEEDS=${SEEDS:-8}
STEPS=${STEPS:-200}
EVAL_PROBLEMS=${EVAL_PROBLEMS:-256}
# Shards are numbered 1 … N whatever the array's first index.
N=${SLURM_ARRAY_TASK_COUNT}
INDEX=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1))

mkdir -p "$RESULTS"
# One engine and one thread count for every shard: a run replays bit for bit only on those.
apptainer exec --bind "$RESULTS:/results" --pwd /opt/magic-lab "$IMAGE" \
  node scripts/webgpu-env.mjs node bin/magic-lab.mjs sweep --presets "$PRESETS" --seeds "$SEEDS" --steps "$STEPS" \
  --eval-problems "$EVAL_PROBLEMS" --backend wasm --threads "$SLURM_CPUS_PER_TASK" \
  --shard "$INDEX/$N" --out "/results/shard-$INDEX"
