#!/bin/sh
# Packs an archived recipe's or tuning round's run pool into DIR/pool.tar.xz (deterministic tar,
# xz -9) and removes the directory; `tar xJf DIR/pool.tar.xz -C DIR` restores it as it was.
# Current pools (reports/pool-small) stay unpacked: the replication check reads them. Archives and
# pools alike are raw data, kept on the branch reports-data (`sh scripts/reports-data.sh save`).
set -e
for d in "$@"; do
  parent=$(dirname "$d"); name=$(basename "$d")
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf - -C "$parent" "$name" | xz -9 -T1 > "$parent/$name.tar.xz"
  rm -r "$d"
done
