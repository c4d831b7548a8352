import { useCallback, useDeferredValue, useMemo, useRef } from 'react';
import { getPreset } from '../../rl/config';
import { cancelQueue, runFinding } from '../lab';
import { checkUnit, findingChartSpecs, findingRuns, sameFindingRuns, type FindingRun, fmtInterval, fmtNum, isFractionMetric, referenceEntropyTarget, scheduleText } from '../lib/findingview';
import { currentIndex, queueProgress } from '../lib/queue';
import { REFERENCE_COLOURS } from '../lib/refchart';
import type { ReferenceFile } from '../lib/reference';
import { useLab } from '../store';
import { MetricChart } from './MetricChart';
import { seedsText } from './ReferenceRuns';
import { VerdictBadge } from './VerdictBadge';

const SCALARS: { id: string; label: string }[] = [
  { id: 'final/avg/t1.0', label: 'final avg@k τ=1.0 (points)' },
  { id: 'gain/avg/t1.0', label: 'gain τ=1.0 (points)' },
  { id: 'final/avg/t0.6', label: 'final avg@k τ=0.6 (points)' },
  { id: 'entropy/second_half', label: 'entropy, 2nd half' },
];
const NO_BOUNDARIES: { step: number; stage: number }[] = [];
const noop = () => {};

