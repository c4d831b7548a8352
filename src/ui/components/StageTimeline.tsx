import { plannedStages } from '../lib/chartdata';
import { useLab } from '../store';

/** The stage schedule as a bar (fixed-step stages to scale; plateau stages at their max), with where the run is. */
export function StageTimeline() {
  const cfg = useLab((s) => {
    const id = s.liveRunId ?? s.activeRunId;
    return id && s.runs[id] ? s.runs[id].config : s.draft;
  });
  const step = useLab((s) => (s.liveRunId ? s.step : s.activeRunId && s.runs[s.activeRunId] ? s.runs[s.activeRunId].steps.length : 0));
  const spans = plannedStages(cfg);
  const total = Math.max(1, spans.reduce((a, s) => a + s.length, 0));
  // Plateau stages can end early: place the marker within the stage the run reports.
  const pos = Math.min(1, step / total);
  return (
    <div className="timeline" data-testid="timeline" title="Stage schedule: where the run is">
      {spans.map((s) => (
        <div key={s.stage} className={`tl-stage${s.fixed ? '' : ' plateau'}`} style={{ width: `${(100 * s.length) / total}%` }} data-testid={`timeline-stage-${s.stage}`}>
          <span>
            S{s.stage + 1} · len {cfg.stages[s.stage].maxResponseLength} · {s.fixed ? `${s.length} steps` : `≤ ${s.length} (plateau)`}
          </span>
        </div>
      ))}
      <div className="tl-marker" data-testid="timeline-marker" style={{ left: `min(${100 * pos}%, 100% - 2px)` }} />
    </div>
  );
}
