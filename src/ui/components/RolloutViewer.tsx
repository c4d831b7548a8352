import { memo, useMemo, useRef, useState, type RefObject } from 'react';
import type { RunConfig } from '../../rl/config';
import { advantageScale, entropyScale, probabilityScale, ratioScale, type ColourScale } from '../lib/colour';
import { forkingTokens, GROUP_STATUS_LABEL, groupChipText, sliderSteps, summarizeGroup, type InspectedGroup, type InspectorHistory } from '../lib/inspector';
import { useOnScreen } from '../lib/onscreen';
import { rolloutsDrawn, useRedrawInterval, useStaggered } from '../lib/stagger';
import { useLab, type TokenColour } from '../store';
import { ColourLegend } from './ColourLegend';
import { SampleCard } from './SampleCard';
import { TokenView } from './TokenView';

function scaleFor(mode: TokenColour, group: InspectedGroup, cfg: RunConfig): ColourScale | null {
  const V = cfg.model.vocabSize;
  switch (mode) {
    case 'entropy':
      // Fitted to the shown group's tokens, not to ln V, which they sit far below.
      return entropyScale(V, group.samples.flatMap((s) => s.entropy));
    case 'logp':
      return probabilityScale(V);
    case 'ratio': {
      const m = Math.max(0, ...group.samples.flatMap((s) => (s.ratio ?? []).map((r) => Math.abs(Math.log(r)))).filter(Number.isFinite));
      return ratioScale(m, cfg.loss);
    }
    case 'advantage':
      return advantageScale(group.samples.length, cfg.loss.advantageStd);
    default:
      return null;
  }
}

const short = (p: string, n = 28) => (p.length > n ? `${p.slice(0, n - 1)}…` : p);

/**
 * The GRPO group inspector: a step's recorded groups (the trainer's first two plus its watched
 * prompts), one at a time with its G responses side by side — reward, advantage, kept/rejected
 * and why, truncation, tokens coloured by entropy / probability / ρ / advantage with a legend,
 * forking and clipped tokens marked — a step slider over the page's bounded history (optionally
 * following one prompt), and a token view of the policy's alternatives at a clicked position.
 */
export function RolloutViewer() {
  const latest = useLab((s) => s.inspector);
  const training = useLab((s) => s.runState === 'running' || s.runState === 'starting');
  // Like a chart (MetricChart.tsx): a new batch is drawn in its own task, at most every interval
  // (growing with what a draw costs), and not at all while the panel is off screen and training
  // runs; it catches up when scrolled into view or when the run stops (off-screen redraws cost the dev server more than the training did).
  const panel = useRef<HTMLElement>(null);
  const onScreen = useOnScreen(panel);
  const interval = useRef(ROLLOUT_REDRAW_MS);
  const history = useStaggered(latest, interval.current, undefined, rolloutsDrawn(onScreen, training));
  interval.current = useRedrawInterval(history, ROLLOUT_REDRAW_MS, 'rollouts');
  return <Inspector history={history} panel={panel} />;
}

/** The rollout viewer redraws at most this often while steps stream in. */
const ROLLOUT_REDRAW_MS = 1000;

