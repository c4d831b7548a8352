import { useEffect, useMemo, useState } from 'react';
import { COVERAGE_ARMS, type CoverageArm, type CoverageReference } from '../../sweep/coverage-reference';
import { ARM_LABEL, armBand, armCurve, COVERAGE_CHART_BOX, coverageChart, coverageStatement, fetchCoverageReference, groupLabel, liveCurves, provenanceText, type LiveCurve } from '../lib/coverage-lesson';
import { useLab } from '../store';

const COLOUR: Record<CoverageArm | 'live', string> = { base: '#6b7280', 'entropy-off': '#d97706', magic: '#2563eb', live: '#059669' };

type Load = { status: 'idle' | 'loading' } | { status: 'ready'; ref: CoverageReference } | { status: 'error'; message: string };

/** The page's rung's coverage reference, else the small rung's (the rung the reference runs are made at). */
async function loadReference(rung: string): Promise<CoverageReference> {
  let first: Error | null = null;
  for (const r of [...new Set([rung, 'small'])]) {
    try {
      return await fetchCoverageReference(r);
    } catch (e) {
      first ??= e as Error;
    }
  }
  throw first!;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/** What the live run adds to the chart, in words (computed from its evaluations). */
function liveNote(name: string | null, kind: string, group: string, live: LiveCurve[], temperature: number): string {
  if (name === null) return `Start a run: each held-out evaluation draws its own pass@k curve here (k = 1, 2, … up to its eval.k, at τ = ${temperature}), beside the reference runs.`;
  if (kind === 'class') return `A run does not know its base's classes, so "${name}" draws no curve for this group.`;
  if (!live.length) return `"${name}" has no pass@k curve of ${group} at τ = ${temperature} yet (its evaluations log one per family of its own data).`;
  const last = live[live.length - 1];
  const [k, v] = last.points[last.points.length - 1];
  return `Your run "${name}": ${live.length} evaluation${live.length === 1 ? '' : 's'} drawn (step${live.length === 1 ? ` ${last.step}` : `s ${live[0].step}–${last.step}`}, the latest darkest); at step ${last.step} its pass@${k} is ${pct(v)}.`;
}

/**
 * "Coverage": pass@k on a log-k axis of the base, the no-control twin and MAGIC from the shipped
 * reference runs (public/reference/coverage/<rung>.json), per group (all, a family, a base class),
 * the live run's curve at each in-run evaluation, and a sentence computed from the file.
 */
export function CoverageLesson() {
  const rung = useLab((s) => s.rung);
  const [open, setOpen] = useState(false);
  const [load, setLoad] = useState<Load>({ status: 'idle' });
  const [groupId, setGroupId] = useState('all');
  const runId = useLab((s) => s.liveRunId ?? s.activeRunId);
  const run = useLab((s) => (runId ? s.runs[runId] : undefined));
  useEffect(() => {
    if (!open || load.status !== 'idle') return;
    setLoad({ status: 'loading' });
    loadReference(rung).then(
      (ref) => setLoad({ status: 'ready', ref }),
      (e: Error) => setLoad({ status: 'error', message: e.message }),
    );
  }, [open, load.status, rung]);
  const ref = load.status === 'ready' ? load.ref : null;
  const group = ref?.groups.find((g) => g.id === groupId) ?? ref?.groups[0] ?? null;
  const live = useMemo(() => (ref && group && run ? liveCurves(run.evals, group, ref.temperature) : []), [ref, group, run]);
  const statement = useMemo(() => (ref && group ? coverageStatement(ref, group) : null), [ref, group]);
  const chart = useMemo(() => (ref ? coverageChart(Math.max(ref.samples, ...live.flatMap((c) => c.points.map((p) => p[0])))) : null), [ref, live]);
  const box = COVERAGE_CHART_BOX;
  return (
    <details className="panel coverage-lesson" data-testid="coverage-lesson" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Coverage: pass@k on a log-k axis</summary>
      <p className="lead">
        pass@k is the chance that at least one of k samples solves a problem (estimated without bias from n samples per problem). At k = 1 it is the plain accuracy, which sharpening raises; at large k it counts
        the problems a policy can still reach at all, which is where keeping entropy up (exploration) should show. The curves below are the untrained base, the twin that trains without the entropy
        controller (<code>entropy-off</code>) and MAGIC.
      </p>
      {load.status === 'loading' && <p className="hint">Loading the reference runs…</p>}
      {load.status === 'error' && (
        <p className="error" data-testid="coverage-error">
          {load.message}
        </p>
      )}
      {ref && group && chart && (
        <>
          <div className="coverage-groups" role="group" aria-label="Problems">
            {ref.groups.map((g) => (
              <button key={g.id} className={`mini${g.id === group.id ? ' on' : ''}`} aria-pressed={g.id === group.id} data-testid={`coverage-group-${g.id}`} onClick={() => setGroupId(g.id)}>
                {groupLabel(g)}
              </button>
            ))}
          </div>
          <svg className="coverage-chart" data-testid="coverage-chart" data-group={group.id} viewBox={`0 0 ${box.width} ${box.height}`} role="img" aria-label={`pass@k against k (log scale) on ${groupLabel(group)}`}>
            {chart.yTicks.map((t) => (
              <g key={t.v}>
                <line x1={box.left} x2={box.width - box.right} y1={t.y} y2={t.y} stroke="#e2e5ee" />
                <text x={box.left - 6} y={t.y + 4} textAnchor="end" fontSize="11" fill="#4b5468">
                  {t.v * 100}%
                </text>
              </g>
            ))}
            {chart.xTicks.map((t) => (
              <text key={t.k} x={t.x} y={box.height - box.bottom + 16} textAnchor="middle" fontSize="11" fill="#4b5468">
                {t.k}
              </text>
            ))}
            <text x={(box.left + box.width - box.right) / 2} y={box.height - 2} textAnchor="middle" fontSize="11" fill="#4b5468">
              k (samples per problem, log scale)
            </text>
            {COVERAGE_ARMS.map((arm) => {
              const band = armBand(group, arm);
              return band.length > 1 ? <path key={`band-${arm}`} d={chart.bandPath(band)} fill={COLOUR[arm]} opacity={0.15} data-band={arm} /> : null;
            })}
            {live.map((c, i) => (
              <path key={`live-${c.step}`} d={chart.path(c.points)} fill="none" stroke={COLOUR.live} strokeWidth={i === live.length - 1 ? 2.5 : 1.5} opacity={0.25 + (0.75 * (i + 1)) / live.length} data-testid="coverage-live" data-step={c.step} data-points={JSON.stringify(c.points)} />
            ))}
            {COVERAGE_ARMS.map((arm) => {
              const pts = armCurve(group, arm);
              return (
                <g key={arm}>
                  <path d={chart.path(pts)} fill="none" stroke={COLOUR[arm]} strokeWidth={2} strokeDasharray={arm === 'base' ? '5 3' : undefined} data-testid={`coverage-line-${arm}`} data-points={JSON.stringify(pts)} />
                  {pts.map(([k, v]) => (
                    <circle key={k} cx={chart.x(k)} cy={chart.y(v)} r={2.5} fill={COLOUR[arm]}>
                      <title>{`${ARM_LABEL[arm]}: pass@${k} = ${pct(v)}`}</title>
                    </circle>
                  ))}
                </g>
              );
            })}
          </svg>
          <ul className="coverage-legend">
            {COVERAGE_ARMS.map((arm) => (
              <li key={arm}>
                <span className="swatch" style={{ background: COLOUR[arm] }} /> {ARM_LABEL[arm]}
              </li>
            ))}
            <li>
              <span className="swatch" style={{ background: COLOUR.live }} /> your run, one line per evaluation
            </li>
          </ul>
          {statement && <p data-testid="coverage-sentence">{statement.text}</p>}
          <p className="hint" data-testid="coverage-live-note">
            {liveNote(run ? run.name : null, group.kind, group.kind === 'all' ? 'all problems' : group.id, live, ref.temperature)}
          </p>
          <p className="hint" data-testid="coverage-provenance">
            {provenanceText(ref)}
          </p>
        </>
      )}
    </details>
  );
}
