import type { SampleRecord } from '../../rl/trainer-types';
import { heat, splitThink, thinkMask } from '../lib/response';
import type { TokenColour } from '../store';

/** ln(32): entropy of a uniform next-token distribution over the 32-token vocabulary. */
const MAX_ENTROPY = Math.log(32);

function tokenStyle(s: SampleRecord, i: number, mode: TokenColour): React.CSSProperties | undefined {
  if (mode === 'entropy') return { background: heat((s.entropy[i] ?? 0) / MAX_ENTROPY, 265) };
  if (mode === 'logp') return { background: heat(1 - Math.exp(s.logp[i] ?? 0), 0) };
  return undefined;
}

/** One response: think block and answer distinguished, reward, advantage, truncated flag; tokens coloured on demand. */
export function SampleCard({ sample, mode, index }: { sample: SampleRecord; mode: TokenColour; index: number }) {
  const hasTokens = sample.tokens.length > 0;
  const parts = splitThink(sample.response);
  const mask = thinkMask(sample.tokens);
  return (
    <div className={`sample${sample.reward > 0 ? ' good' : ''}`} data-testid="sample">
      <div className="sample-meta">
        <span className="idx">#{index + 1}</span>
        <span className={`badge ${sample.reward > 0 ? 'ok' : 'bad'}`} title="Reward from the rule-based verifier" data-testid="sample-reward">
          r = {sample.reward}
        </span>
        <span className="badge" title="Advantage A = (r − mean) / (std + 1e-6) within the group" data-testid="sample-advantage">
          A = {sample.advantage.toFixed(2)}
        </span>
        {sample.truncated && (
          <span className="badge warn" title="Hit the max response length without EOS" data-testid="sample-truncated">
            truncated
          </span>
        )}
      </div>
      <div className="response" data-testid="sample-response">
        {hasTokens && mode !== 'none' ? (
          sample.tokens.map((t, i) => (
            <span
              key={i}
              className={`tok${mask[i] ? ' think' : ' answer'}${t.startsWith('<') && t.length > 1 ? ' special' : ''}`}
              style={tokenStyle(sample, i, mode)}
              title={`${JSON.stringify(t)}  log p = ${(sample.logp[i] ?? NaN).toFixed(3)}  H = ${(sample.entropy[i] ?? NaN).toFixed(3)}`}
            >
              {t}
            </span>
          ))
        ) : (
          <>
            {(parts.think || sample.response.includes('<think>')) && (
              <span className="think" data-testid="sample-think">
                <span className="special">&lt;think&gt;</span>
                {parts.think}
                {parts.closed && <span className="special">&lt;/think&gt;</span>}
              </span>
            )}
            <span className="answer" data-testid="sample-answer">
              {parts.answer}
            </span>
          </>
        )}
      </div>
    </div>
  );
}
