#!/bin/sh
# Shrinks PNG screenshots in place: a 256-colour palette without dithering (pngquant), then
# lossless recompression (optipng). Each result is checked with Playwright's own screenshot
# comparator against the original (no pixel may differ beyond its per-pixel threshold); a file
# that fails stays as it was. Run after updating visual baselines or the README screenshots:
#
#   sh scripts/shrink-png.sh e2e/__screenshots__/*/*.png docs/screenshot-*.png
#
# Needs pngquant and optipng (Debian: apt-get install pngquant optipng).
set -e
command -v pngquant >/dev/null && command -v optipng >/dev/null || { echo 'shrink-png: needs pngquant and optipng (apt-get install pngquant optipng)' >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
for f in "$@"; do
  tmp="$f.shrink.png"
  # pngquant exits 99 when it cannot keep the quality, 98 when the result would be larger: keep the original.
  if pngquant --nofs --quality=90-100 --speed 1 --strip -f -o "$tmp" "$f"; then :; else cp "$f" "$tmp"; fi
  optipng -quiet -o2 "$tmp"
  if node "$root/scripts/png-same.cjs" "$f" "$tmp"; then
    echo "$f: $(wc -c < "$f") -> $(wc -c < "$tmp") bytes"
    mv "$tmp" "$f"
  else
    echo "$f: the palette version differs visibly; kept as it was" >&2
    rm -f "$tmp"
  fi
done
