import { useMemo } from 'react';
import { formatBytes } from '../../rl/resources';
import { measureRung, pickRung } from '../lab';
import { canMeasure, describeEstimate, formatParams, rungRows, stepEstimateKey, twinNote } from '../lib/rungs';
import { isLive, useLab } from '../store';

/**
 * The model ladder beside the preset (src/rl/config/rungs.ts): each rung's parameters, engine
 * memory (the resource estimate the config check uses) and its speed measured on this engine;
 * a -tiny test-twin preset is named on the tiny row beside the rung's own model.
 * Picking one loads the preset at it and times it; a row not timed yet (the rung the page opens on)
 * offers "measure". One that does not fit here is marked, and the config check refuses to run it
 * (Play stays off) with the field to lower.
 */
export function RungPicker() {
  const preset = useLab((s) => s.preset);
  const rung = useLab((s) => s.rung);
  const device = useLab((s) => s.device);
  const estimates = useLab((s) => s.stepEstimates);
  const download = useLab((s) => s.baseDownload);
  const live = useLab((s) => isLive(s.runState));
  const engine = device.status === 'ready' ? device.engine : null;
  const rows = useMemo(() => rungRows(preset, engine), [preset, engine]);
  return (
    <fieldset className="rungs" data-testid="rungs" disabled={live}>
      <legend>Model rung</legend>
      {rows.map((r) => {
        const estimate = engine ? estimates[stepEstimateKey(engine.description, r.rung)] : undefined;
        return (
          <label key={r.rung} className="rung" data-testid={`rung-${r.rung}`} title={r.summary}>
            <input type="radio" name="rung" value={r.rung} checked={r.rung === rung} onChange={() => pickRung(r.rung)} data-testid={`rung-pick-${r.rung}`} />
            <b>{r.rung}</b> <span data-testid={`rung-params-${r.rung}`}>{formatParams(r.params)} params</span>
            {r.twin && <span data-testid={`rung-twin-${r.rung}`}> · {twinNote(r.twin)}</span>} · <span>{formatBytes(r.memoryBytes)} memory</span> ·{' '}
            <span data-testid={`rung-speed-${r.rung}`}>{engine ? describeEstimate(estimate) : 'no engine yet'}</span>
            {engine && canMeasure(estimate) && (
              <>
                {' '}
                <button type="button" className="link" onClick={() => measureRung(r.rung)} data-testid={`rung-measure-${r.rung}`} title="Time two training steps and a short decode of this rung's shape on this engine, without picking it">
                  measure
                </button>
              </>
            )}
            {r.fitError && <span className="hint"> · does not fit here</span>}
          </label>
        );
      })}
      {download && (
        <p className="hint" data-testid="base-download">
          Downloading the base checkpoint: <progress value={download.loaded} max={download.total || undefined} aria-label="base checkpoint download" />{' '}
          {formatBytes(download.loaded)}
          {download.total > 0 && ` of ${formatBytes(download.total)}`}
        </p>
      )}
    </fieldset>
  );
}
