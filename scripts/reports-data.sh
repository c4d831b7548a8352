#!/bin/sh
# The reports' raw data — run pools (every file of a reports/**/seed-*/ run), metrics.jsonl.gz,
# summary.json.gz, logs and the archived pools (*.tar.xz) — lives on the git branch `reports-data`,
# which the working tree does not carry (.gitignore keeps it out), so the tracked tree stays small
# enough for a GPU machine run. Each finding's report.json, report.md, summary.md, README and
# charts stay tracked in place.
#
#   sh scripts/reports-data.sh restore [DIR]   writes the raw files into DIR (default: the repository
#                                              root), beside the tracked reports; `npm run reports:data`
#                                              then `magic-lab ablate --replication --check` passes
#   sh scripts/reports-data.sh save            commits the raw files now under reports/ onto the branch
#                                              (after a sweep adds runs), keeping what it already holds
#   sh scripts/reports-data.sh list            prints the raw files under reports/ (tracked or not)
#   sh scripts/reports-data.sh rev             prints the commit restore reads
#
# Every clone of main carries the data: main merges the branch's commit with `git merge -s ours
# reports-data` (its tree unchanged) and names it in the tracked reports/raw-data.commit, which
# restore reads where the clone has no local branch (a fresh `git clone` has none). After `save`:
#   git add reports/raw-data.commit && git commit -m '…' && git merge -s ours reports-data -m '…'
set -e
BRANCH=reports-data
case "${2:-}" in /*|'') ;; *) set -- "$1" "$(pwd)/$2" ;; esac # DIR as given, from where this was called
cd "$(dirname "$0")/.." && cd "$(git rev-parse --show-toplevel)"

# The raw files under reports/: in a run folder, or compressed. Never weights, samples or locks.
raw_files() {
  { git ls-files -z --cached -- reports; git ls-files -z --others --ignored --exclude-standard -- reports; } | tr '\0' '\n' | sort -u |
    grep -E '(/seed-[^/]+/|\.gz$|\.xz$)' |
    grep -vE '(/checkpoint\.mlck[^/]*|/samples\.jsonl|/\.sweep-lock|/\.magic-lab\.lock)$' |
    while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done
}

# The data commit: the local branch where there is one (a `save` not yet merged is newest), else the
# commit main names in reports/raw-data.commit (an ancestor of main), else the branch fetched from origin.
data_rev() {
  if git rev-parse -q --verify "refs/heads/$BRANCH^{commit}" >/dev/null; then echo "refs/heads/$BRANCH"; return 0; fi
  named=$(tr -d ' \n' < reports/raw-data.commit 2>/dev/null || true)
  if [ -n "$named" ] && git cat-file -e "$named^{commit}" 2>/dev/null; then echo "$named"; return 0; fi
  if git fetch -q origin "$BRANCH:$BRANCH" 2>/dev/null; then echo "refs/heads/$BRANCH"; return 0; fi
  echo "reports-data: no branch '$BRANCH' here, the commit named in reports/raw-data.commit (${named:-none}) is not in this clone, and origin has no such branch" >&2
  return 2
}

case "${1:-}" in
  rev)
    rev=$(data_rev) || exit 2
    git rev-parse "$rev"
    ;;
  restore)
    dest=${2:-.}
    rev=$(data_rev) || exit 2
    mkdir -p "$dest"
    git archive "$rev" | tar -x -C "$dest"
    echo "reports-data: $(git ls-tree -r --name-only "$rev" | wc -l | tr -d ' ') raw files from $(git rev-parse --short "$rev") written under $dest/reports"
    ;;
  save)
    files=$(raw_files)
    [ -n "$files" ] || { echo 'reports-data: no raw files under reports/ (restore them first?)' >&2; exit 2; }
    index=$(mktemp)
    trap 'rm -f "$index"' EXIT
    parent=$(git rev-parse -q --verify "refs/heads/$BRANCH" || true)
    if [ -n "$parent" ]; then GIT_INDEX_FILE=$index git read-tree "$parent"; else rm -f "$index"; fi
    printf '%s\n' "$files" | GIT_INDEX_FILE=$index git update-index --add --stdin
    tree=$(GIT_INDEX_FILE=$index git write-tree)
    if [ -n "$parent" ] && [ "$(git rev-parse "$parent^{tree}")" = "$tree" ]; then echo "reports-data: $BRANCH already holds these files"; exit 0; fi
    commit=$(git commit-tree "$tree" ${parent:+-p "$parent"} -m "reports' raw data: $(git ls-tree -r --name-only "$tree" | wc -l | tr -d ' ') files under reports/ ($(printf '%s\n' "$files" | wc -l | tr -d ' ') saved from the working tree)")
    git update-ref "refs/heads/$BRANCH" "$commit" ${parent:+"$parent"}
    git rev-parse "$commit" > reports/raw-data.commit
    echo "reports-data: $BRANCH at $(git rev-parse --short "$commit"); now: git add reports/raw-data.commit && git commit, then git merge -s ours $BRANCH (every clone of main then carries it)"
    ;;
  list) raw_files ;;
  *)
    echo 'usage: sh scripts/reports-data.sh restore [DIR] | save | list | rev' >&2
    exit 2
    ;;
esac
