import { downloadCheckpoint, resumeRun, saveCheckpoint, uploadCheckpoint } from '../lab';
import { isLive, useLab } from '../store';
import { FileButton } from './FileButton';

/** Save / load / download / upload checkpoints (.mlck). The last checkpoint of every run is kept in this browser. */
export function CheckpointPanel() {
  const live = useLab((s) => isLive(s.runState) && s.runState !== 'starting');
  const runState = useLab((s) => s.runState);
  const run = useLab((s) => (s.activeRunId ? s.runs[s.activeRunId] : undefined));
  const liveHere = useLab((s) => !!s.activeRunId && s.liveRunId === s.activeRunId && isLive(s.runState));
  const ready = useLab((s) => s.device.status === 'ready');
  return (
    <section className="panel checkpoints" data-testid="checkpoint-panel">
      <h2>Checkpoints</h2>
      <p className="hint" data-testid="checkpoint-status">
        {run?.checkpointStep !== undefined ? `${run.name}: last checkpoint at step ${run.checkpointStep}` : 'No checkpoint for this run yet.'}
      </p>
      <div className="buttons wrap">
        <button onClick={saveCheckpoint} disabled={!live} data-testid="checkpoint-save" title="Save the full run state now (kept in this browser)">
          Save
        </button>
        <button onClick={() => run && void resumeRun(run.id)} disabled={!ready || !run || run.checkpointStep === undefined || liveHere || runState === 'starting'} data-testid="checkpoint-load" title="Load this run's last checkpoint and continue from it">
          Load
        </button>
        <button onClick={() => run && void downloadCheckpoint(run.id)} disabled={!run || run.checkpointStep === undefined} data-testid="checkpoint-download" title="Download the last checkpoint as .mlck">
          Download
        </button>
        <FileButton accept=".mlck" onFile={(f) => void uploadCheckpoint(f)} disabled={!ready} testId="checkpoint-upload" title="Start a run from a .mlck file (a saved run resumes; base weights warm-start the current config)">
          Upload…
        </FileButton>
      </div>
    </section>
  );
}
