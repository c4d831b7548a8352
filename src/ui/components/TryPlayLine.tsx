import { useMemo } from 'react';
import type { Experiment } from '../lib/experiments';
import { readContrast, referenceArmCurve, runArmCurve, type ArmCurve } from '../lib/card-contrast';
import { cardArms, cardQueueName, compareArms, endMean, referenceEntropySeries, runEntropySeries, type ArmSeries } from '../lib/try-play';
import { cancelQueue } from '../lab';
import { useLab } from '../store';

/** Under a played card: how far its runs are, and the overlaid arms compared from their data. */
export function TryPlayLine({ experiment }: { experiment: Experiment }) {
  const play = useLab((s) => s.tryPlay);
  const queue = useLab((s) => s.queue);
  const runs = useLab((s) => s.runs);
  const refFile = useLab((s) => (s.overlayReference === cardQueueName(experiment) ? s.referenceFiles[s.overlayReference] : undefined));
  const on = play?.cardId === experiment.id ? play : null;
  const mine = on?.mode === 'runs' && queue?.reference === cardQueueName(experiment) ? queue : null;
  const { series, target } = useMemo(() => {
    const arms = cardArms(experiment, on?.keys);
    if (on?.mode === 'reference' && refFile?.status === 'ready') {
      const presets = refFile.file.presets;
      return { series: arms.map((a) => ({ ...referenceEntropySeries(a.label, presets[a.label]), target: presets[a.label]?.entropyTarget ?? null })), target: presets[arms[0].label]?.entropyTarget ?? null };
    }
    if (mine) {
      // Each arm against its own target (an arm without the entropy term has none).
      const out = mine.items
        .map((x, i): ArmSeries | null => {
          const r = x.runId ? runs[x.runId] : undefined;
          return r ? { ...runEntropySeries(arms[i]?.label ?? x.name, r), target: r.config.loss.entropy.mode === 'off' ? null : r.config.loss.entropy.target } : null;
        })
        .filter((x): x is ArmSeries => !!x);
      const cfgs = mine.items.map((x) => (x.runId ? runs[x.runId]?.config : undefined)).filter((c) => c && c.loss.entropy.mode !== 'off');
      return { series: out, target: cfgs[0]?.loss.entropy.target ?? null };
    }
    return { series: [] as ArmSeries[], target: null };
  }, [experiment, on, refFile, mine, runs]);
  // The card's contrasts, each read from the curves its chart draws: the arms' reference means, or their runs.
  const readings = useMemo(() => {
    const arms = cardArms(experiment, on?.keys);
    return experiment.contrasts.map((c) => {
      let curves: ArmCurve[] = [];
      if (on?.mode === 'reference' && refFile?.status === 'ready') curves = arms.map((a) => referenceArmCurve(a.label, refFile.file.presets[a.label], c.metric));
      else if (mine) curves = mine.items.flatMap((x, i) => (x.runId && runs[x.runId] ? [runArmCurve(arms[i]?.label ?? x.name, runs[x.runId], c.metric)] : []));
      return { c, r: readContrast(c, curves) };
    });
  }, [experiment, on, refFile, mine, runs]);
  // The reference runs' length, from their curves (the last step drawn).
  const refSteps = useMemo(() => {
    if (refFile?.status !== 'ready') return 0;
    return Math.max(0, ...Object.values(refFile.file.presets).flatMap((p) => p.curves['actor/entropy']?.steps.slice(-1) ?? []));
  }, [refFile]);
  if (!on) return null;
  const done = mine ? mine.items.filter((x) => x.status === 'done').length : 0;
  const reused = mine ? mine.items.filter((x) => x.reused).length : 0;
  const text = compareArms(series, target, { collapse: experiment.compareCollapse });
  // What the line compares, for tests: each arm's entropy over its last 20% (the overlaid curves' data) and the target.
  const ends = series.map((a) => (a.values.some(Number.isFinite) ? endMean(a.values).toFixed(4) : '')).join(',');
  return (
    <div className="try-play hint" data-testid="try-play" data-mode={on.mode} data-end-entropy={ends} data-target={target ?? ''}>
      {on.mode === 'runs' && mine && (
        <div data-testid="try-progress">
          {mine.status === 'running' ? `Running arm ${Math.min(done + 1, mine.items.length)} of ${mine.items.length}…` : mine.status === 'done' ? `All ${mine.items.length} arms overlaid` : mine.message ?? mine.status}
          {reused > 0 && ` (${reused} reused from an identical finished run)`}
          {mine.status === 'running' && (
            <>
              {' '}
              <button className="mini" onClick={() => cancelQueue('cancelled')} data-testid="try-cancel" title="Stop the card's runs; the current run stays in the run list">
                cancel
              </button>
            </>
          )}
        </div>
      )}
      {on.mode === 'reference' && <div>Reference runs overlaid: mean over seeds with 95% bands{refSteps ? ` (their ${refSteps}-step schedule)` : ''}.</div>}
      {text && <div data-testid="try-compare">{text}</div>}
      {readings.some((x) => x.r) && (
        <ul className="try-contrasts" data-testid="try-contrasts">
          {readings.map(({ c, r }) =>
            r ? (
              <li key={`${c.chart}|${c.metric}`} data-testid="try-contrast" data-chart={c.chart} data-metric={c.metric} data-window={typeof c.window === 'object' ? `to:${c.window.to}` : c.window} data-means={r.means.map((m) => `${m.arm}=${m.text}`).join(',')}>
                {r.sentence}
              </li>
            ) : null,
          )}
        </ul>
      )}
    </div>
  );
}
