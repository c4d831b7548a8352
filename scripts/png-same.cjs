// Exit 0 when two PNGs are the same screenshot to Playwright: its comparator (the one toHaveScreenshot
// uses, default per-pixel threshold) finds no pixel differing, else exit 1. Used by scripts/shrink-png.sh.
const { readFileSync } = require('node:fs');
const { utils } = require('playwright-core/lib/coreBundle');

const [a, b] = process.argv.slice(2);
if (!a || !b) {
  console.error('usage: node scripts/png-same.cjs A.png B.png');
  process.exit(2);
}
const diff = utils.getComparator('image/png')(readFileSync(a), readFileSync(b), { maxDiffPixels: 0, maxDiffPixelRatio: 0 });
if (diff) console.error(`${b}: ${diff.errorMessage.split('\n')[0]}`);
process.exit(diff ? 1 : 0);
