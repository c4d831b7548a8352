/**
 * The GRPO group inspector's pure parts: the page's bounded history of recorded groups by step,
 * a group's summary (kept or rejected, and why, by the rejection rule of src/rl/rejection.ts), and
 * its "forking" tokens (the highest-entropy positions, where sampling could most easily have
 * taken another path).
 *
 * History bound (memory stays bounded on long runs): the last HISTORY_RECENT steps, all of them;
 * before those, every HISTORY_STRIDE-th step and every step that recorded a watched prompt (the
 * prompts the trainer follows, src/rl/inspect.ts), at most HISTORY_OLDER of them, the oldest
 * dropped first. A step holds the 2 groups the trainer records (plus any watched one), so the
 * history is at most 64 steps × a few groups × G responses.
 */
import type { RejectionMode } from '../../rl/rejection';
import type { TruncationMode } from '../../rl/advantage';
import type { SampleRecord } from '../../rl/trainer-types';

export const HISTORY_RECENT = 32;
export const HISTORY_OLDER = 32;
export const HISTORY_STRIDE = 10;

/** One recorded group: the G responses to one prompt at one step. */
export interface InspectedGroup {
  /** Follows a prompt across steps: its training-set id, or (older records without one) −1 − group index. */
  key: number;
  /** Index of the group in its step's batch. */
  group: number;
  prompt: string;
  family: string;
  watched: boolean;
  samples: SampleRecord[];
}

export interface InspectedStep {
  step: number;
  groups: InspectedGroup[];
}

export interface InspectorHistory {
  runId: string | null;
  /** Ascending by step. */
  steps: InspectedStep[];
}

export const emptyHistory = (runId: string | null = null): InspectorHistory => ({ runId, steps: [] });

export const groupKey = (s: SampleRecord) => s.promptId ?? -1 - s.group;

/** Records of one step → its groups, in batch order. */
export function groupsOf(samples: readonly SampleRecord[]): InspectedGroup[] {
  const m = new Map<number, SampleRecord[]>();
  for (const s of samples) {
    const list = m.get(s.group);
    if (list) list.push(s);
    else m.set(s.group, [s]);
  }
  return [...m.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([group, ss]) => ({ key: groupKey(ss[0]), group, prompt: ss[0].prompt, family: ss[0].family, watched: ss.some((s) => s.watched), samples: ss }));
}

const keepsOlder = (e: InspectedStep) => e.step % HISTORY_STRIDE === 0 || e.groups.some((g) => g.watched);

/** Adds (or replaces) one step and applies the bound. Pure: returns a new array. */
export function pushHistory(steps: readonly InspectedStep[], entry: InspectedStep): InspectedStep[] {
  const all = steps.filter((e) => e.step !== entry.step);
  let i = all.length;
  while (i > 0 && all[i - 1].step > entry.step) i--;
  all.splice(i, 0, entry);
  if (all.length <= HISTORY_RECENT) return all;
  const recent = all.slice(-HISTORY_RECENT);
  const older = all.slice(0, -HISTORY_RECENT).filter(keepsOlder).slice(-HISTORY_OLDER);
  return [...older, ...recent];
}

/** Adds a batch of records (several steps possibly) to the history of `runId`; another run starts a new history. */
export function addSamples(h: InspectorHistory, runId: string, samples: readonly SampleRecord[]): InspectorHistory {
  let steps = h.runId === runId ? h.steps : [];
  const bySteps = new Map<number, SampleRecord[]>();
  for (const s of samples) bySteps.set(s.step, [...(bySteps.get(s.step) ?? []), s]);
  for (const [step, ss] of [...bySteps.entries()].sort((a, b) => a[0] - b[0])) steps = pushHistory(steps, { step, groups: groupsOf(ss) });
  return { runId, steps };
}

// ---------------------------------------------------------------------------------------------
// Group summary: kept or rejected, and why

export interface GroupRules {
  rejection: RejectionMode;
  truncation: TruncationMode;
}

export type GroupStatus = 'kept' | 'rejected' | 'surplus';

export interface GroupSummary {
  G: number;
  solved: number;
  truncated: number;
  meanReward: number;
  /** Some advantage is nonzero (the group carries a policy gradient). */
  signal: boolean;
  status: GroupStatus;
  /** One sentence: why the group was kept or left out. */
  why: string;
}

