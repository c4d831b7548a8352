import { memo } from 'react';
import { overlayReference } from '../lab';
import { groupByRung, type ReferenceIndexEntry } from '../lib/reference';
import { useLab } from '../store';
import { VerdictBadge } from './VerdictBadge';

const stepsText = (steps: number | null) => (steps === null ? 'whole schedule' : `${steps} steps`);
export const seedsText = (seeds: number[]) => (seeds.length === 0 ? 'no seeds' : seeds.length === 1 ? `seed ${seeds[0]}` : `${seeds.length} seeds (${seeds[0]}–${seeds[seeds.length - 1]})`);

function ReferenceRow({ entry }: { entry: ReferenceIndexEntry }) {
  const selected = useLab((s) => s.overlayReference === entry.name);
  const file = useLab((s) => s.referenceFiles[entry.name]);
  return (
    <li className={`run reference${selected ? ' active' : ''}`} data-testid="reference-row" data-reference={entry.name}>
      <div className="run-line">
        <input
          type="checkbox"
          checked={selected}
          onChange={() => overlayReference(selected ? null : entry.name)}
          data-testid="reference-overlay"
          aria-label={`Overlay the reference ${entry.title}`}
          title="Overlay this reference's mean curves and 95% bands on the charts"
        />
        <span className="run-name" title={entry.title} data-testid="reference-title">
          {entry.title}
        </span>
        {entry.verdict && <VerdictBadge verdict={entry.verdict} />}
      </div>
      <div className="hint small reference-meta">
        {entry.presets.join(', ')} · {seedsText(entry.seeds)} · {stepsText(entry.steps)}
      </div>
      {selected && file?.status === 'loading' && <div className="hint small">loading…</div>}
      {file?.status === 'error' && (
        <div className="field-error small" data-testid="reference-error">
          {file.message}
        </div>
      )}
    </li>
  );
}

/** The reference runs shipped with the page (public/reference/): tick one to overlay its bands. */
// Memoised (no props): the Runs panel re-renders on every metrics batch; this list has nothing new then.
export const ReferenceRuns = memo(function ReferenceRuns() {
  const idx = useLab((s) => s.referenceIndex);
  const seeds = useLab((s) => s.referenceSeeds);
  const toggleSeeds = useLab((s) => s.toggleReferenceSeeds);
  const setView = useLab((s) => s.setView);
  return (
    <div className="reference-runs" data-testid="reference-runs">
      <h3>Reference runs</h3>
      {idx.status === 'loading' && <p className="hint">Loading…</p>}
      {idx.status === 'error' && (
        <p className="field-error small" data-testid="reference-error">
          {idx.message}
        </p>
      )}
      {idx.status === 'ready' && idx.index.entries.length === 0 && (
        <p className="hint" data-testid="reference-empty">
          No reference runs yet.
        </p>
      )}
      {idx.status === 'ready' && idx.index.entries.length > 0 && (
        <>
          {groupByRung(idx.index.entries).map((g, _, all) => (
            <div key={g.rung} data-testid="reference-rung" data-rung={g.rung}>
              {all.length > 1 && <h4 className="reference-rung">{g.rung} rung</h4>}
              <ul className="run-list">
                {g.entries.map((e) => (
                  <ReferenceRow key={e.name} entry={e} />
                ))}
              </ul>
            </div>
          ))}
          <div className="buttons wrap">
            <label className="hint small">
              <input type="checkbox" checked={seeds} onChange={toggleSeeds} data-testid="reference-seeds" /> per-seed curves
            </label>
            <button className="mini" onClick={() => setView('findings')} data-testid="open-findings">
              Findings…
            </button>
          </div>
        </>
      )}
    </div>
  );
});
