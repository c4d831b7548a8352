/**
 * Measured seconds per step kept across reloads: a rung's figure, once measured on an engine (the
 * short benchmark, or calibrated from a run's own steps), is stored in localStorage keyed like the
 * store (lib/rungs.ts stepEstimateKey: engine description and rung), so the estimates shown before a
 * long action (Play, a card's Run both) use it after a reload without timing again. Pure: the text
 * written and the parse that reads it back (an entry that is not a usable figure is dropped, never
 * trusted).
 */
import type { StepEstimate } from './rungs';

export const STEP_ESTIMATES_KEY = 'magic-lab:step-estimates';

export type ReadyEstimate = Extract<StepEstimate, { status: 'ready' }>;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One stored entry as a ready estimate, or null when it is not one (wrong types, a non-positive or non-finite time). */
function readyFrom(v: unknown): ReadyEstimate | null {
  if (!isObj(v)) return null;
  const { seconds, engine, measuredSteps } = v;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return null;
  if (typeof engine !== 'string' || !engine) return null;
  if (measuredSteps !== undefined && !(typeof measuredSteps === 'number' && Number.isInteger(measuredSteps) && measuredSteps > 0)) return null;
  return { status: 'ready', seconds, engine, ...(measuredSteps !== undefined ? { measuredSteps } : {}) };
}

/** The stored figures (key → ready estimate); nothing usable (absent, not JSON, another shape) gives {}. */
export function parseStepEstimates(text: string | null): Record<string, ReadyEstimate> {
  if (!text) return {};
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {};
  }
  if (!isObj(json)) return {};
  const out: Record<string, ReadyEstimate> = {};
  for (const [key, v] of Object.entries(json)) {
    const e = readyFrom(v);
    if (e && key.includes('|')) out[key] = e;
  }
  return out;
}

/** The text to store: the ready figures only (one being measured or failed is not a figure). */
export function stepEstimatesText(all: Record<string, StepEstimate>): string {
  const out: Record<string, Omit<ReadyEstimate, 'status'>> = {};
  for (const key of Object.keys(all).sort()) {
    const e = all[key];
    if (e.status === 'ready') out[key] = { seconds: e.seconds, engine: e.engine, ...(e.measuredSteps !== undefined ? { measuredSteps: e.measuredSteps } : {}) };
  }
  return JSON.stringify(out);
}

/**
 * The figures after a reload: the stored ones under those the page has now (a figure measured this
 * session wins; a stored one fills only a key the page has none for, or one that failed).
 */
export function mergeStoredEstimates(now: Record<string, StepEstimate>, stored: Record<string, ReadyEstimate>): Record<string, StepEstimate> {
  const out: Record<string, StepEstimate> = { ...now };
  for (const [key, e] of Object.entries(stored)) if (!out[key] || out[key].status === 'error') out[key] = e;
  return out;
}
