import type { StageConfig } from '../../rl/config';
import { editStages } from '../lab';
import { errorField, stageErrorAt } from '../lib/fielderror';
import { isLive, useLab } from '../store';
import { StageRow } from './StageRow';
import { useFocusFlash } from './useFocusFlash';

/**
 * Add / remove / reorder stages. While a run is live, finished stages are locked; the current one
 * can still be edited (e.g. given more steps) but not removed or moved, and nothing can move
 * before it — either would rewrite where the run has been. Edits apply at the next step.
 */
export function StageEditor() {
  const stages = useLab((s) => s.draft.stages);
  const live = useLab((s) => isLive(s.runState));
  const current = useLab((s) => s.stage);
  const lockedBefore = live ? current : 0;
  // A validation error naming a stage is shown in its row; one naming the schedule as a whole under the title.
  const configError = useLab((s) => s.configError);
  const field = errorField(configError);
  const at = stageErrorAt(field);
  const update = (next: StageConfig[]) => editStages(next);
  // The stage equation's link in "How MAGIC works" points here.
  const { ref, flash } = useFocusFlash<HTMLElement>('stages');
  return (
    <section ref={ref} className={`panel stages${flash ? ' highlight' : ''}`} data-testid="stage-editor">
      <h2 title="Multi-stage training: raise the max response length when performance converges">Stage schedule</h2>
      {field === 'stages' && (
        <p className="field-error small" data-testid="stages-error">
          {configError}
        </p>
      )}
      {stages.map((s, i) => (
        <StageRow
          key={i}
          index={i}
          stage={s}
          count={stages.length}
          locked={i < lockedBefore}
          current={live && i === current}
          pinned={live && i <= current}
          abovePinned={live && i - 1 <= current}
          error={at && at.index === i && configError ? { message: configError, key: at.key } : null}
          onChange={(ns) => update(stages.map((x, j) => (j === i ? ns : x)))}
          onMove={(d) => {
            const j = i + d;
            if (j < lockedBefore || (live && Math.min(i, j) <= current) || j >= stages.length) return;
            const next = stages.slice();
            [next[i], next[j]] = [next[j], next[i]];
            update(next);
          }}
          onRemove={() => update(stages.filter((_, j) => j !== i))}
        />
      ))}
      <button
        data-testid="stage-add"
        disabled={stages.length >= 16}
        onClick={() => {
          const last = stages[stages.length - 1];
          update([...stages, { ...last, maxResponseLength: last.maxResponseLength, convergence: last.convergence ? { ...last.convergence } : null }]);
        }}
      >
        + Add stage
      </button>
    </section>
  );
}
