import { useEffect, useMemo, useState } from 'react';
import { temperatureViews, type TemperatureView } from '../../rl/token-probs';
import type { SampleRecord } from '../../rl/trainer-types';
import { VOCAB } from '../../tasks/tokenizer';
import type { TokenProbsAnswer } from '../../worker/protocol';
import { requestTokenProbs } from '../lab';

/** The temperatures every token view shows: the held-out evaluation's two (paper: τ 0.6 and 1.0). */
export const VIEW_TEMPERATURES = [0.6, 1.0];
const TOP_K = 5;

const tokenText = (id: number) => VOCAB[id] ?? `id ${id} (unused)`;
const pct = (p: number) => (p >= 0.995 ? '100%' : p < 0.001 ? '<0.1%' : `${(p * 100).toFixed(p < 0.1 ? 1 : 0)}%`);

function Column({ view, sampled, testid, control }: { view: TemperatureView; sampled: number; testid: string; control?: React.ReactNode }) {
  return (
    <div className="alt-col" data-testid={testid} data-temperature={view.temperature}>
      <div className="alt-head">
        τ = {view.temperature.toFixed(1)} <span className="hint small">H = {view.entropy.toFixed(2)} nats</span>
      </div>
      {control}
      <ol className="alt-list">
        {view.top.map((a) => (
          <li key={a.id} className={a.id === sampled ? 'sampled' : ''} data-testid="alt">
            <code className="alt-tok">{JSON.stringify(tokenText(a.id)).slice(1, -1)}</code>
            <span className="alt-bar" style={{ width: `${Math.max(1, a.p * 100)}%` }} />
            <span className="num alt-p">{pct(a.p)}</span>
          </li>
        ))}
      </ol>
      {!view.top.some((a) => a.id === sampled) && (
        <div className="hint small">
          sampled token: {pct(view.sampledP)}
        </div>
      )}
    </div>
  );
}

/**
 * One clicked token: what the sampling policy saw there (p, H, ρ, Â), and the policy's top
 * alternatives at that position now, at τ 0.6 and 1.0 and at a τ of the user's choosing —
 * asked of the Worker (a forward pass of the run's current policy) once, reshaped here for any τ.
 */
export function TokenView({ runId, sample, position, onClose }: { runId: string; sample: SampleRecord; position: number; onClose: () => void }) {
  const [answer, setAnswer] = useState<TokenProbsAnswer | null>(null);
  const [tau, setTau] = useState(1.5);
  const sampled = VOCAB.indexOf(sample.tokens[position]);
  useEffect(() => {
    let live = true;
    setAnswer(null);
    void requestTokenProbs({ runId, prompt: sample.prompt, tokens: sample.tokens, position, temperatures: VIEW_TEMPERATURES, k: TOP_K }).then((a) => live && setAnswer(a));
    return () => {
      live = false;
    };
  }, [runId, sample, position]);
  const custom = useMemo(() => (answer && 'logp' in answer ? temperatureViews(answer.logp, [tau], TOP_K, sampled)[0] : null), [answer, tau, sampled]);
  const t = sample.tokens[position];
  return (
    <div className="token-view" data-testid="token-view">
      <div className="token-view-head">
        <strong>
          token <code>{JSON.stringify(t)}</code> at position {position}
        </strong>
        <span className="hint">
          when sampled (step {sample.step}): p = {pct(Math.exp(sample.logp[position]))}, H = {sample.entropy[position].toFixed(2)} nats
          {sample.ratio && `, ρ = ${sample.ratio[position].toFixed(3)} after the update`}, Â = {sample.advantage.toFixed(2)}
          {sample.clipped?.includes(position) && ', clipped at the update'}
        </span>
        <span className="spacer" />
        <button className="mini" onClick={onClose} aria-label="Close the token view">
          ×
        </button>
      </div>
      {!answer && <p className="hint">asking the policy…</p>}
      {answer && 'error' in answer && (
        <p className="hint" data-testid="token-view-error">
          No alternatives: {answer.error}.
        </p>
      )}
      {answer && 'logp' in answer && (
        <>
          <p className="hint small" data-testid="token-view-policy">
            The policy now (after step {answer.step}){answer.step !== sample.step ? `, not the one that sampled it at step ${sample.step}` : ''}: its most likely next tokens after this prefix. A low τ sharpens the distribution, a high τ flattens it.
          </p>
          <div className="alt-cols">
            {answer.views.map((v) => (
              <Column key={v.temperature} view={v} sampled={sampled} testid="alt-col" />
            ))}
            {custom && (
              <Column
                view={custom}
                sampled={sampled}
                testid="alt-col-custom"
                control={
                  <input type="range" className="alt-tau" min={0.1} max={3} step={0.1} value={tau} onChange={(e) => setTau(Number(e.target.value))} data-testid="alt-temperature" aria-label="Temperature τ" title="Drag: this column at any τ" />
                }
              />
            )}
          </div>
        </>
      )}
    </div>
  );
}
