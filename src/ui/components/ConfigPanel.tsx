import { errorField, errorTarget } from '../lib/fielderror';
import { CONFIG_FIELDS, GROUP_ORDER, GROUP_TITLES, type FieldGroup } from '../lib/fields';
import { shownFor } from '../lib/teach';
import { isLive, useLab } from '../store';
import { ConfigField } from './ConfigField';

const OPEN: readonly FieldGroup[] = ['run', 'data', 'strategy', 'loss', 'entropy'];

/** Every RunConfig field, grouped as the paper groups them. Locked while a run is live (stages excepted). */
export function ConfigPanel() {
  const live = useLab((s) => isLive(s.runState));
  const error = useLab((s) => s.configError);
  const shown = shownFor(useLab((s) => s.hidden));
  const focusField = useLab((s) => s.focusField);
  const target = errorTarget(errorField(error));
  return (
    <section className="panel config" data-testid="config-panel">
      <h2>Configuration</h2>
      {live && <p className="hint">Locked while a run is live (Reset to edit). Future stages can still change below.</p>}
      {error && (
        <p className="field-error" data-testid="config-error" role="alert">
          {error}
          {/* The field itself carries the message too (ConfigField / StageRow); this takes you there. */}
          {target && (
            <>
              {' '}
              <button className="link" onClick={() => focusField(target)} data-testid="config-error-show">
                Show the field
              </button>
            </>
          )}
        </p>
      )}
      {GROUP_ORDER.filter((g) => shown(`config-${g}`)).map((g) => (
        <details key={g} open={OPEN.includes(g)} data-testid={`group-${g}`}>
          <summary>{GROUP_TITLES[g]}</summary>
          {CONFIG_FIELDS.filter((f) => f.group === g).map((f) => (
            <ConfigField key={f.path} meta={f} disabled={live} />
          ))}
        </details>
      ))}
    </section>
  );
}
