import { runsToDraw } from '../lib/chartdata';
import { importRunFile } from '../lab';
import { useLab } from '../store';
import { SERIES_COLOURS } from './MetricChart';
import { FileButton } from './FileButton';
import { ReferenceRuns } from './ReferenceRuns';
import { RunRow } from './RunRow';

/** Every run kept in this browser (tick runs to overlay them on the charts), and the shipped reference runs. */
export function RunsPanel() {
  const order = useLab((s) => s.order);
  const runs = useLab((s) => s.runs);
  const activeRunId = useLab((s) => s.activeRunId);
  const overlay = useLab((s) => s.overlay);
  const drawn = runsToDraw(activeRunId, overlay, runs);
  return (
    <section className="panel runs" data-testid="runs-panel">
      <h2>Runs</h2>
      {order.length === 0 && <p className="hint">No runs yet.</p>}
      <ul className="run-list">
        {[...order].reverse().map((id) =>
          runs[id] ? <RunRow key={id} run={runs[id]} colour={drawn.length > 1 && drawn.includes(id) ? SERIES_COLOURS[drawn.indexOf(id) % SERIES_COLOURS.length] : null} /> : null,
        )}
      </ul>
      <FileButton
        accept=".jsonl,.csv,.json,.log,.txt,.out"
        onFile={(f) => void importRunFile(f)}
        testId="run-import"
        title="Import a run: a MAGIC Lab JSONL/CSV export, a verl console log, a W&B/TensorBoard CSV export, or JSONL metrics (docs/verl-import.md)"
      >
        Import run…
      </FileButton>
      <ReferenceRuns />
    </section>
  );
}
