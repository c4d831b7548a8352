import { DEFAULT_CONVERGENCE, type StageConfig } from '../../rl/config';
import { STAGE_INPUTS } from '../lib/fielderror';
import { NumberInput } from './NumberInput';

interface Props {
  index: number;
  stage: StageConfig;
  count: number;
  /** Finished stages of the live run cannot change. */
  locked: boolean;
  current: boolean;
  /** The stage cannot be removed, and nothing can move before it: the run has already reached it (its history). */
  pinned: boolean;
  /** The stage above is pinned, so this one cannot move earlier. */
  abovePinned: boolean;
  onChange(s: StageConfig): void;
  onMove(delta: -1 | 1): void;
  onRemove(): void;
  /** The draft's validation error when it names this stage, and the stage field it names (`convergence.window`; '' for the stage as a whole). */
  error?: { message: string; key: string } | null;
}

/** One stage: max response length, fixed steps or convergence rule, D_R, G, τ (empty = rollout default). */
export function StageRow({ index, stage, count, locked, current, pinned, abovePinned, onChange, onMove, onRemove, error = null }: Props) {
  const t = (k: string) => `stage-${index}-${k}`;
  // The input the error names is marked invalid and described by the message under the row.
  const bad = error ? STAGE_INPUTS[error.key.replace(/\[\d+\]$/, '')] : undefined;
  const inv = (k: string) => (bad === k ? { invalid: true, describedBy: t('error') } : {});
  const set = (patch: Partial<StageConfig>) => onChange({ ...stage, ...patch });
  const conv = stage.convergence;
  return (
    <div className={`stage-row${current ? ' current' : ''}${locked ? ' locked' : ''}${error ? ' invalid' : ''}`} data-testid={`stage-${index}`}>
      <div className="stage-head">
        <b>Stage {index + 1}</b>
        {current && <span className="tag">now</span>}
        {locked && <span className="tag done">done</span>}
        <span className="spacer" />
        <button className="icon" data-testid={t('up')} disabled={pinned || abovePinned || index === 0} onClick={() => onMove(-1)} title="Move earlier">
          ↑
        </button>
        <button className="icon" data-testid={t('down')} disabled={pinned || index === count - 1} onClick={() => onMove(1)} title="Move later">
          ↓
        </button>
        <button className="icon" data-testid={t('remove')} disabled={pinned || count === 1} onClick={onRemove} title="Remove this stage">
          ✕
        </button>
      </div>
      <div className="stage-grid">
        <label title="Max response length in tokens (raised stage by stage, as 8K → 16K → 32K in the paper)">
          max len
          <NumberInput value={stage.maxResponseLength} onChange={(v) => set({ maxResponseLength: v as number })} step={1} disabled={locked} testId={t('maxlen')} {...inv('maxlen')} />
        </label>
        <label title="End the stage after a fixed number of steps, or when train accuracy plateaus">
          ends
          <select
            value={conv ? 'convergence' : 'steps'}
            disabled={locked}
            data-testid={t('mode')}
            aria-invalid={bad === 'mode' || undefined}
            aria-describedby={bad === 'mode' ? t('error') : undefined}
            onChange={(e) => (e.target.value === 'steps' ? set({ steps: conv?.maxSteps ?? 100, convergence: null }) : set({ steps: null, convergence: { ...DEFAULT_CONVERGENCE } }))}
          >
            <option value="steps">after steps</option>
            <option value="convergence">on plateau</option>
          </select>
        </label>
        {conv === null ? (
          <label title="Stage length in steps">
            steps
            <NumberInput value={stage.steps} onChange={(v) => set({ steps: v as number })} step={1} disabled={locked} testId={t('steps')} {...inv('steps')} />
          </label>
        ) : (
          <>
            <label title="W: window (steps) of the plateau test: mean(last W) − mean(previous W) < δ">
              W
              <NumberInput value={conv.window} onChange={(v) => set({ convergence: { ...conv, window: v as number } })} step={1} disabled={locked} testId={t('window')} {...inv('window')} />
            </label>
            <label title="δ: smallest improvement of the windowed train accuracy that still counts">
              δ
              <NumberInput value={conv.minImprovement} onChange={(v) => set({ convergence: { ...conv, minImprovement: v as number } })} step={0.005} disabled={locked} testId={t('delta')} {...inv('delta')} />
            </label>
            <label title="Hard cap on the stage length">
              max steps
              <NumberInput value={conv.maxSteps} onChange={(v) => set({ convergence: { ...conv, maxSteps: v as number } })} step={1} disabled={locked} testId={t('maxsteps')} {...inv('maxsteps')} />
            </label>
          </>
        )}
        <label title="D_R: prompts per rollout batch (empty = the rollout default)">
          D_R
          <NumberInput value={stage.batchPrompts} nullable placeholder="default" onChange={(v) => set({ batchPrompts: v })} step={1} disabled={locked} testId={t('batch')} {...inv('batch')} />
        </label>
        <label title="G: responses per prompt (empty = the rollout default)">
          G
          <NumberInput value={stage.groupSize} nullable placeholder="default" onChange={(v) => set({ groupSize: v })} step={1} disabled={locked} testId={t('group')} {...inv('group')} />
        </label>
        <label title="τ: rollout temperature (empty = the rollout default)">
          τ
          <NumberInput value={stage.temperature} nullable placeholder="default" onChange={(v) => set({ temperature: v })} step={0.05} disabled={locked} testId={t('temp')} {...inv('temp')} />
        </label>
      </div>
      {error && (
        <p className="field-error small" id={t('error')} data-testid={t('error')}>
          {error.message}
        </p>
      )}
    </div>
  );
}
