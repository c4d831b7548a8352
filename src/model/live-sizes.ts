/**
 * The slot counts a decode step runs over (both engines): B, then each ⌈3/4⌉ of the one before, down
 * to 1. The live slots shrink to the smallest size that holds the running sequences, so at most a
 * quarter of a step's slots decode finished rows (every decode step costs in proportion to its slots,
 * and a batch's last sequences run long after most have ended), with ~2.4·log₂ B recorded steps per
 * plan (25 for B = 1024).
 */
export function liveSizes(B: number): number[] {
  const sizes = [B];
  for (let s = B; s > 1; ) sizes.push((s = Math.min(s - 1, Math.ceil((s * 3) / 4))));
  return sizes;
}

/** The smallest of `sizes` that holds `running` sequences and is below `live` (else `live`: nothing to gain). */
export function fitLiveSize(sizes: readonly number[], live: number, running: number): number {
  let fit = live;
  for (const R of sizes) if (R < fit && R >= running) fit = R;
  return fit;
}

/**
 * The slot swaps that move the running sequences among slots [0, live) into slots [0, running):
 * each finished sequence in the front trades places with a running one from the back, [front, back]
 * pairs in order. `isRunning(b)` is slot b's status.
 */
export function compactionSwaps(live: number, isRunning: (slot: number) => boolean): [number, number][] {
  let running = 0;
  for (let b = 0; b < live; b++) if (isRunning(b)) running++;
  const swaps: [number, number][] = [];
  let j = live - 1;
  for (let i = 0; i < running; i++) {
    if (isRunning(i)) continue;
    while (!isRunning(j)) j--;
    swaps.push([i, j--]);
  }
  return swaps;
}
