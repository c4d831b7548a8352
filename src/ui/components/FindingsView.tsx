import { useEffect } from 'react';
import { loadReference } from '../lab';
import { paperOrder, verdictText, type ReferenceIndexEntry } from '../lib/reference';
import { useLab } from '../store';
import { FindingCard } from './FindingCard';
import { VerdictBadge } from './VerdictBadge';

/**
 * The Findings view: every finding (and sweep) of public/reference/ with the paper's claim, the
 * reference curves with their bands, the verdict and its rule, and a button that runs the
 * finding's presets × seeds here, drawn over the bands as they arrive.
 */
export function FindingsView() {
  const idx = useLab((s) => s.referenceIndex);
  const selected = useLab((s) => s.selectedFinding);
  const select = useLab((s) => s.selectFinding);
  // The paper's order: findings 1–7, then the other findings, then the sweeps.
  const entries = idx.status === 'ready' ? paperOrder(idx.index.entries) : [];
  const shown: ReferenceIndexEntry | undefined = entries.find((e) => e.name === selected) ?? entries[0];
  const entriesKey = entries.map((e) => e.name).join(',');
  // Claims and verdicts are in the files: fetch each once (a few KB each).
  useEffect(() => {
    for (const e of entries) void loadReference(e.name);
  }, [entriesKey]);
  return (
    <section className="panel findings" data-testid="findings">
      <div className="charts-head">
        <h2>Findings</h2>
        <span className="hint">The paper's findings as reproduced by sweeps over seeds (mean ± 95% band), and the runs you make here.</span>
      </div>
      {idx.status === 'loading' && <p className="hint">Loading reference runs…</p>}
      {idx.status === 'error' && (
        <p className="field-error" data-testid="reference-error">
          {idx.message}
        </p>
      )}
      {idx.status === 'ready' && entries.length === 0 && (
        <div data-testid="findings-empty">
          <p>No reference runs yet.</p>
          <p className="hint">
            They are made by the sweeps: <code>magic-lab ablate FINDING --reference</code> (or <code>magic-lab sweep … --reference NAME</code>) writes
            public/reference/ and its index; see docs/sweeps.md.
          </p>
        </div>
      )}
      {entries.length > 0 && (
        <>
          <div className="finding-tabs" role="tablist">
            {entries.map((e) => (
              <button key={e.name} role="tab" aria-selected={e.name === shown?.name} className={`mini${e.name === shown?.name ? ' on' : ''}`} onClick={() => select(e.name)} data-testid="finding-tab" data-reference={e.name}>
                {e.kind === 'finding' ? e.title : `${e.title} (sweep)`}
                {e.verdict && <> · {verdictText(e.verdict)}</>}
              </button>
            ))}
          </div>
          {shown && <FindingEntry key={shown.name} entry={shown} />}
        </>
      )}
    </section>
  );
}

function FindingEntry({ entry }: { entry: ReferenceIndexEntry }) {
  const file = useLab((s) => s.referenceFiles[entry.name]);
  if (!file || file.status === 'loading') return <p className="hint">Loading {entry.file}…</p>;
  if (file.status === 'error')
    return (
      <div className="finding" data-testid="finding">
        <h3>
          {entry.title} {entry.verdict && <VerdictBadge verdict={entry.verdict} />}
        </h3>
        <p className="field-error" data-testid="reference-error">
          {file.message}
        </p>
      </div>
    );
  return <FindingCard reference={file.file} />;
}
