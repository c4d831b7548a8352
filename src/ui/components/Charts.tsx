import { useCallback, useDeferredValue, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { RunData } from '../../io/runfile';
import { chartRun, chartSpecs, extraMetricKeys, MANY_RUNS, runsToDraw, stageBoundaries, type RewardFamily } from '../lib/chartdata';
import { chartEvents, explainCharts, runEvents, type RunEvent } from '../lib/explain';
import { shownFor } from '../lib/teach';
import { explainTiming, timingRun } from '../lib/timing';
import { useLab } from '../store';
import { ALL_CARDS } from '../lib/collapse-card';
import { cardRunNames, drawnAs } from '../lib/try-play';
import { ExtraMetricChart } from './ExtraMetricChart';
import { MetricChart } from './MetricChart';
import { SmoothingSlider } from './SmoothingSlider';

/** The timing view of a run, the same object while its steps, name and config are (a new evaluation does not redraw the step-time chart). */
const timedViews = new WeakMap<readonly unknown[], { src: RunData; out: RunData }>();
const timed = (r: RunData) => {
  const c = timedViews.get(r.steps);
  if (c && c.src.id === r.id && c.src.name === r.name && c.src.config === r.config) return c.out;
  const out = timingRun(r);
  timedViews.set(r.steps, { src: r, out });
  return out;
};

/** `value` as it was while `key` is unchanged: derived arrays rebuilt per metrics batch keep their identity when their content does. */
function useByContent<T>(value: T, key: string): T {
  const held = useRef({ key, value });
  if (held.current.key !== key) held.current = { key, value };
  return held.current.value;
}
const eventKey = (events: readonly RunEvent[]) => events.map((e) => `${e.kind}:${e.step}:${e.label}:${e.detail}`).join('|');

/**
 * The chart grid. Chart data is derived from a deferred copy of the runs, so a metrics batch
 * re-renders the charts in an interruptible background render (the page stays responsive).
 * The drawn runs are selected shallowly, as chart views (chartRun): a store update that changes
 * nothing a chart draws (samples, the step counter, another run, a run's note) renders nothing
 * here, and each MetricChart re-renders only when its own series or props changed.
 */
export function Charts() {
  // A played card's runs are drawn under its own arm labels (a baseline reused from another card included).
  const runsNow = useLab(
    useShallow((s) => {
      const names = cardRunNames(s.tryPlay, s.queue, ALL_CARDS);
      return runsToDraw(s.activeRunId, s.overlay, s.runs).map((id) => drawnAs(chartRun(s.runs[id]), names[id]));
    }),
  );
  const draft = useLab((s) => s.draft);
  const smoothing = useLab((s) => s.smoothing);
  const logScale = useLab((s) => s.logScale);
  const toggleLog = useLab((s) => s.toggleLog);
  // The reference overlaid (its file once loaded): a band per preset on every chart with its metric.
  const reference = useLab((s) => {
    const f = s.overlayReference ? s.referenceFiles[s.overlayReference] : undefined;
    return f?.status === 'ready' ? f.file : null;
  });
  const referenceSeeds = useLab((s) => s.referenceSeeds);
  const hidden = useLab((s) => s.hidden);
  const runs = useDeferredValue(runsNow);
  const smooth = useDeferredValue(smoothing);
  const primaryCfg = runs[0]?.config ?? draft;
  const allSpecs = useMemo(() => chartSpecs(primaryCfg), [primaryCfg]);
  // Teacher mode may leave charts out (hide=chart-<id>) and the explanation lines (hide=explain).
  const shown = useMemo(() => shownFor(hidden), [hidden]);
  const specs = useMemo(() => allSpecs.filter((s) => shown(`chart-${s.id}`)), [allSpecs, shown]);
  const explain = shown('explain');
  // The active run read in words, and its events marked on the charts (lib/explain.ts: pure).
  const primary = runs[0];
  const events = useMemo(() => (primary ? runEvents(primary) : []), [primary]);
  const explanations = useMemo(() => (primary && explain ? explainCharts(primary, events) : null), [primary, events, explain]);
  const eventsNow = useMemo(() => Object.fromEntries(allSpecs.map((s) => [s.id, chartEvents(events, s.id)])) as Record<string, RunEvent[]>, [allSpecs, events]);
  const eventsBy = useByContent(eventsNow, allSpecs.map((s) => `${s.id}=${eventKey(eventsNow[s.id])}`).join('\n'));
  // The step-time chart draws each step's phases as a stack (lib/timing.ts), with its own reading.
  const timedRuns = useMemo(() => runs.map(timed), [runs]);
  const timingNote = useMemo(() => (primary && explain ? explainTiming(primary) : undefined), [primary, explain]);
  const boundariesNow = useMemo(() => (runs[0] ? stageBoundaries(runs[0]) : []), [runs]);
  const boundaries = useByContent(boundariesNow, boundariesNow.map((b) => `${b.step}:${b.stage}`).join(','));
  // Keys of an imported run that no chart draws: offered in one more chart.
  const extraNow = useMemo(() => extraMetricKeys(runs, allSpecs), [runs, allSpecs]);
  const extraKeys = useByContent(extraNow, extraNow.map((k) => `${k.source}:${k.key}`).join(','));
  const target = primaryCfg.loss.entropy.mode === 'off' ? null : primaryCfg.loss.entropy.target;
  const toggles = useCallback((id: string) => () => toggleLog(id), [toggleLog]);
  // Many runs overlaid: each draws one series per chart; on the reward chart, the family chosen here.
  const [family, setFamily] = useState<RewardFamily>('train');
  const many = runs.length >= MANY_RUNS;
  const familyPicker = useMemo(
    () =>
      many ? (
    <span className="family-toggle" role="group" aria-label="Series drawn per run" data-testid="reward-family">
      {(['train', 'heldout'] as const).map((f) => (
        <button key={f} className={`mini${family === f ? ' on' : ''}`} aria-pressed={family === f} onClick={() => setFamily(f)} data-testid={`reward-family-${f}`} title={f === 'train' ? 'Each run: train reward' : 'Each run: held-out avg@k at τ = 1.0'}>
          {f === 'train' ? 'train reward' : 'avg@k τ=1'}
        </button>
      ))}
    </span>
      ) : undefined,
    [many, family],
  );
  const toggleFns = useMemo(() => Object.fromEntries(specs.map((s) => [s.id, toggles(s.id)])), [specs, toggles]);
  return (
    <section className="panel charts" data-testid="charts">
      <div className="charts-head">
        <h2>Training curves</h2>
        <span className="hint">
          {runs.length > 1 ? `${runs.length} runs overlaid${many ? ' · one series per run' : ''}` : runs.length === 1 ? runs[0].name : 'press Play to start'}
          {reference && ` · reference: ${reference.title}`}
        </span>
        <span className="spacer" />
        <SmoothingSlider />
      </div>
      <div className="chart-grid">
        {specs.map((spec) => (
          <MetricChart
            key={spec.id}
            spec={spec}
            runs={spec.id === 'timing' ? timedRuns : runs}
            smoothing={smooth}
            log={!!logScale[spec.id]}
            onToggleLog={toggleFns[spec.id]}
            boundaries={boundaries}
            entropyTarget={spec.entropyTarget ? target : null}
            reference={reference}
            referenceSeeds={referenceSeeds}
            events={eventsBy[spec.id]}
            explanation={spec.id === 'timing' ? timingNote : explanations?.[spec.id]}
            family={family}
            picker={spec.id === 'reward' ? familyPicker : undefined}
          />
        ))}
        {extraKeys.length > 0 && <ExtraMetricChart keys={extraKeys} runs={runs} smoothing={smooth} boundaries={boundaries} />}
      </div>
    </section>
  );
}