/** One finding (or sweep) of the Findings view. */
export function FindingCard({ reference: ref }: { reference: ReferenceFile }) {
  const presets = Object.entries(ref.presets);
  const isFinding = ref.kind === 'finding';
  return (
    <article className="finding" data-testid="finding" data-reference={ref.name}>
      <h3>
        {ref.title} {ref.verdict && <VerdictBadge verdict={ref.verdict} />}
      </h3>
      {ref.claim && (
        <blockquote className="claim" data-testid="finding-claim">
          {ref.claim}
        </blockquote>
      )}
      <dl className="finding-facts">
        <dt>Presets</dt>
        <dd data-testid="finding-presets">
          {presets.map(([p, v], i) => (
            <span key={p} className="preset-chip">
              <span className="swatch" style={{ background: REFERENCE_COLOURS[i % REFERENCE_COLOURS.length] }} />
              {p} ({seedsText(v.seeds)})
            </span>
          ))}
        </dd>
        <dt>Schedule</dt>
        <dd data-testid="finding-schedule">{scheduleText(ref.schedule)}</dd>
        <dt>Command</dt>
        <dd>
          <code className="small">{ref.command}</code>
        </dd>
      </dl>
      {isFinding && (
        <div className="verdict" data-testid="finding-verdict">
          <p>
            <b>Verdict:</b> {ref.verdict && <VerdictBadge verdict={ref.verdict} />}
          </p>
          {ref.premises && ref.premises.length > 0 && (
            <ul className="premises" data-testid="finding-premises">
              {ref.premises.map((p, i) => (
                <li key={i} data-holds={p.holds}>
                  <b>Premise {p.holds ? 'shown' : 'not shown'}:</b> {p.says} — {p.evidence}
                </li>
              ))}
            </ul>
          )}
          {ref.rule && (
            <p className="hint" data-testid="finding-rule">
              <b>Rule:</b> {ref.rule}
            </p>
          )}
          {ref.checks && ref.checks.length > 0 && (
            <table className="checks stack" data-testid="finding-checks">
              <thead>
                <tr>
                  <th>check</th>
                  <th>estimate [95% interval]</th>
                  <th>verdict</th>
                </tr>
              </thead>
              <tbody>
                {ref.checks.map((c, i) => (
                  <tr key={i}>
                    <td data-label="check">{c.describe}</td>
                    <td className="num" data-label="estimate [95% interval]">
                      {fmtInterval(c.estimate, c.lower, c.upper, { points: checkUnit(c.describe).points })}
                      {checkUnit(c.describe).unit && ` ${checkUnit(c.describe).unit}`}
                    </td>
                    <td data-label="verdict">
                      <VerdictBadge verdict={c.verdict} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      <table className="checks scalars stack" data-testid="finding-scalars">
        <thead>
          <tr>
            <th>preset</th>
            {SCALARS.map((s) => (
              <th key={s.id}>{s.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {presets.map(([p, v]) => (
            <tr key={p}>
              <td data-label="preset">{p}</td>
              {SCALARS.map((s) => {
                const x = v.scalars[s.id];
                return (
                  <td key={s.id} className="num" data-label={s.label}>
                    {x ? fmtInterval(x.mean, x.lower, x.upper, { points: isFractionMetric(s.id) }) : fmtNum(null)}
                  </td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint small">{ref.interval}; bands are drawn clipped to each metric's range.</p>
      <QueueControls reference={ref} />
      <FindingCharts reference={ref} />
    </article>
  );
}

function QueueControls({ reference: ref }: { reference: ReferenceFile }) {
  const queue = useLab((s) => s.queue);
  const ready = useLab((s) => s.device.status === 'ready');
  const mine = queue?.reference === ref.name ? queue : null;
  const running = queue?.status === 'running';
  const total = Object.values(ref.presets).reduce((a, p) => a + p.seeds.length, 0);
  const label = ref.kind === 'finding' ? 'Run this finding here' : 'Run this sweep here';
  const progress = mine ? queueProgress(mine) : null;
  const current = mine && currentIndex(mine) >= 0 ? mine.items[currentIndex(mine)] : null;
  return (
    <div className="queue" data-testid="queue">
      <div className="buttons wrap">
        <button
          className="primary"
          onClick={() => void runFinding(ref.name)}
          disabled={!ready || running}
          data-testid="run-finding"
          title={`Queue ${total} runs (its presets × seeds, its steps, from this page's base checkpoint) and train them here one after another`}
        >
          ▶ {label}
        </button>
        {mine?.status === 'running' && (
          <button className="danger" onClick={() => cancelQueue('cancelled')} data-testid="queue-cancel" title="Stop the queue; the current run stays in the run list">
            Cancel
          </button>
        )}
        <span className="hint" data-testid="queue-status" data-status={mine?.status ?? 'none'}>
          {!mine && (total === 1 ? '1 run; a normal run (Runs panel).' : `${total} runs, one after another; each is a normal run (Runs panel).`)}
          {mine && progress && mine.status === 'running' && (
            <>
              run {progress.index} of {progress.total}
              {current && <>: {current.name}</>}
            </>
          )}
          {mine && progress && mine.status === 'done' && <>done: {progress.total === 1 ? '1 run' : `${progress.total} runs`}</>}
          {mine && progress && mine.status === 'cancelled' && (
            <>
              cancelled at run {progress.index} of {progress.total} ({progress.done} finished{mine.message && mine.message !== 'cancelled' ? `; ${mine.message}` : ''})
            </>
          )}
          {mine && mine.status === 'error' && <>{mine.message}</>}
        </span>
      </div>
    </div>
  );
}

/** Entropy and held-out accuracy: the reference bands per preset and the runs made here over them. */
function FindingCharts({ reference: ref }: { reference: ReferenceFile }) {
  const runsById = useLab((s) => s.runs);
  const order = useLab((s) => s.order);
  const smoothing = useLab((s) => s.smoothing);
  const referenceSeeds = useLab((s) => s.referenceSeeds);
  const firstPreset = Object.keys(ref.presets)[0];
  const k = useMemo(() => {
    try {
      return getPreset(firstPreset).eval.k;
    } catch {
      return ref.schedule.evalK;
    }
  }, [firstPreset, ref]);
  const specs = useMemo(() => findingChartSpecs(ref, k), [ref, k]);
  // The same runs as before (another run's step arrived): the same array, so no chart redraws.
  const kept = useRef<readonly FindingRun[]>([]);
  const found = useMemo(() => (kept.current = sameFindingRuns(kept.current, findingRuns(ref, runsById, order))), [ref, runsById, order]);
  const runsNow = useMemo(() => found.map((f) => ({ ...f.run, name: `${f.preset} · seed ${f.seed}` })), [found]);
  const colourKey = found.map((f) => f.colour).join(',');
  const colours = useMemo(() => found.map((f) => f.colour), [colourKey]);
  const runs = useDeferredValue(runsNow);
  const smooth = useDeferredValue(smoothing);
  const target = useMemo(() => referenceEntropyTarget(ref), [ref]);
  const toggle = useCallback(noop, []);
  return (
    <div className="chart-grid finding-charts" data-testid="finding-charts" data-runs={runs.length}>
      {specs.map((spec) => (
        <MetricChart
          key={spec.id}
          spec={spec}
          runs={runs}
          smoothing={smooth}
          log={false}
          onToggleLog={toggle}
          boundaries={NO_BOUNDARIES}
          entropyTarget={spec.entropyTarget ? target : null}
          reference={ref}
          referenceSeeds={referenceSeeds}
          runColours={colours}
        />
      ))}
    </div>
  );
}
