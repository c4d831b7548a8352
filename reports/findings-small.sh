#!/bin/bash
# The other findings' runs at the small rung (#22 item 5: every finding re-run in the collapse regime), on the
# held-out seeds 101–105, one process per pool at 1 thread (two run side by side on this 2-core machine). Each
# process works through its own list of PRESET:SEED pairs; the filter and start-evaluation caches are shared with
# the entropy-control runs (reports/pool-small/offline-filters and start-evals). A run already finished is skipped; one cut off (the session
# ended) continues from its checkpoint. Only finished runs are committed. When a finding's presets are all in,
# its run folders join reports/pool-small (git mv; the queue then skips them there), and
#   magic-lab ablate FINDING --rung small --seeds 5 --backend wasm --threads 1 --runs reports/pool-small --reference
# (both steps: bash reports/findings-small-join.sh FINDING)
# grpo and kl-on come last: their KL reference model (π_ref) first needed 2.3 GiB on the CPU engine, over its
# 2 GiB; π_ref now forwards in chunks of at most 32 rows (src/rl/micro-batch.ts refForwardRows), so they fit.
# usage: findings-small.sh c|d   (c and d: the two queues below, crossed so each samples a seed's filter once)
set -e
cd "$(dirname "$0")/.."
case "$1" in
  c) queue="const-entropy-small:102 const-entropy-small:104 const-entropy-large:101 const-entropy-large:103 const-entropy-large:105 temp-0.6:102 temp-0.6:104 off-policy-nsgd4:101 off-policy-nsgd4:103 off-policy-nsgd4:105 single-stage:101 single-stage:103 single-stage:105 no-rejection:102 no-rejection:104 clip-high-0.25:101 clip-high-0.25:103 clip-high-0.25:105 clip-high-0.28:102 clip-high-0.28:104 grpo:101 grpo:103 grpo:105 kl-on:102 kl-on:104" ;;
  d) queue="const-entropy-small:101 const-entropy-small:103 const-entropy-small:105 const-entropy-large:102 const-entropy-large:104 temp-0.6:101 temp-0.6:103 temp-0.6:105 off-policy-nsgd4:102 off-policy-nsgd4:104 single-stage:102 single-stage:104 no-rejection:101 no-rejection:103 no-rejection:105 clip-high-0.25:102 clip-high-0.25:104 clip-high-0.28:101 clip-high-0.28:103 clip-high-0.28:105 grpo:102 grpo:104 kl-on:101 kl-on:103 kl-on:105" ;;
  *) echo "usage: findings-small.sh c|d" >&2; exit 2 ;;
esac
pool=reports/pool-small-$1
mkdir -p "$pool"
ln -sfn ../pool-small/offline-filters "$pool/offline-filters"
ln -sfn ../pool-small/start-evals "$pool/start-evals"
for item in $queue; do
  preset=${item%%:*}; seed=${item##*:}
  # A finished run whose finding is complete has moved to reports/pool-small: nothing left to do.
  [ -f "reports/pool-small/$preset/seed-$seed/train-done.json" ] && continue
  node bin/magic-lab.mjs sweep --presets "$preset" --rung small --seeds 1 --seed-base "$seed" --backend wasm --threads 1 \
    --runs "$pool" --out "$pool/sweeps/$preset-$seed"
done
