#!/bin/bash
# A finding's small-rung runs join reports/pool-small once all are in, then its report (#22 item 5):
#   bash reports/findings-small-join.sh FINDING
# Every preset of FINDING (magic-lab ablate --list) on the held-out seeds 101–105 must be finished and committed,
# in reports/pool-small already or in a working pool (reports/pool-small-c|d, filled by findings-small.sh); the
# working pools' runs move there (git mv: the committed files and the uncommitted weights and samples alike), then
#   magic-lab ablate FINDING --rung small --seeds 5 --backend wasm --threads 1 --runs reports/pool-small --reference
#   magic-lab ablate --replication
# Nothing moves when a run is missing, unfinished or uncommitted (exit 2, naming them). Afterwards: look at the
# visual baselines' diffs (the page's reference list grows by one entry), then commit.
set -euo pipefail
cd "$(dirname "$0")/.."
finding=${1:-}
[ -n "$finding" ] || { echo "usage: findings-small-join.sh FINDING" >&2; exit 2; }
presets=$(node bin/magic-lab.mjs ablate --list | awk -v f="$finding" '$1 == f { getline; sub(/^ *presets: /, ""); gsub(/,/, ""); print }')
[ -n "$presets" ] || { echo "findings-small-join: no finding '$finding' (see magic-lab ablate --list)" >&2; exit 2; }
seeds="101 102 103 104 105"
moves=()
missing=()
for p in $presets; do
  for s in $seeds; do
    [ -f "reports/pool-small/$p/seed-$s/train-done.json" ] && continue
    src=""
    for q in c d; do [ -d "reports/pool-small-$q/$p/seed-$s" ] && src="reports/pool-small-$q/$p/seed-$s"; done
    if [ -n "$src" ] && [ -f "$src/train-done.json" ] && compgen -G "$src/eval-final-*.json" >/dev/null &&
      git ls-files --error-unmatch "$src/train-done.json" >/dev/null 2>&1; then
      moves+=("$src")
    else
      missing+=("$p:$s")
    fi
  done
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "findings-small-join: $finding: not finished and committed yet: ${missing[*]}" >&2
  exit 2
fi
for src in ${moves[@]+"${moves[@]}"}; do
  p=$(basename "$(dirname "$src")")
  mkdir -p "reports/pool-small/$p"
  git mv "$src" "reports/pool-small/$p/"
  rmdir "$(dirname "$src")" 2>/dev/null || true
  echo "moved $src → reports/pool-small/$p/"
done
node bin/magic-lab.mjs ablate "$finding" --rung small --seeds 5 --backend wasm --threads 1 --runs reports/pool-small --reference
node bin/magic-lab.mjs ablate --replication
