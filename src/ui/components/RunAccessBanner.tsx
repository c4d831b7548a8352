import { useRunAccess } from '../controller/run-access';
import { dismissRunAccess, openReadOnly } from '../lab';

/**
 * One sentence about who may write a run when several tabs have it open: another tab holds it (with the offer to open
 * it read-only), it is shown read-only, or the runs found at start are not what was saved.
 */
export function RunAccessBanner() {
  const { kind, sentence, runId } = useRunAccess();
  if (!kind || !sentence) return null;
  return (
    <div className={`banner ${kind === 'read-only' ? 'notice' : 'warning'}`} role="status" data-testid="run-access" data-kind={kind}>
      <span data-testid="run-access-sentence">{sentence}</span>
      {kind === 'locked' && runId && (
        <button className="mini" onClick={() => void openReadOnly(runId)} data-testid="run-access-read-only">
          Open read-only
        </button>
      )}
      <button className="icon" onClick={dismissRunAccess} title="Dismiss" data-testid="run-access-dismiss">
        ✕
      </button>
    </div>
  );
}
