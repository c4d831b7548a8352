#!/bin/bash
# Round 19: lr 2e-4 twin and controller on tuning seeds 202 and 203, crossed so each process samples a filter the other reuses.
# usage: r19.sh WAIT_PATTERN POOL RUN1 SEED1 RUN2 SEED2
cd /work/main
while pgrep -f "$1" > /dev/null; do sleep 20; done
for pair in "$3 $4" "$5 $6"; do
  set -- "$1" "$2" $pair
  node bin/magic-lab.mjs sweep --presets $3 --variants reports/tuning/round-18.variants.json --rung small --seeds 1 --seed-base $4 \
    --backend wasm --threads 1 --runs reports/tuning/$2 --out reports/tuning/round-19-$3-$4
done
