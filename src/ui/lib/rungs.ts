/**
 * The rung selector's figures (pure): each rung's parameters and engine memory for the current
 * preset, whether it fits the open engine (the config panel's resource check, with the engine's
 * limits), the key of its measured speed, and the base checkpoint a fresh run of a config fetches.
 */
import { browserHostLimits, estimateRun, checkRunResources, type EngineLimits, type HostLimits } from '../../rl/resources';
import { DEFAULT_RUNG, getPreset, getRung, modelParameterCount, RUNG_NAMES, rungOf, validateRunConfig, type RunConfig, type RungName } from '../../rl/config';
import type { EngineSummary } from '../../worker/protocol';

/** The preset a rung is taken at: the -tiny test twins exist at the tiny rung only, so another rung takes their full-size preset. */
export function presetAtRung(preset: string, rung: RungName): string {
  return rung === DEFAULT_RUNG ? preset : preset.replace(/-tiny$/, '');
}

/** "106K", "0.82M", "4.2M": a parameter count as the selector shows it. */
export function formatParams(n: number): string {
  if (n >= 1e7) return `${Math.round(n / 1e6)}M`;
  if (n >= 5e5) return `${(n / 1e6).toFixed(2).replace(/\.?0+$/, '')}M`;
  if (n >= 1e3) return `${Math.round(n / 1e3)}K`;
  return String(n);
}

/**
 * Why the rung's config does not fit here, in the config panel's words ("<field>: <message>"), or
 * null. With the open engine's limits when the page has them (the Worker checks them again at start).
 */
export function rungFitError(cfg: RunConfig, engine: EngineLimits | null | undefined, host: HostLimits = browserHostLimits()): string | null {
  try {
    checkRunResources(validateRunConfig(cfg), { engine: engine ?? null, host }, { engineKnown: false });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

export interface RungRow {
  rung: RungName;
  summary: string;
  /** Parameters of the rung's model: the full-size preset at that rung, never a -tiny test twin. */
  params: number;
  /** Engine memory of a run of the rung's model (estimateRun's engineBytes: the policy, and π_ref when KL is on). */
  memoryBytes: number;
  /** Whether what a run here would train (the preset at this rung, a test twin included) fits the engine. */
  fitError: string | null;
  /** The current preset's -tiny test twin, which a run at this rung trains instead of the rung's model; null otherwise. */
  twin: { preset: string; params: number } | null;
}

/**
 * One row per rung for `preset` on `engine` (the CPU engine's figures before one is open). A row
 * shows the rung's own model; a -tiny preset (a ~5K test twin of the tiny rung) is named on the tiny row.
 */
export function rungRows(preset: string, engine: EngineSummary | null, host?: HostLimits): RungRow[] {
  const full = preset.replace(/-tiny$/, '');
  return RUNG_NAMES.map((rung) => {
    const model = getPreset(full, rung);
    const run = getPreset(presetAtRung(preset, rung), rung);
    const est = estimateRun(model, engine?.backend ?? 'wasm', engine?.threads ?? 1);
    const twin = presetAtRung(preset, rung) === full ? null : { preset, params: modelParameterCount(run.model) };
    return { rung, summary: getRung(rung).summary, params: modelParameterCount(model.model), memoryBytes: est.engineBytes, fitError: rungFitError(run, engine?.limits, host), twin };
  });
}

/** The tiny row's note when the preset is a test twin: "now: the 5K test twin magic-tiny". */
export const twinNote = (twin: { preset: string; params: number }) => `now: the ${formatParams(twin.params)} test twin ${twin.preset}`;

/** Measured speeds are kept per engine and rung for the page's session. */
export const stepEstimateKey = (engine: string, rung: RungName) => `${engine}|${rung}`;

/** `measuredSteps`: the figure is the median step of a run at the rung (that many timed steps), not the short benchmark's. */
export type StepEstimate = { status: 'measuring' } | { status: 'ready'; seconds: number; engine: string; measuredSteps?: number } | { status: 'error'; message: string };

/** Whether a rung's row offers "measure": never timed on this engine, or its timing failed (one in flight or done: no). */
export function canMeasure(e: StepEstimate | undefined): boolean {
  return !e || e.status === 'error';
}

/** "~2.4 s/step on CPU engine (…)", "measuring…", or why not. */
export function describeEstimate(e: StepEstimate | undefined): string {
  if (!e) return 'not measured';
  if (e.status === 'measuring') return 'measuring…';
  if (e.status === 'error') return `not measured (${e.message})`;
  const s = e.seconds;
  const text = s >= 10 ? s.toFixed(0) : s >= 1 ? s.toFixed(1) : s.toPrecision(2);
  return `~${text} s/step on ${e.engine}${e.measuredSteps ? ` (measured over ${e.measuredSteps} training steps)` : ''}`;
}

/**
 * The base checkpoint a fresh run of `config` starts from, under the site's base URL: the rung's
 * own file (rungs.ts baseFile); a hand-made shape keeps today's rule (the -tiny presets' base-tiny, else base).
 */
export function baseCheckpointUrl(config: RunConfig, preset: string, siteBase: string): string {
  const rung = rungOf(config);
  if (rung !== null && rung !== DEFAULT_RUNG) return `${siteBase}${getRung(rung).baseFile}`;
  return `${siteBase}checkpoints/${baseCheckpointName(preset)}.mlck`;
}

/** The base checkpoint's name off the ladder: the -tiny presets' test twin, else today's base. */
export const baseCheckpointName = (preset: string) => (preset.endsWith('-tiny') ? 'base-tiny' : 'base');
