/** The sample completions a step records (the rollout viewer, samples.jsonl, the page's group inspector). */
import { VOCAB, type Problem } from '../tasks';
import type { StepInspection } from './inspect';
import type { Rollout } from './rollout';
import type { SampleRecord } from './trainer-types';

/**
 * Records of the `shown` groups' responses; `watched` prompts are marked, and with an inspection
 * that saw an update each record also carries ρ after it and the clip marks.
 */
export function sampleRecords(
  train: readonly Problem[],
  step: number,
  groups: readonly { prompt: number; rolls: Rollout[] }[],
  advantages: Float64Array,
  G: number,
  kept: ReadonlySet<number>,
  { shown, watched, inspection }: { shown: readonly number[]; watched: ReadonlySet<number>; inspection?: StepInspection },
): SampleRecord[] {
  const out: SampleRecord[] = [];
  shown.forEach((gi, n) => {
    const g = groups[gi];
    const problem = train[g.prompt];
    g.rolls.forEach((r, j) => {
      const rec: SampleRecord = {
        step,
        group: gi,
        family: problem.family,
        prompt: problem.prompt,
        response: r.text.replace(/<eos>$/, ''),
        reward: r.reward,
        advantage: advantages[gi * G + j],
        truncated: r.truncated,
        kept: kept.has(gi),
        tokens: r.response.map((id) => VOCAB[id]),
        logp: r.logp,
        entropy: r.entropy,
        promptId: g.prompt,
      };
      if (watched.has(g.prompt)) rec.watched = true;
      const marks = inspection?.marks(n * G + j, gi * G + j, r.logp);
      if (marks) {
        rec.ratio = marks.ratio;
        rec.clipped = marks.clipped;
      }
      out.push(rec);
    });
  });
  return out;
}
