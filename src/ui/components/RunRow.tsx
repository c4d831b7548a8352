import { memo, useState } from 'react';
import { deleteRun, exportRun, renameRun, resumeRun } from '../lab';
import type { RunData } from '../../io/runfile';
import { isLive, useLab } from '../store';

/** One run in the list: show / overlay, rename, export, resume, delete. */
// Memoised: a metrics batch changes one run's record; the other rows have nothing new to show.
export const RunRow = memo(function RunRow({ run, colour }: { run: RunData; colour: string | null }) {
  const active = useLab((s) => s.activeRunId === run.id);
  const overlaid = useLab((s) => s.overlay.includes(run.id));
  const liveHere = useLab((s) => s.liveRunId === run.id && isLive(s.runState));
  const toggleOverlay = useLab((s) => s.toggleOverlay);
  const setActive = useLab((s) => s.setActiveRun);
  const [editing, setEditing] = useState(false);
  const last = run.steps.length ? run.steps[run.steps.length - 1].step : 0;
  return (
    <li className={`run${active ? ' active' : ''}`} data-testid="run-row" data-run-id={run.id}>
      <div className="run-line">
        <input type="checkbox" checked={active || overlaid} disabled={active} onChange={() => toggleOverlay(run.id)} data-testid="run-overlay" title="Overlay this run on the charts" aria-label={`Overlay ${run.name} on the charts`} />
        {colour && <span className="swatch" style={{ background: colour }} />}
        {editing ? (
          <input
            autoFocus
            defaultValue={run.name}
            data-testid="run-name-input"
            aria-label="Run name"
            onBlur={(e) => {
              renameRun(run.id, e.target.value);
              setEditing(false);
            }}
            onKeyDown={(e) => {
              if (e.key === 'Enter') (e.target as HTMLInputElement).blur();
              if (e.key === 'Escape') setEditing(false);
            }}
          />
        ) : (
          <button className="link run-name" onClick={() => setActive(run.id)} onDoubleClick={() => setEditing(true)} data-testid="run-name" title="Show this run (double-click to rename)">
            {run.name}
          </button>
        )}
        <span className="hint" data-testid="run-steps">
          {last} steps{run.done ? ' ✓' : ''}
        </span>
      </div>
      <div className="run-actions">
        <button className="mini" onClick={() => setEditing(true)} data-testid="run-rename">
          rename
        </button>
        <button className="mini" onClick={() => exportRun(run.id, 'jsonl')} data-testid="run-export-jsonl">
          JSONL
        </button>
        <button className="mini" onClick={() => exportRun(run.id, 'csv')} data-testid="run-export-csv">
          CSV
        </button>
        {run.checkpointStep !== undefined && !liveHere && !run.done && (
          <button className="mini" onClick={() => void resumeRun(run.id)} data-testid="run-resume" title={`Resume from the checkpoint at step ${run.checkpointStep}`}>
            resume @{run.checkpointStep}
          </button>
        )}
        <button className="mini danger" onClick={() => void deleteRun(run.id)} data-testid="run-delete">
          delete
        </button>
      </div>
      {run.note && <div className="hint small">{run.note}</div>}
    </li>
  );
});