/** The viewer itself, rendered only when the history it draws (or its own settings) change. */
const Inspector = memo(function Inspector({ history, panel }: { history: InspectorHistory; panel: RefObject<HTMLElement | null> }) {
  const mode = useLab((s) => s.tokenColour);
  const setMode = useLab((s) => s.setTokenColour);
  const draft = useLab((s) => s.draft);
  const runConfig = useLab((s) => (history.runId ? s.runs[history.runId]?.config : undefined));
  const cfg = runConfig ?? draft;
  const [pinned, setPinned] = useState<number | null>(null);
  const [selKey, setSelKey] = useState<number | null>(null);
  const [follow, setFollow] = useState(false);
  const [showForks, setShowForks] = useState(true);
  const [picked, setPicked] = useState<{ step: number; key: number; index: number; position: number } | null>(null);

  const steps = useMemo(() => sliderSteps(history, follow ? selKey : null), [history, follow, selKey]);
  // Pinned to a step while the user looks back; otherwise the newest.
  const shownStep = pinned !== null && steps.includes(pinned) ? pinned : steps.length ? steps[steps.length - 1] : null;
  const entry = history.steps.find((e) => e.step === shownStep) ?? null;
  const group = entry ? entry.groups.find((g) => g.key === selKey) ?? entry.groups[0] : null;
  const summary = useMemo(() => (group ? summarizeGroup(group.samples, { rejection: cfg.rejection.mode, truncation: cfg.truncation.mode }) : null), [group, cfg]);
  const forks = useMemo(() => (group && showForks ? forkingTokens(group.samples.map((s) => s.entropy)) : []), [group, showForks]);
  const scale = useMemo(() => (group ? scaleFor(mode, group, cfg) : null), [mode, group, cfg]);
  const seenAt = group ? history.steps.filter((e) => e.groups.some((g) => g.key === group.key)).length : 0;
  const idx = shownStep === null ? 0 : steps.indexOf(shownStep);
  const pick = picked && group && picked.step === shownStep && picked.key === group.key ? picked : null;
  const noRatio = mode === 'ratio' && group && !group.samples.some((s) => s.ratio);

  return (
    <section className="panel rollouts" data-testid="rollouts" ref={panel}>
      <div className="charts-head">
        <h2 title="GRPO group inspector: each prompt's G responses, their rewards and advantages, and what the policy saw at each token">Rollouts</h2>
        <span className="hint" data-testid="rollouts-step">
          {shownStep !== null ? `step ${shownStep}` : 'no rollouts yet'}
        </span>
        <span className="spacer" />
        <label title="Colour each response token by a per-token quantity; the legend gives the scale">
          colour tokens by{' '}
          <select value={mode} onChange={(e) => setMode(e.target.value as TokenColour)} data-testid="token-colour">
            <option value="none">nothing (think / answer)</option>
            <option value="entropy">entropy H_t</option>
            <option value="logp">probability of the token</option>
            <option value="ratio">ratio ρ after the update</option>
            <option value="advantage">advantage Â</option>
          </select>
        </label>
        <label title="Outline the group's highest-entropy tokens">
          <input type="checkbox" checked={showForks} onChange={(e) => setShowForks(e.target.checked)} data-testid="show-forks" /> forking tokens
        </label>
      </div>
      {steps.length > 0 && (
        <div className="inspector-bar">
          <label className="smoothing" title="Steps kept in this page: the last 32, and before them every 10th step and every step with a watched prompt (at most 32 more)">
            step
            <input
              type="range"
              min={0}
              max={Math.max(0, steps.length - 1)}
              step={1}
              value={idx}
              disabled={steps.length < 2}
              onChange={(e) => {
                const i = Number(e.target.value);
                setPinned(i >= steps.length - 1 ? null : steps[i]);
              }}
              data-testid="inspector-step"
              aria-label="Step"
            />
            <span className="num" data-testid="inspector-step-label">
              {shownStep} <span className="hint">({idx + 1} of {steps.length} kept{pinned === null ? ', following the newest' : ''})</span>
            </span>
          </label>
          {group && (
            <label title="Move the slider only between steps that sampled this prompt (the trainer records its two watched prompts whenever they come round)">
              <input
                type="checkbox"
                checked={follow}
                onChange={(e) => {
                  setFollow(e.target.checked);
                  setSelKey(group.key);
                }}
                data-testid="follow-prompt"
              />{' '}
              follow this prompt ({seenAt} step{seenAt === 1 ? '' : 's'})
            </label>
          )}
        </div>
      )}
      {entry && entry.groups.length > 1 && (
        <div className="group-chips" role="tablist" aria-label="Groups recorded at this step">
          {entry.groups.map((g) => {
            const s = summarizeGroup(g.samples, { rejection: cfg.rejection.mode, truncation: cfg.truncation.mode });
            return (
              <button key={g.group} role="tab" aria-selected={g === group} className={`mini group-chip${g === group ? ' on' : ''}`} onClick={() => setSelKey(g.key)} data-testid="group-chip" title={s.why}>
                <code>{short(g.prompt)}</code> {groupChipText(s)}
                {g.watched ? ' ◉' : ''}
              </button>
            );
          })}
        </div>
      )}
      {group && summary && (
        <div className="group" data-testid="group">
          <div className="group-head">
            <span className="prompt" data-testid="group-prompt" title="Prompt">
              {group.prompt}
            </span>
            <span className="hint">
              {group.family} · group {group.group + 1} · {summary.solved}/{summary.G} solved · mean r {summary.meanReward.toFixed(2)}
              {summary.truncated ? ` · ${summary.truncated} truncated` : ''}
              {group.watched ? ' · watched prompt' : ''}
            </span>
            <span className={`badge ${summary.status === 'kept' ? 'ok' : summary.status === 'surplus' ? 'warn' : 'bad'}`} data-testid="group-status" title={summary.why}>
              {GROUP_STATUS_LABEL[summary.status]}
            </span>
          </div>
          <p className="hint group-why" data-testid="group-why">
            {summary.why}
          </p>
          <ColourLegend scale={noRatio ? null : scale} forks={showForks} clipped={group.samples.some((s) => (s.clipped ?? []).length > 0)} />
          {noRatio && <p className="hint">No ρ at this step: nothing was updated (every group was rejected), or the run recorded none.</p>}
          <div className="samples inspector-grid">
            {group.samples.map((s, i) => (
              <SampleCard
                key={i}
                sample={s}
                mode={noRatio ? 'none' : mode}
                scale={noRatio ? null : scale}
                index={i}
                forks={forks[i] ?? []}
                picked={pick && pick.index === i ? pick.position : null}
                onPick={(position) => setPicked({ step: shownStep!, key: group.key, index: i, position })}
              />
            ))}
          </div>
          {pick && history.runId && <TokenView runId={history.runId} sample={group.samples[pick.index]} position={pick.position} onClose={() => setPicked(null)} />}
        </div>
      )}
    </section>
  );
});
