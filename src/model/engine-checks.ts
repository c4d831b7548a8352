/**
 * The checks every engine makes on what crosses the PolicyEngine interface (src/model/engine.ts),
 * stated once so both engines refuse the same input with the same message.
 */
import type { ModelConfig } from './config';
import type { UpdateBatch, UpdateOptions } from './engine';
import type { GenerateRequest } from './engine-types';

/** Every per-token array of an update batch has rows × T entries, or Σ lengths for packed rows (only where the engine takes them). */
export function checkBatch(b: UpdateBatch, packedRows = false): void {
  let n = b.rows * b.T;
  if (b.lengths !== undefined) {
    if (!packedRows) throw new Error('update batch: this engine takes rows × T, not packed rows (lengths)');
    checkLengths(b.lengths, b.rows, b.T);
    n = b.lengths.reduce((a, x) => a + x, 0);
  }
  const arrays: [string, ArrayLike<number> | undefined][] = [
    ['tokens', b.tokens],
    ['targets', b.targets],
    ['mask', b.mask],
    ['weights', b.weights],
    ['advantages', b.advantages],
    ['oldLogp', b.oldLogp],
    ['refLogp', b.refLogp],
  ];
  for (const [name, a] of arrays) if (a !== undefined && a.length !== n) throw new Error(`update batch: ${name} has ${a.length} entries, expected ${b.lengths ? 'Σ lengths' : 'rows × T'} = ${n}`);
}

/** Packed rows: one length per row, each an integer in [1, T]. */
export function checkLengths(lengths: Uint32Array, rows: number, T: number): void {
  if (lengths.length !== rows) throw new Error(`update batch: lengths has ${lengths.length} entries, expected rows = ${rows}`);
  lengths.forEach((x, r) => {
    if (x < 1 || x > T) throw new Error(`update batch: lengths[${r}] = ${x} must be between 1 and T = ${T}`);
  });
}

/** Each prompt fits the context with room for a response and holds token ids; the response limit is a positive integer. Returns the longest prompt's length. */
export function checkGenerateRequest(req: GenerateRequest, cfg: ModelConfig): number {
  const Tmax = cfg.contextLength;
  let maxPrompt = 0;
  req.prompts.forEach((p, i) => {
    if (p.length < 1 || p.length >= Tmax) throw new Error(`prompts[${i}]: length ${p.length} must be between 1 and contextLength-1 (${Tmax - 1})`);
    if (p.some((t) => !Number.isInteger(t) || t < 0 || t >= cfg.vocabSize)) throw new Error(`prompts[${i}]: token ids must be integers in [0, ${cfg.vocabSize})`);
    maxPrompt = Math.max(maxPrompt, p.length);
  });
  if (!Number.isInteger(req.maxResponseLength) || req.maxResponseLength < 1) throw new Error(`maxResponseLength must be a positive integer, got ${req.maxResponseLength}`);
  return maxPrompt;
}

/**
 * The gradient-accumulation sequence of one engine (UpdateOptions.accumulate): 'first' opens it,
 * 'middle' and 'last' need it open, 'last' and 'only' close it. It remembers whether every loss so
 * far was finite, so the closing call applies AdamW only when the whole mini-batch's loss is.
 */
export class AccumulationState {
  private open = false;
  private finite = true;

  /** What this call does: zero the grads first; finish (grad norm, AdamW); update (AdamW may run). */
  begin(o: UpdateOptions): { zero: boolean; finish: boolean; update: boolean } {
    const acc = o.accumulate ?? 'only';
    if (!['first', 'middle', 'last', 'only'].includes(acc)) throw new Error(`update: accumulate must be first, middle, last or only, got ${String(acc)}`);
    const zero = acc === 'first' || acc === 'only';
    const finish = acc === 'last' || acc === 'only';
    if (!zero && !this.open) throw new Error(`update: accumulate '${acc}' without a 'first' before it`);
    if (zero) this.finite = true;
    return { zero, finish, update: finish && (o.update ?? true) && this.finite };
  }

  /** Records this call's loss; `finish` closes the sequence. */
  end(loss: number, finish: boolean): void {
    this.finite &&= Number.isFinite(loss);
    this.open = !finish;
  }
}