/**
 * The word a group's chip and badge show for its status. Words, not ✓/✗: a group rejected because
 * all 8 of 8 were solved is not wrong, it only carries no gradient.
 */
export const GROUP_STATUS_LABEL: Record<GroupStatus, string> = { kept: 'kept', rejected: 'rejected', surplus: 'not trained' };

/** A group chip's text after its prompt: "8/8 solved · rejected". */
export const groupChipText = (s: Pick<GroupSummary, 'solved' | 'G' | 'status'>) => `${s.solved}/${s.G} solved · ${GROUP_STATUS_LABEL[s.status]}`;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function summarizeGroup(samples: readonly SampleRecord[], rules: GroupRules): GroupSummary {
  const G = samples.length;
  const solved = samples.filter((s) => s.reward > 0).length;
  const truncated = samples.filter((s) => s.truncated).length;
  const meanReward = G ? samples.reduce((a, s) => a + s.reward, 0) / G : NaN;
  const signal = samples.some((s) => s.advantage !== 0);
  const kept = samples.length > 0 && samples[0].kept;
  const trunc = truncated ? ` (${truncated} truncated, reward 0)` : '';
  const base = { G, solved, truncated, meanReward, signal };
  if (kept) {
    if (!signal) return { ...base, status: 'kept', why: `kept: rejection sampling is off, so a group whose advantages are all 0 is trained on too (it adds to the entropy term only)` };
    const counted = rules.truncation === 'adv-mask-before' && truncated ? ` among the ${G - truncated} not truncated` : '';
    return { ...base, status: 'kept', why: `kept: rewards differ (${solved} of ${G} solved${counted}${counted ? '' : trunc}), so the advantages are nonzero` };
  }
  if (signal) return { ...base, status: 'surplus', why: `not trained: the batch already held D_R groups with a nonzero advantage (refill keeps the first D_R)` };
  if (rules.truncation === 'adv-mask-before' && truncated) {
    const counted = G - truncated;
    if (counted < 2) return { ...base, status: 'rejected', why: `rejected: ${plural(counted, 'response')} not truncated — no baseline under Adv-Mask-Before, so every advantage is 0` };
    return { ...base, status: 'rejected', why: `rejected: the ${counted} responses not truncated all got reward ${samples.find((s) => !s.truncated)!.reward} (Adv-Mask-Before leaves the ${truncated} truncated out), so every advantage is 0` };
  }
  if (solved === G) return { ...base, status: 'rejected', why: `rejected: all ${G} solved — every advantage is 0, so the group adds no policy gradient` };
  if (solved === 0) return { ...base, status: 'rejected', why: `rejected: none of ${G} solved${trunc} — every advantage is 0, so the group adds no policy gradient` };
  return { ...base, status: 'rejected', why: `rejected: every advantage is 0 (truncated responses masked), so the group adds no policy gradient` };
}

// ---------------------------------------------------------------------------------------------
// Forking tokens

/** Share of a group's tokens marked as forking, and the least entropy a forking token has. */
export const FORK_FRACTION = 0.1;
export const FORK_MIN_NATS = 0.2;

/**
 * The group's forking tokens: its highest-entropy FORK_FRACTION of tokens (at least one), among
 * those with H ≥ minNats; positions per response. Ties: earlier response, then earlier position.
 */
export function forkingTokens(entropies: readonly (readonly number[])[], fraction = FORK_FRACTION, minNats = FORK_MIN_NATS): number[][] {
  const all: { r: number; j: number; h: number }[] = [];
  entropies.forEach((hs, r) => hs.forEach((h, j) => all.push({ r, j, h })));
  const n = Math.max(1, Math.ceil(fraction * all.length));
  all.sort((a, b) => b.h - a.h || a.r - b.r || a.j - b.j);
  const out: number[][] = entropies.map(() => []);
  for (const t of all.slice(0, n)) if (t.h >= minNats) out[t.r].push(t.j);
  for (const list of out) list.sort((a, b) => a - b);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The step slider

/** Steps the slider offers: every step of the history, or (following a prompt) only those that recorded it. */
export function sliderSteps(h: InspectorHistory, follow: number | null): number[] {
  return h.steps.filter((e) => follow === null || e.groups.some((g) => g.key === follow)).map((e) => e.step);
}
