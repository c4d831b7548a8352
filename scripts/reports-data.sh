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
#
# Where the branch is not in this clone, restore fetches it from the remote `origin`.
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

case "${1:-}" in
  restore)
    dest=${2:-.}
    if ! git rev-parse -q --verify "refs/heads/$BRANCH" >/dev/null; then
      git fetch -q origin "$BRANCH:$BRANCH" 2>/dev/null || { echo "reports-data: no branch '$BRANCH' here and none fetched from origin" >&2; exit 2; }
    fi
    mkdir -p "$dest"
    git archive "$BRANCH" | tar -x -C "$dest"
    echo "reports-data: $(git ls-tree -r --name-only "$BRANCH" | wc -l | tr -d ' ') raw files from $BRANCH ($(git rev-parse --short "$BRANCH")) written under $dest/reports"
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
    commit=$(git commit-tree "$tree" ${parent:+-p "$parent"} -m "reports' raw data: $(printf '%s\n' "$files" | wc -l | tr -d ' ') files under reports/")
    git update-ref "refs/heads/$BRANCH" "$commit" ${parent:+"$parent"}
    echo "reports-data: $BRANCH at $(git rev-parse --short "$commit")"
    ;;
  list) raw_files ;;
  *)
    echo 'usage: sh scripts/reports-data.sh restore [DIR] | save | list' >&2
    exit 2
    ;;
esac
