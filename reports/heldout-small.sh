#!/bin/bash
# Held-out runs of the small rung's collapse regime (#22, #23): magic and its no-control twin (entropy-off)
# on seeds 101–105, two processes at 1 thread each. Each process writes its own pool (a sweep locks its pool);
# the filter and start-evaluation caches are shared, and the seed orders are crossed so that at most one
# process samples a seed's offline filter. Re-running the same command continues where it stopped.
# Afterwards: the run folders go into reports/pool-small, and
#   magic-lab ablate entropy-control --rung small --seeds 5 --backend wasm --threads 1 --runs reports/pool-small --reference
# usage: heldout-small.sh a|b
set -e
cd "$(dirname "$0")/.."
mkdir -p reports/pool-small-a/offline-filters reports/pool-small-a/start-evals reports/pool-small-b
ln -sfn ../pool-small-a/offline-filters reports/pool-small-b/offline-filters
ln -sfn ../pool-small-a/start-evals reports/pool-small-b/start-evals
case "$1" in
  a) preset=magic; seeds="101 102 103 104 105" ;;
  b) preset=entropy-off; seeds="102 101 104 103 105" ;;
  *) echo "usage: heldout-small.sh a|b" >&2; exit 2 ;;
esac
for s in $seeds; do
  node bin/magic-lab.mjs sweep --presets $preset --rung small --seeds 1 --seed-base $s --backend wasm --threads 1 \
    --runs reports/pool-small-$1 --out reports/pool-small-$1/sweeps/$preset-$s
done
