import { errorField, errorIsIn } from '../lib/fielderror';
import { ALL_FAMILIES, getPath, type FieldMeta } from '../lib/fields';
import { useLab } from '../store';
import { NumberInput } from './NumberInput';
import { useFocusFlash } from './useFocusFlash';

/**
 * One RunConfig field: paper symbol, label (tied to its input; hover: one-line explanation) and its
 * input. When the draft's validation error names this field, the input is marked invalid and the
 * message is shown beside it (aria-describedby).
 */
export function ConfigField({ meta, disabled }: { meta: FieldMeta; disabled: boolean }) {
  const value = useLab((s) => getPath(s.draft, meta.path));
  const error = useLab((s) => (errorIsIn(errorField(s.configError), meta.path) ? s.configError : null));
  const setField = useLab((s) => s.setField);
  // An equation link in "How MAGIC works" points here: opened, scrolled to, focused, highlighted.
  const { ref, flash } = useFocusFlash<HTMLDivElement>(meta.path);
  const id = `field-${meta.path}`;
  const errorId = `${id}-error`;
  const aria = { 'aria-invalid': error ? true : undefined, 'aria-describedby': error ? errorId : undefined };
  const set = (v: unknown) => setField(meta.path, v);
  const inp = meta.input;
  let control: React.ReactNode;
  switch (inp.kind) {
    case 'int':
    case 'number':
    case 'nullable-number':
      control = (
        <NumberInput
          value={value as number | null}
          onChange={set}
          nullable={inp.kind === 'nullable-number'}
          placeholder={inp.kind === 'nullable-number' ? 'off' : undefined}
          step={inp.kind === 'int' ? 1 : inp.step}
          min={inp.min}
          disabled={disabled}
          testId={id}
          id={id}
          invalid={!!error}
          describedBy={error ? errorId : undefined}
          title={meta.help}
        />
      );
      break;
    case 'bool':
      control = <input type="checkbox" id={id} {...aria} checked={Boolean(value)} onChange={(e) => set(e.target.checked)} disabled={disabled} data-testid={id} title={meta.help} />;
      break;
    case 'select':
      control = (
        <select id={id} {...aria} value={String(value)} onChange={(e) => set(e.target.value)} disabled={disabled} data-testid={id} title={meta.help}>
          {inp.options.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      );
      break;
    case 'families': {
      const fams = (value as string[]) ?? [];
      control = (
        <span className="chips" id={id} role="group" aria-labelledby={`${id}-label`} {...aria} data-testid={id} title={meta.help}>
          {ALL_FAMILIES.map((f) => (
            <label key={f} className="chip">
              <input
                type="checkbox"
                checked={fams.includes(f)}
                disabled={disabled}
                onChange={(e) => set(e.target.checked ? ALL_FAMILIES.filter((x) => x === f || fams.includes(x)) : fams.filter((x) => x !== f))}
              />
              {f}
            </label>
          ))}
        </span>
      );
      break;
    }
    case 'number-list':
      control = (
        <input
          type="text"
          id={id}
          {...aria}
          defaultValue={((value as number[]) ?? []).join(', ')}
          key={((value as number[]) ?? []).join(',')}
          disabled={disabled}
          data-testid={id}
          title={meta.help}
          onBlur={(e) => set(e.target.value.split(',').map((x) => (x.trim() === '' ? NaN : Number(x))))}
        />
      );
      break;
  }
  return (
    <div ref={ref} className={`field field-${inp.kind}${flash ? ' highlight' : ''}${error ? ' invalid' : ''}`} title={meta.help} data-field={meta.path}>
      {/* The families' chips are a group of checkboxes (each labelled by its family): the label names the group. */}
      {inp.kind === 'families' ? (
        <span className="label" id={`${id}-label`}>
          <span className="symbol">{meta.symbol}</span> {meta.label}
        </span>
      ) : (
        <label htmlFor={id}>
          <span className="symbol">{meta.symbol}</span> {meta.label}
        </label>
      )}
      {control}
      {error && (
        <p className="field-error small field-message" id={errorId} data-testid={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
