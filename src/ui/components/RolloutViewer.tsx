import { useDeferredValue, useMemo } from 'react';
import type { SampleRecord } from '../../rl/trainer-types';
import { useLab, type TokenColour } from '../store';
import { SampleCard } from './SampleCard';

/** The latest step's sampled groups: prompt, responses, rewards, advantages. */
export function RolloutViewer() {
  // Deferred: a new batch of samples re-renders the cards in an interruptible background render,
  // not inside the store update that delivered it (that one is synchronous).
  const samples = useDeferredValue(useLab((s) => s.samples));
  const step = useDeferredValue(useLab((s) => s.samplesStep));
  const mode = useLab((s) => s.tokenColour);
  const setMode = useLab((s) => s.setTokenColour);
  const groups = useMemo(() => {
    const m = new Map<number, SampleRecord[]>();
    for (const s of samples) m.set(s.group, [...(m.get(s.group) ?? []), s]);
    return [...m.entries()].sort((a, b) => a[0] - b[0]);
  }, [samples]);
  return (
    <section className="panel rollouts" data-testid="rollouts">
      <div className="charts-head">
        <h2>Rollouts</h2>
        <span className="hint" data-testid="rollouts-step">
          {step ? `step ${step}` : 'no rollouts yet'}
        </span>
        <span className="spacer" />
        <label title="Colour each response token by its distribution's entropy or by its sampled log-prob">
          colour tokens by{' '}
          <select value={mode} onChange={(e) => setMode(e.target.value as TokenColour)} data-testid="token-colour">
            <option value="none">nothing (think / answer)</option>
            <option value="entropy">entropy H_t</option>
            <option value="logp">log-prob (low = red)</option>
          </select>
        </label>
      </div>
      {groups.map(([g, ss]) => (
        <div className="group" key={g} data-testid="group">
          <div className="group-head">
            <span className="prompt" data-testid="group-prompt" title="Prompt">
              {ss[0].prompt}
            </span>
            <span className="hint">
              {ss[0].family} · group {g + 1} · {ss.filter((s) => s.reward > 0).length}/{ss.length} solved
            </span>
            <span className={`badge ${ss[0].kept ? 'ok' : ''}`} title="Kept by rejection sampling (groups whose rewards are all equal are dropped)">
              {ss[0].kept ? 'kept' : 'rejected'}
            </span>
          </div>
          <div className="samples">
            {ss.map((s, i) => (
              <SampleCard key={i} sample={s} mode={mode} index={i} />
            ))}
          </div>
        </div>
      ))}
    </section>
  );
}
