import { rungBaseConfig, rungOf } from '../../rl/config';
import { pause, play, reset, singleStep } from '../lab';
import { stepEstimateKey } from '../lib/rungs';
import { sameStepShape, wholeRunText } from '../lib/run-time';
import { errorField, errorTarget } from '../lib/fielderror';
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
  const focusField = useLab((s) => s.focusField);
  // Before a long action, its time: the draft's steps at its rung's measured s/step (lib/run-time.ts).
  const estimate = useLab((s) => {
    if (isLive(s.runState) || s.device.status !== 'ready') return null;
    const e = s.stepEstimates[stepEstimateKey(s.device.engine.description, s.rung)];
    if (e?.status !== 'ready' || rungOf(s.draft) !== s.rung) return null;
    const shape = sameStepShape(s.draft, rungBaseConfig(s.rung)) ? '' : " (timed at the rung's default batch)";
    return `This run: ${wholeRunText([s.draft], e.seconds)}${shape}.`;
  });
  const running = runState === 'running';
  const live = isLive(runState);
  // Why Play cannot start a run, said on the button (title, description) and, for a config error, beside it with a way to the field.
  const blocked = !ready ? 'The engine is not ready yet' : runState === 'starting' ? 'A run is starting (Reset cancels it)' : !live && configError ? `Fix the configuration first — ${configError}` : null;
  const target = !live && configError ? errorTarget(errorField(configError)) : null;
  return (
    <section className="panel controls" data-testid="controls">
      <div className="buttons">
        {running ? (
          <button className="big" data-testid="pause" onClick={pause} title="Pause after the current step">
            ❚❚ Pause
          </button>
        ) : (
          <button
            className="big primary"
            data-testid="play"
            onClick={play}
            disabled={blocked !== null}
            title={blocked ?? (live ? 'Resume training' : 'Start a new run with this configuration')}
            aria-describedby={!live && configError ? 'play-blocked' : undefined}
          >
            ▶ Play
          </button>
        )}
        <button
          data-testid="step"
          onClick={singleStep}
          disabled={!ready || running || runState === 'starting' || (!live && !!configError)}
          title={blocked ?? 'Run exactly one training step, then pause'}
          aria-describedby={!live && configError ? 'play-blocked' : undefined}
        >
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
      {!live && configError && (
        <p className="field-error small" id="play-blocked" data-testid="play-blocked">
          Play is off until the configuration is valid: {configError}
          {target && (
            <>
              {' '}
              <button className="link" onClick={() => focusField(target)} data-testid="play-blocked-show">
                Show the field
              </button>
            </>
          )}
        </p>
      )}
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
      {estimate && (
        <p className="hint" data-testid="run-estimate">
          {estimate}
        </p>
      )}
      {message && (
        <p className="hint" data-testid="status-message">
          {message}
        </p>
      )}
    </section>
  );
}
