import { useState } from 'react';
import { undoDelete } from '../lab';
import { isolationState } from '../lib/service-worker';
import { useLab } from '../store';

/** The CPU engine on one thread because the page is not cross-origin isolated: what it costs and how to fix it. */
function IsolationBanner() {
  const device = useLab((s) => s.device);
  const [dismissed, setDismissed] = useState(false);
  if (dismissed || device.status !== 'ready' || device.engine.backend !== 'wasm' || device.engine.threads !== 1) return null;
  const { isolated, cores, swProblem } = isolationState();
  if (isolated || cores < 2) return null;
  return (
    <div className="banner warning" role="status" data-testid="isolation-banner">
      <span>
        This page is not cross-origin isolated, so the CPU engine trains on 1 thread instead of {cores}. {swProblem ? `Its service worker cannot fix that here (${swProblem}). ` : 'Reload the page once: its service worker isolates it. '}
        Otherwise serve it over https:// or from localhost, or have the server send <code>Cross-Origin-Opener-Policy: same-origin</code> and <code>Cross-Origin-Embedder-Policy: require-corp</code>.
      </span>
      <button className="icon" onClick={() => setDismissed(true)} title="Dismiss">
        ✕
      </button>
    </div>
  );
}

/** The invalid-link error, run errors and notices (each dismissible). */
export function Banners() {
  const urlError = useLab((s) => s.urlError);
  const error = useLab((s) => s.error);
  const notice = useLab((s) => s.notice);
  const noticeUndo = useLab((s) => s.noticeUndo);
  const deviceLoss = useLab((s) => s.deviceLoss);
  const setDeviceLoss = useLab((s) => s.setDeviceLoss);
  const storageWarning = useLab((s) => s.storageWarning);
  const setStorageWarning = useLab((s) => s.setStorageWarning);
  const dismissUrl = useLab((s) => s.dismissUrlError);
  const setError = useLab((s) => s.setError);
  const setNotice = useLab((s) => s.setNotice);
  return (
    <>
      <IsolationBanner />
      {urlError && (
        <div className="banner error" role="alert" data-testid="url-error">
          <span>{urlError}</span>
          <button className="icon" onClick={dismissUrl} title="Dismiss">
            ✕
          </button>
        </div>
      )}
      {error && (
        <div className="banner error" role="alert" data-testid="error">
          <span>{error}</span>
          <button className="icon" onClick={() => setError(null)} title="Dismiss">
            ✕
          </button>
        </div>
      )}
      {storageWarning && (
        <div className="banner warning" role="status" data-testid="storage-warning">
          <span>
            Runs are not being saved in this browser: {storageWarning}. They stay in this tab until it closes — export them to keep them (JSONL or CSV in the run list; Download in Checkpoints).
          </span>
          <button className="icon" onClick={() => setStorageWarning(null)} title="Dismiss">
            ✕
          </button>
        </div>
      )}
      {deviceLoss && (
        <div className={`banner ${deviceLoss.phase === 'failed' ? 'error' : 'warning'}`} role={deviceLoss.phase === 'failed' ? 'alert' : 'status'} data-testid="device-lost" data-phase={deviceLoss.phase}>
          <span>{deviceLoss.message}</span>
          <button className="icon" onClick={() => setDeviceLoss(null)} title="Dismiss">
            ✕
          </button>
        </div>
      )}
      {notice && (
        <div className="banner notice" data-testid="notice">
          <span>{notice}</span>
          {noticeUndo && (
            <button className="mini" onClick={() => void undoDelete()} data-testid="notice-undo">
              Undo
            </button>
          )}
          <button className="icon" onClick={() => setNotice(null)} title="Dismiss">
            ✕
          </button>
        </div>
      )}
    </>
  );
}
