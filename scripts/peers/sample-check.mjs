/**
 * The sampler check of `npm run bench:peers`: each engine's sequences judged against the lab's
 * float64 reference model (src/model/reference/model.ts) with the same weights, so a peer (or the
 * lab) whose sampler reads the wrong position, misuses its KV cache or samples from the wrong
 * distribution fails the run. Used by scripts/peers/webgpu-page.mjs and
 * tests/scripts/bench-peers.test.ts.
 *
 *   greedyCheck: every greedy token is the reference's argmax given the sequence so far; a row
 *     stops being compared at a near tie (top-2 logits within `tie`), where float32 rounding may
 *     pick either.
 *   temperatureCheck: the sampled tokens' reference log-probs sum to their expectation (minus the
 *     entropies) within a z-score: a sampler drawing from another distribution (uniform, the
 *     wrong temperature, unnormalised) moves the sum by many standard deviations.
 */
import { referenceForward } from '../../src/model/reference/model.ts';

/** Reference logits [len × V] of one sequence (causal: row i depends on tokens 0..i only). */
function logitsOf(cfg, params64, seq) {
  return referenceForward(cfg, params64, seq, 1, seq.length).logits;
}

/**
 * seqs: [B][promptLen + n] token ids (the prompt first). Returns { compared, ties, mismatches }:
 * positions checked, rows cut at a near tie, and { row, pos, got, want, gap } for each row whose
 * token differed from the reference argmax (the row's first difference).
 */
export function greedyCheck(cfg, params64, seqs, { promptLen = 1, tie = 2e-3 } = {}) {
  const V = cfg.vocabSize;
  let compared = 0;
  let ties = 0;
  const mismatches = [];
  seqs.forEach((seq, row) => {
    if (seq.length <= promptLen) return;
    const logits = logitsOf(cfg, params64, seq);
    for (let i = promptLen; i < seq.length; i++) {
      const z = logits.subarray((i - 1) * V, i * V);
      let a = 0;
      for (let j = 1; j < V; j++) if (z[j] > z[a]) a = j;
      let second = -Infinity;
      for (let j = 0; j < V; j++) if (j !== a) second = Math.max(second, z[j]);
      const gap = z[a] - second;
      if (gap < tie) {
        ties++;
        return;
      }
      compared++;
      if (seq[i] !== a) {
        mismatches.push({ row, pos: i, got: seq[i], want: a, gap });
        return;
      }
    }
  });
  return { compared, ties, mismatches };
}

/**
 * seqs sampled at `temperature`: Σ log p(token) under the reference against its mean Σ −H and
 * variance Σ Var[log p] (each position's distribution given the sequence so far). Returns
 * { n, sumLogp, expected, sd, z }.
 */
export function temperatureCheck(cfg, params64, seqs, temperature, { promptLen = 1 } = {}) {
  const V = cfg.vocabSize;
  let n = 0;
  let sumLogp = 0;
  let expected = 0;
  let variance = 0;
  for (const seq of seqs) {
    if (seq.length <= promptLen) continue;
    const logits = logitsOf(cfg, params64, seq);
    for (let i = promptLen; i < seq.length; i++) {
      const z = Array.from(logits.subarray((i - 1) * V, i * V), (x) => x / temperature);
      const m = Math.max(...z);
      const logS = Math.log(z.reduce((s, x) => s + Math.exp(x - m), 0));
      const lp = z.map((x) => x - m - logS);
      let e = 0;
      let e2 = 0;
      for (const l of lp) {
        const p = Math.exp(l);
        e += p * l;
        e2 += p * l * l;
      }
      n++;
      sumLogp += lp[seq[i]];
      expected += e;
      variance += Math.max(0, e2 - e * e);
    }
  }
  const sd = Math.sqrt(variance);
  return { n, sumLogp, expected, sd, z: (sumLogp - expected) / Math.max(sd, 1e-9) };
}
