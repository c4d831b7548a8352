import { pause, play, reset, singleStep } from '../lab';
import { isLive, useLab } from '../store';

const STATE_TEXT: Record<string, string> = { idle: 'Ready', starting: 'Starting…', running: 'Training', paused: 'Paused', done: 'Done', error: 'Error' };

/** Play / pause / single step / reset, and where the run is. */
export function Controls() {
  const runState = useLab((s) => s.runState);
  const step = useLab((s) => s.step);
  const stage = useLab((s) => s.stage);
  const ready = useLab((s) => s.device.status === 'ready');
  const configError = useLab((s) => s.configError);
  const message = useLab((s) => s.statusMessage);
  const total = useLab((s) => {
    const id = s.liveRunId ?? s.activeRunId;
    const cfg = id && s.runs[id] ? s.runs[id].config : s.draft;
    return cfg.stages.every((st) => st.steps !== null) ? cfg.stages.reduce((a, st) => a + (st.steps ?? 0), 0) : null;
  });
  const running = runState === 'running';
  const live = isLive(runState);
  return (
    <section className="panel controls" data-testid="controls">
      <div className="buttons">
        {running ? (
          <button className="big" data-testid="pause" onClick={pause} title="Pause after the current step">
            ❚❚ Pause
          </button>
        ) : (
          <button className="big primary" data-testid="play" onClick={play} disabled={!ready || (!live && !!configError) || runState === 'starting'} title={live ? 'Resume training' : 'Start a new run with this configuration'}>
            ▶ Play
          </button>
        )}
        <button data-testid="step" onClick={singleStep} disabled={!ready || running || runState === 'starting' || (!live && !!configError)} title="Run exactly one training step, then pause">
          Step
        </button>
        <button
          data-testid="reset"
          onClick={reset}
          disabled={!ready}
          title={runState === 'starting' ? 'Cancel the start: the engine restarts (the run stays in the run list)' : 'Stop the run (it stays in the run list) and start over'}
        >
          Reset
        </button>
      </div>
      <div className="status">
        <span data-testid="run-state" data-state={runState} className={`state state-${runState}`}>
          {STATE_TEXT[runState]}
        </span>
        <span>
          step <b data-testid="step-counter">{step}</b>
          {total !== null && <> / {total}</>}
        </span>
        <span>
          stage <b data-testid="stage-counter">{stage + 1}</b>
        </span>
      </div>
      {message && (
        <p className="hint" data-testid="status-message">
          {message}
        </p>
      )}
    </section>
  );
}
