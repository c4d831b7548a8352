import { memo, type ReactNode } from 'react';
import { CONFIG_FIELDS, getPath } from '../lib/fields';
import { shownFor } from '../lib/teach';
import { useLab } from '../store';
import { brack, Equation, fn, frac, linked, mi, mn, mo, mtext, paren, row, space, sqrt, sub, subsup, under } from './MathML';

export const PAPER_URL = 'https://arxiv.org/abs/2505.22312';
export const SKYWORK_CODE_URL = 'https://github.com/SkyworkAI/Skywork-OR1';
/**
 * Where README.md and docs/ are readable, e.g. https://github.com/<you>/magic-lab/blob/main/ —
 * set VITE_SOURCE_URL when building a page for others; without it the page names the files (they
 * are in the repository the lab runs from).
 */
const SOURCE_URL: string | undefined = import.meta.env.VITE_SOURCE_URL;

const META = new Map(CONFIG_FIELDS.map((f) => [f.path, f]));
const fmtValue = (v: unknown) => (typeof v === 'number' ? String(Number(v.toPrecision(4))) : v === null ? 'off' : Array.isArray(v) ? v.join(', ') : String(v));

/** The config fields an equation uses: one button each, with the current value; clicking shows the field. */
function FieldChips({ fields }: { fields: readonly string[] }) {
  const draft = useLab((s) => s.draft);
  const hidden = useLab((s) => s.hidden);
  const focusField = useLab((s) => s.focusField);
  const shown = shownFor(hidden);
  return (
    <ul className="eq-fields">
      {fields.map((path) => {
        const meta = META.get(path);
        const stages = path === 'stages';
        const group = meta ? `config-${meta.group}` : 'stages';
        const visible = stages ? shown('stages') : shown('config') && shown(group);
        const label = stages ? `stages: ${draft.stages.map((s) => s.maxResponseLength).join(' → ')} tokens` : `${meta?.symbol ?? path} = ${fmtValue(getPath(draft, path))}`;
        return (
          <li key={path}>
            <button
              className="eq-chip"
              data-testid={`eqlink-${path}`}
              disabled={!visible}
              title={visible ? `${meta ? `${meta.label}: ${meta.help}` : 'The stage schedule'} — click to show it` : 'Hidden in this lesson'}
              onClick={() => focusField(path)}
            >
              {label}
            </button>
          </li>
        );
      })}
    </ul>
  );
}

function Section({ id, title, children, eq, fields }: { id: string; title: string; children: ReactNode; eq?: ReactNode; fields?: readonly string[] }) {
  return (
    <section className="explain-section" data-testid={`eq-${id}`}>
      <h3>{title}</h3>
      {children}
      {eq && <div className="eq">{eq}</div>}
      {fields && <FieldChips fields={fields} />}
    </section>
  );
}

/** Live numbers from the run on the charts: e_k, c, α of its last step. */
function ControllerNow() {
  const last = useLab((s) => {
    const r = s.activeRunId ? s.runs[s.activeRunId] : undefined;
    return r?.steps[r.steps.length - 1];
  });
  if (!last) return null;
  const v = (k: string) => fmtValue((last as Record<string, number>)[k]);
  return (
    <p className="hint" data-testid="controller-now">
      At step {last.step} of the run on the charts: e_k = {v('actor/entropy')} nats, c = {v('actor/entropy_coeff')}, α = {v('actor/entropy_coeff_realized')}.
    </p>
  );
}

function DocLink({ path, children }: { path: string; children: ReactNode }) {
  return SOURCE_URL ? (
    <a href={`${SOURCE_URL}${path}`} target="_blank" rel="noreferrer">
      {children}
    </a>
  ) : (
    <code title="in the MAGIC Lab repository">{path}</code>
  );
}

