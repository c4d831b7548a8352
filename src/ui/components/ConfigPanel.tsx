import { useEffect, useState } from 'react';
import { errorField, errorTarget } from '../lib/fielderror';
import { CONFIG_FIELDS, GROUP_ORDER, GROUP_TITLES, type FieldGroup } from '../lib/fields';
import { shownFor } from '../lib/teach';
import { isLive, useLab } from '../store';
import { ConfigField } from './ConfigField';

const OPEN: readonly FieldGroup[] = ['run', 'data', 'strategy', 'loss', 'entropy'];
/** Below this width the configuration is one collapsed box after the charts (style.css puts it there). */
export const COLLAPSE_QUERY = '(max-width: 700px)';

/** Whether the screen is as narrow as `query`, kept up to date as the window changes. */
function useMedia(query: string): boolean {
  const [on, setOn] = useState(() => typeof matchMedia === 'function' && matchMedia(query).matches);
  useEffect(() => {
    if (typeof matchMedia !== 'function') return;
    const m = matchMedia(query);
    const update = () => setOn(m.matches);
    update();
    m.addEventListener('change', update);
    return () => m.removeEventListener('change', update);
  }, [query]);
  return on;
}

/** Every RunConfig field, grouped as the paper groups them. Locked while a run is live (stages excepted). */
export function ConfigPanel() {
  const live = useLab((s) => isLive(s.runState));
  const error = useLab((s) => s.configError);
  const shown = shownFor(useLab((s) => s.hidden));
  const focusField = useLab((s) => s.focusField);
  const target = errorTarget(errorField(error));
  const narrow = useMedia(COLLAPSE_QUERY);
  const body = (
    <>
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
    </>
  );
  // On a phone: collapsed until asked for (an error's "Show the field" opens it, useFocusFlash).
  if (narrow)
    return (
      <details className="panel config" data-testid="config-panel">
        <summary className="config-summary">
          <h2>Configuration</h2>
          {error && <span className="field-error small">has an error</span>}
        </summary>
        {body}
      </details>
    );
  return (
    <section className="panel config" data-testid="config-panel">
      <h2>Configuration</h2>
      {body}
    </section>
  );
}
