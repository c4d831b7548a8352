import { presetNames } from '../../rl/config';
import { isLive, useLab } from '../store';
import { RungPicker } from './RungPicker';

export const PRESET_HELP: Record<string, string> = {
  magic: "MAGIC: Skywork-OR1's final recipe (multi-stage, adaptive entropy, rejection sampling, τ = 1, on-policy).",
  grpo: 'Vanilla GRPO: per-sequence mean, k3 KL β = 1e-3, no filtering, no entropy term, no rejection.',
  'temp-0.6': 'Ablation: rollout temperature 0.6 (entropy starts low and learning stalls).',
  'off-policy-nsgd4': 'Ablation: 4 mini-batches per rollout batch (exactly N_SGD = 4 optimizer steps per RL step) — entropy collapses faster.',
  'kl-on': 'Ablation: KL penalty β = 1e-3 in the later stage, against the policy at its start (stalls later-stage gains).',
  'adv-mask-before': 'Ablation: truncated responses excluded from group statistics, advantage 0.',
  'adv-mask-after': 'Ablation: truncated responses in the statistics, then advantage 0.',
  'no-rejection': 'Ablation: keep zero-advantage groups.',
  'single-stage': 'Ablation: one stage at the final length for the same total steps.',
  'entropy-off': 'Ablation: magic with the entropy term off and nothing else — the no-control twin that shows what adaptive entropy control prevents.',
  'const-entropy-small': 'Ablation: a small constant entropy coefficient α = 0.02 instead of adaptive control (in the paper a small constant still let entropy collapse).',
  'const-entropy-large': 'Ablation: a large constant entropy coefficient α = 0.5 instead of adaptive control (entropy explodes).',
  'clip-high-0.25': 'Ablation: off-policy-nsgd4 with ε_high = 0.25 (moderate clip-higher slowed entropy collapse in the paper).',
  'clip-high-0.28': 'Ablation: off-policy-nsgd4 with ε_high = 0.28 (DAPO clip-higher; entropy blew up in the paper).',
};

export const presetHelp = (name: string) => {
  const tiny = name.endsWith('-tiny');
  const h = PRESET_HELP[tiny ? name.slice(0, -5) : name] ?? name;
  return tiny ? `${h} Tiny model and run, for quick tests.` : h;
};

export function PresetPicker() {
  const preset = useLab((s) => s.preset);
  const setPreset = useLab((s) => s.setPreset);
  const live = useLab((s) => isLive(s.runState));
  return (
    <div className="preset" title={presetHelp(preset)}>
      <label htmlFor="preset">Preset</label>
      <select id="preset" data-testid="preset" value={preset} disabled={live} onChange={(e) => setPreset(e.target.value)}>
        {presetNames().map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
      <p className="hint" data-testid="preset-help">
        {presetHelp(preset)}
      </p>
      <RungPicker />
    </div>
  );
}