/** "How MAGIC works": the recipe in plain words, the paper's equations, each linked to the config fields it uses. */
export const Explainer = memo(function Explainer() {
  const focusField = useLab((s) => s.focusField);
  const L = (node: ReactNode, field: string) => linked(node, field, focusField);
  const tgt = sub(mi('e'), mi('k'));
  return (
    <details className="panel explainer" data-testid="explainer">
      <summary>How MAGIC works</summary>
      <p className="lead">
        The lab trains a small policy to reason with reinforcement learning: it samples answers, a checker marks each right (1) or wrong (0), and the policy is nudged toward what worked. MAGIC is the recipe of{' '}
        <a href={PAPER_URL} target="_blank" rel="noreferrer">
          Skywork-OR1 (arXiv 2505.22312)
        </a>{' '}
        (<a href={SKYWORK_CODE_URL} target="_blank" rel="noreferrer">code</a>). Click a symbol or a value to find its setting. More: <DocLink path="README.md">README</DocLink>, <DocLink path="docs/">docs/</DocLink>.
      </p>

      <Section
        id="advantage"
        title="GRPO: compare answers within a group"
        fields={['rollout.groupSize', 'loss.advantageStd', 'truncation.mode']}
        eq={
          <Equation label="A_ij = (r_ij − mean_j r_i) / (std_j r_i + ε)">
            {row(
              sub(mi('A'), row(mi('i'), mi('j'))),
              mo('='),
              frac(row(sub(mi('r'), row(mi('i'), mi('j'))), mo('−'), under(fn('mean'), row(mi('j'), mo('≤'), L(mi('G'), 'rollout.groupSize'))), sub(mi('r'), mi('i'))), row(L(under(fn('std'), mi('j')), 'loss.advantageStd'), sub(mi('r'), mi('i')), mo('+'), mi('ε'))),
            )}
          </Equation>
        }
      >
        <p>
          For each prompt the policy writes a <b>group</b> of G answers. An answer's <b>advantage</b> A is how much better it scored than its group's average: right answers in a mostly-wrong group get a big push up, wrong ones in a
          mostly-right group a push down. No value network is needed — the group is the baseline.
        </p>
      </Section>

      <Section
        id="loss"
        title="The loss (Eq. 3.1) and clipping"
        fields={['loss.epsLow', 'loss.epsHigh', 'loss.aggregation', 'loss.entropy.mode', 'rollout.temperature']}
        eq={
          <Equation label="L(θ) = −(1/T_k) Σ_i Σ_j Σ_t [ min(ρ_t A_ij, clip(ρ_t, 1−ε_low, 1+ε_high) A_ij) + α_k H_t(θ) ],  ρ_t = π_θ(y_t | x, y_<t) / π_old(y_t | x, y_<t)">
            {row(
              mi('L'),
              paren(mi('θ')),
              mo('='),
              mo('−'),
              L(frac(mn('1'), sub(mi('T'), mi('k'))), 'loss.aggregation'),
              under(mo('∑'), row(mi('i'), mo(','), mi('j'), mo(','), mi('t'))),
              brack(
                fn('min'),
                paren(
                  sub(mi('ρ'), mi('t')),
                  sub(mi('A'), row(mi('i'), mi('j'))),
                  mo(','),
                  fn('clip'),
                  paren(sub(mi('ρ'), mi('t')), mo(','), mn('1'), mo('−'), L(sub(mi('ε'), mtext('low')), 'loss.epsLow'), mo(','), mn('1'), mo('+'), L(sub(mi('ε'), mtext('high')), 'loss.epsHigh')),
                  sub(mi('A'), row(mi('i'), mi('j'))),
                ),
                mo('+'),
                L(sub(mi('α'), mi('k')), 'loss.entropy.mode'),
                L(sub(mi('H'), mi('t')), 'rollout.temperature'),
                paren(mi('θ')),
              ),
              space(),
              sub(mi('ρ'), mi('t')),
              mo('='),
              frac(row(sub(mi('π'), mi('θ')), paren(sub(mi('y'), mi('t')), mo('|'), mi('x'), mo(','), sub(mi('y'), row(mo('<'), mi('t'))))), row(sub(mi('π'), mtext('old')), paren(sub(mi('y'), mi('t')), mo('|'), mi('x'), mo(','), sub(mi('y'), row(mo('<'), mi('t')))))),
            )}
          </Equation>
        }
      >
        <p>
          Every token of an answer is pushed by its answer's advantage, averaged over all tokens of the batch (1/T_k, so long answers are not favoured). ρ is how much more (or less) likely the policy now makes a token than when the
          answer was sampled; the clip stops one update from moving it past 1 ± ε. The last term is an entropy bonus, α_k H_t (below).
        </p>
      </Section>

      <Section
        id="policy"
        title="On-policy vs off-policy"
        fields={['update.miniBatches', 'update.reuseEpochs', 'loss.epsHigh']}
        eq={
          <Equation label="N_SGD = (D_R / D_T) · N_reuse">
            {row(sub(mi('N'), mtext('SGD')), mo('='), L(paren(frac(sub(mi('D'), mi('R')), sub(mi('D'), mi('T')))), 'update.miniBatches'), mo('·'), L(sub(mi('N'), mtext('reuse')), 'update.reuseEpochs'))}
          </Equation>
        }
      >
        <p>
          <b>On-policy</b> (MAGIC): each batch of answers is used for exactly one update, so ρ = 1 and the clip never acts. <b>Off-policy</b>: the batch is split into mini-batches or reused (N_SGD &gt; 1); later updates learn from
          answers an older policy wrote, ρ drifts and tokens get clipped. In the paper this made entropy collapse faster and tested worse; a higher ε_high (clip-higher) slowed that, too high blew entropy up.
        </p>
      </Section>

      <Section
        id="entropy"
        title="Entropy collapse and the adaptive controller (Eq. 3.2)"
        fields={['loss.entropy.target', 'loss.entropy.delta', 'loss.entropy.cMin', 'loss.entropy.cMax', 'loss.entropy.c0', 'loss.entropy.estimator', 'loss.entropy.gate', 'rollout.temperature']}
        eq={
          <Equation label="α_k = c_k · 1{e_k < tgt};  c_{k+1} = clamp(c_k + Δ if e_k < tgt else c_k − Δ, c_min, c_max)">
            {row(
              sub(mi('α'), mi('k')),
              mo('='),
              sub(mi('c'), mi('k')),
              mo('·'),
              mn('1'),
              row(mo('{'), L(tgt, 'loss.entropy.estimator'), mo('<'), L(mtext('tgt'), 'loss.entropy.target'), mo('}')),
              mo(';'),
              space(),
              sub(mi('c'), row(mi('k'), mo('+'), mn('1'))),
              mo('='),
              fn('clamp'),
              paren(sub(mi('c'), mi('k')), mo('±'), L(mi('Δ'), 'loss.entropy.delta'), mo(','), L(sub(mi('c'), mtext('min')), 'loss.entropy.cMin'), mo(','), L(sub(mi('c'), mtext('max')), 'loss.entropy.cMax')),
              mo(','),
              space(),
              L(sub(mi('c'), mn('0')), 'loss.entropy.c0'),
            )}
          </Equation>
        }
      >
        <p>
          Entropy e_k measures how unsure the policy is about its next token. If it <b>collapses</b>, the G answers of a group become the same: the group is all right or all wrong, every advantage is 0, and learning stalls — the
          paper's central lesson is to keep exploring. Rollouts at a high temperature τ = 1.0 help. The controller adds the entropy bonus only while e_k is below the target (+ Δ to c each such step, − Δ otherwise), so entropy is
          held near the target instead of pushed up without limit (a large constant bonus makes it blow up). Whether a collapse
          costs accuracy at this lab's scale is measured, not assumed: the Findings tab's entropy-control and collapse-hurts verdicts say what the reference runs show.
        </p>
        <ControllerNow />
      </Section>

      <Section
        id="stages"
        title="Stages: a context schedule"
        fields={['stages', 'truncation.mode']}
        eq={
          <Equation label="stage s: responses of at most L_s tokens, L_1 < L_2 < …">
            {row(mtext('stage\u00a0'), mi('s'), mo(':'), space(), mo('|'), mi('y'), mo('|'), mo('≤'), L(sub(mi('L'), mi('s')), 'stages'), mo(','), space(), sub(mi('L'), mn('1')), mo('<'), sub(mi('L'), mn('2')), mo('<'), mo('…'))}
          </Equation>
        }
      >
        <p>
          Training starts with a short response limit and raises it stage by stage (S2 on the charts). A truncated answer earns reward 0, so the first stage teaches the policy to be brief; the later one gives it room. In the paper this
          matched training long from the start at far less compute.
        </p>
      </Section>

      <Section
        id="filter"
        title="Prompt filtering and rejection sampling"
        fields={['data.offlineFilter.enabled', 'data.offlineFilter.samples', 'data.onlineFilter', 'rejection.mode']}
        eq={
          <Equation label="keep prompt i when 0 < c_i < N (c_i of N samples right); drop a group when all its rewards are equal">
            {row(mtext('keep\u00a0'), mi('i'), mtext('\u00a0if\u00a0'), mn('0'), mo('<'), sub(mi('c'), mi('i')), mo('<'), L(mi('N'), 'data.offlineFilter.samples'), mo(';'), space(), mtext('drop a group if\u00a0'), subsup(mi('r'), mi('i'), mn('1')), mo('='), mo('…'), mo('='), subsup(mi('r'), mi('i'), mi('G')))}
          </Equation>
        }
      >
        <p>
          A prompt the policy always solves, or never, teaches nothing: every group on it has advantage 0. The <b>offline filter</b> drops such prompts before training (N samples each from the starting policy), the{' '}
          <b>online filter</b> drops prompts solved in every rollout of the last stage, and <b>rejection sampling</b> drops each step's all-equal groups.
        </p>
      </Section>

      <Section
        id="eval"
        title="Measuring: held-out accuracy and its error"
        fields={['eval.k', 'eval.testProblems', 'eval.temperatures']}
        eq={
          <Equation label="avg@k = mean over P problems of the fraction right of k samples; SE = √(p(1−p)/(P·k))">
            {row(mtext('SE'), mo('='), sqrt(frac(row(mi('p'), paren(mn('1'), mo('−'), mi('p'))), row(L(mi('P'), 'eval.testProblems'), mo('·'), L(mi('k'), 'eval.k')))), space(), mtext('for\u00a0'), row(mi('p'), mo('='), mtext('avg@'), mi('k')))}
          </Equation>
        }
      >
        <p>
          Held-out problems are never trained on. avg@k is the share of k samples per problem that are right; a change smaller than about twice its standard error may be noise (the reward chart's line says which).
        </p>
      </Section>
    </details>
  );
});
