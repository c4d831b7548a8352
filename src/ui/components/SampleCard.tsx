import type { SampleRecord } from '../../rl/trainer-types';
import { tokenColours, type ColourScale } from '../lib/colour';
import { splitThink, thinkMask } from '../lib/response';
import type { TokenColour } from '../store';

/** The per-token value a colouring mode shows (NaN where the record has none). */
export function tokenValue(s: SampleRecord, i: number, mode: TokenColour): number {
  switch (mode) {
    case 'entropy':
      return s.entropy[i] ?? NaN;
    case 'logp':
      return s.logp[i] ?? NaN;
    case 'ratio':
      return s.ratio?.[i] ?? NaN;
    case 'advantage':
      return s.advantage;
    default:
      return NaN;
  }
}

const fmt = (x: number | undefined, d = 3) => (x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));

/**
 * One response of a group: reward, advantage, truncated flag, and its tokens — coloured on
 * demand (text colour chosen for contrast), forking and clipped tokens marked, a token clickable
 * to open the token view. A token is one unbreakable box: a line never splits it.
 */
export function SampleCard(props: {
  sample: SampleRecord;
  index: number;
  mode: TokenColour;
  scale: ColourScale | null;
  forks: readonly number[];
  picked: number | null;
  onPick?: (position: number) => void;
}) {
  const { sample, index, mode, scale, forks, picked, onPick } = props;
  const hasTokens = sample.tokens.length > 0;
  const parts = splitThink(sample.response);
  const mask = thinkMask(sample.tokens);
  const forkSet = new Set(forks);
  const clipped = new Set(sample.clipped ?? []);
  return (
    <div className={`sample${sample.reward > 0 ? ' good' : ''}`} data-testid="sample">
      <div className="sample-meta">
        <span className="idx">#{index + 1}</span>
        <span className={`badge ${sample.reward > 0 ? 'ok' : 'bad'}`} title="Reward from the rule-based verifier" data-testid="sample-reward">
          r = {sample.reward}
        </span>
        <span className="badge" title="Advantage Â = (r − mean) / (std + 1e-6) within the group; every token of the response gets it" data-testid="sample-advantage">
          Â = {sample.advantage >= 0 ? '+' : '−'}
          {Math.abs(sample.advantage).toFixed(2)}
        </span>
        {sample.truncated && (
          <span className="badge warn" title="Hit the max response length without EOS: reward 0" data-testid="sample-truncated">
            truncated
          </span>
        )}
      </div>
      <div
        className="response"
        data-testid="sample-response"
        onClick={(e) => {
          const el = (e.target as HTMLElement).closest<HTMLElement>('[data-pos]');
          if (el && onPick) onPick(Number(el.dataset.pos));
        }}
        // Keyboard: one token of the response is in the tab order; ← → move between tokens, Enter or Space shows its alternatives.
        onKeyDown={(e) => {
          const el = (e.target as HTMLElement).closest<HTMLElement>('[data-pos]');
          if (!el) return;
          if ((e.key === 'Enter' || e.key === ' ') && onPick) {
            e.preventDefault();
            onPick(Number(el.dataset.pos));
          } else if (e.key === 'ArrowRight' || e.key === 'ArrowLeft' || e.key === 'Home' || e.key === 'End') {
            const all = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-pos]')];
            const i = all.indexOf(el);
            const next = all[e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : i + (e.key === 'ArrowRight' ? 1 : -1)];
            if (next) {
              e.preventDefault();
              next.focus();
            }
          }
        }}
      >
        {hasTokens ? (
          sample.tokens.map((t, i) => {
            const cls = ['tok', mask[i] ? 'think' : 'answer'];
            if (t.startsWith('<') && t.length > 1) cls.push('special');
            if (forkSet.has(i)) cls.push('fork');
            if (clipped.has(i)) cls.push('clipped');
            if (picked === i) cls.push('picked');
            const v = scale ? tokenValue(sample, i, mode) : NaN;
            return (
              <span
                key={i}
                className={cls.join(' ')}
                data-pos={i}
                data-testid="token"
                role={onPick ? 'button' : undefined}
                tabIndex={onPick ? (i === (picked ?? 0) ? 0 : -1) : undefined}
                style={scale ? tokenColours(scale.colour(v)) : undefined}
                title={`${JSON.stringify(t)} at ${i}: p = ${fmt(Math.exp(sample.logp[i]))} (log p ${fmt(sample.logp[i])}), H = ${fmt(sample.entropy[i])} nats${sample.ratio ? `, ρ = ${fmt(sample.ratio[i])}` : ''}${forkSet.has(i) ? ', forking token' : ''}${clipped.has(i) ? ', clipped at the update' : ''} — click for the alternatives`}
              >
                {t}
              </span>
            );
          })
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
