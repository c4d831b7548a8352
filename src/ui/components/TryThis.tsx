import { useEffect, useMemo, useState } from 'react';
import { EXPERIMENTS, experimentConfig, experimentSearch, findExperiment } from '../lib/experiments';
import { useLab } from '../store';
import { clearExperiment, loadExperiment } from '../teaching';

/** Whether the editor still holds the loaded setup (a field edited since → the card says so). */
function useLoadedMatches(tryId: string | null): boolean {
  const draft = useLab((s) => s.draft);
  const preset = useLab((s) => s.preset);
  const want = useMemo(() => {
    const found = findExperiment(tryId);
    return found ? { preset: found.setup.preset, json: JSON.stringify(experimentConfig(found.setup)) } : null;
  }, [tryId]);
  return useMemo(() => !!want && preset === want.preset && JSON.stringify(draft) === want.json, [want, draft, preset]);
}

/** "Try this": guided experiments, each setup one click (and a shareable link), with what to watch. */
export function TryThis() {
  const tryId = useLab((s) => s.tryId);
  const matches = useLoadedMatches(tryId);
  const loaded = findExperiment(tryId);
  // Opens by itself when the page was opened on a Try-this link (or a card was loaded).
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (tryId) setOpen(true);
  }, [tryId]);
  return (
    <details className="panel try-this" data-testid="try-this" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Try this{loaded && <span className="hint"> · loaded: {loaded.setup.label}</span>}
      </summary>
      <p className="hint">Load a setup, press ▶ Play, then load the next one and Play again; tick the earlier run in Runs to overlay it. Each setup is a link: right-click to copy and share it.</p>
      <div className="try-cards">
        {EXPERIMENTS.map((e) => {
          const active = loaded?.experiment.id === e.id;
          return (
            <article key={e.id} className={`try-card${active ? ' active' : ''}`} data-testid={`try-${e.id}`}>
              <h3>{e.title}</h3>
              <p className="question">{e.question}</p>
              <div className="try-setups">
                {e.setups.map((s) => {
                  const on = active && loaded?.setup.key === s.key;
                  return (
                    <a
                      key={s.key}
                      className={`try-setup${on ? ' on' : ''}`}
                      href={experimentSearch(e, s, location.search)}
                      data-testid={`try-${e.id}-${s.key}`}
                      title={`Load ${s.label} (${s.preset}) into the editor`}
                      onClick={(ev) => {
                        ev.preventDefault();
                        loadExperiment(e, s);
                      }}
                    >
                      {s.label}
                    </a>
                  );
                })}
              </div>
              <ul className="watch">
                {e.watch.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
              <p className="hint">
                {e.time}
                {active && (
                  <>
                    {' · '}
                    <span data-testid="try-status">{matches ? `${loaded!.setup.label} is loaded: press ▶ Play.` : `${loaded!.setup.label} was loaded, then edited.`}</span>{' '}
                    <button className="mini" onClick={clearExperiment} title="Forget the loaded setup (the config stays)">
                      done
                    </button>
                  </>
                )}
              </p>
            </article>
          );
        })}
      </div>
    </details>
  );
}
