import { useEffect, useMemo, useState } from 'react';
import { rungOf } from '../../rl/config';
import { experimentsFor, findCard } from '../lib/collapse-card';
import { experimentConfig, experimentSearch, setupRung, type Experiment } from '../lib/experiments';
import { presetAtRung, stepEstimateKey } from '../lib/rungs';
import { runsTimeText } from '../lib/run-time';
import { cardArms, cardReferenceEntries } from '../lib/try-play';
import { useLab } from '../store';
import { clearExperiment, lessonCardAt, loadExperiment, nextLessonCard, openLessonFromUrl, playCard, showCardReference } from '../teaching';
import { TryPlayLine } from './TryPlayLine';

/** Whether the editor still holds the loaded setup (a field edited since → the card says so). */
function useLoadedMatches(tryId: string | null): boolean {
  const draft = useLab((s) => s.draft);
  const preset = useLab((s) => s.preset);
  const want = useMemo(() => {
    const found = findCard(tryId);
    return found ? { preset: found.setup.rung ? presetAtRung(found.setup.preset, found.setup.rung) : found.setup.preset, json: JSON.stringify(experimentConfig(found.setup)) } : null;
  }, [tryId]);
  return useMemo(() => !!want && preset === want.preset && JSON.stringify(draft) === want.json, [want, draft, preset]);
}

/** "Try this": guided experiments, each setup one click (and a shareable link), with what to watch. */
export function TryThis() {
  const tryId = useLab((s) => s.tryId);
  const matches = useLoadedMatches(tryId);
  const loaded = findCard(tryId);
  // Opens by itself when the page was opened on a Try-this link (or a card was loaded).
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (tryId) setOpen(true);
  }, [tryId]);
  const lesson = useLab((s) => s.lesson);
  const refIndex = useLab((s) => s.referenceIndex);
  const ready = useLab((s) => s.device.status === 'ready');
  const engine = useLab((s) => (s.device.status === 'ready' ? s.device.engine.description : null));
  const estimates = useLab((s) => s.stepEstimates);
  /** A card's Run both time from each arm's rung's measured s/step (lib/run-time.ts); null until each is known. */
  const cardTime = (e: Experiment, keys?: readonly string[]) =>
    engine === null
      ? null
      : runsTimeText(
          cardArms(e, keys).map((s) => {
            // A test twin's (-tiny) model is no rung's: its time is not the rung's figure.
            const config = experimentConfig(s);
            const rung = rungOf(config);
            const est = rung === setupRung(s) ? estimates[stepEstimateKey(engine, rung)] : undefined;
            return { config, secondsPerStep: est?.status === 'ready' ? est.seconds : null };
          }),
        );
  useEffect(() => {
    void openLessonFromUrl();
  }, []);
  useEffect(() => {
    if (lesson) setOpen(true);
  }, [lesson]);
  const at = lessonCardAt(lesson);
  // A rung card (lib/collapse-card.ts) joins the list once the reference index lists its rung's runs.
  const cards = at ? [at.experiment] : experimentsFor(refIndex.status === 'ready' ? refIndex.index.entries : []);
  return (
    <details className="panel try-this" data-testid="try-this" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        Try this{loaded && <span className="hint"> · loaded: {loaded.setup.label}</span>}
      </summary>
      {lesson && at && (
        <div className="lesson-bar" data-testid="lesson">
          <strong>{lesson.lesson.title}</strong>
          <span className="hint" data-testid="lesson-step">
            {' '}
            · card {lesson.at + 1} of {lesson.lesson.cards.length}
          </span>
          {at.card.questions.length > 0 && (
            <ul className="lesson-questions" data-testid="lesson-questions">
              {at.card.questions.map((q) => (
                <li key={q}>{q}</li>
              ))}
            </ul>
          )}
          {/* A student stepping through a lesson on their own needs next as much as the teacher in class. */}
          <button className="mini" onClick={nextLessonCard} disabled={lesson.at + 1 >= lesson.lesson.cards.length} data-testid="lesson-next" title="Step to the lesson's next card">
            next ▸
          </button>
        </div>
      )}
      <p className="hint">Press Run both to train a card's arms one after another and overlay them (a finished identical run is reused), or show its reference runs instead, at once. Or load one setup and press ▶ Play. Each setup is a link: right-click to copy and share it.</p>
      <div className="try-cards">
        {cards.map((e) => {
          const active = loaded?.experiment.id === e.id;
          const keys = at?.experiment.id === e.id ? at.card.arms : undefined;
          const arms = cardArms(e, keys);
          const hasRef = refIndex.status === 'ready' && !!cardReferenceEntries(e, refIndex.index.entries, keys);
          return (
            <article key={e.id} className={`try-card${active ? ' active' : ''}`} data-testid={`try-${e.id}`}>
              <h3>{e.title}</h3>
              <p className="question">{e.question}</p>
              <div className="try-setups">
                {arms.map((s) => {
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
              <div className="buttons wrap try-play-buttons">
                <button className="mini primary-action" onClick={() => {
                    playCard(e, keys);
                    showCardChart(e.charts);
                  }} disabled={!ready} data-testid={`try-${e.id}-run`} title="Train the arms one after another (an identical finished run is reused) and overlay them">
                  ▶ Run {arms.length === 2 ? 'both' : `all ${arms.length}`}
                </button>
                {hasRef && (
                  <button className="mini" onClick={() => {
                      void showCardReference(e, keys);
                      showCardChart(e.charts);
                    }} data-testid={`try-${e.id}-reference`} title="Overlay the arms' shipped reference runs (mean over seeds, 95% bands) at once">
                    show reference runs instead
                  </button>
                )}
              </div>
              {cardTime(e, keys) && (
                <p className="hint" data-testid={`try-${e.id}-time`}>
                  Run {arms.length === 2 ? 'both' : `all ${arms.length}`}: {cardTime(e, keys)} on this engine.
                </p>
              )}
              <TryPlayLine experiment={e} />
              <ul className="watch">
                {e.watch.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
              {active && (
                <p className="hint">
                    <span data-testid="try-status">{matches ? `${loaded!.setup.label} is loaded: press ▶ Play.` : `${loaded!.setup.label} was loaded, then edited.`}</span>{' '}
                    <button className="mini" onClick={clearExperiment} title="Forget the loaded setup (the config stays)">
                      done
                    </button>
                </p>
              )}
            </article>
          );
        })}
      </div>
    </details>
  );
}

/**
 * Brings the card's first chart into view: a one-click contrast is seen, not left below the fold
 * (and charts off screen hold their redraws, lib/onscreen.ts).
 */
function showCardChart(charts: readonly string[]): void {
  const el = charts.length ? document.querySelector(`[data-testid="chart-${charts[0]}"]`) : null;
  el?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
}
