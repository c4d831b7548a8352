import { useEffect, useState } from 'react';

interface Props {
  value: number | null;
  onChange(v: number | null): void;
  /** Empty input means null (else it is reported as NaN, which validation rejects). */
  nullable?: boolean;
  placeholder?: string;
  step?: number;
  min?: number;
  max?: number;
  disabled?: boolean;
  testId?: string;
  title?: string;
  className?: string;
  /** The element id (a <label htmlFor> names the field). */
  id?: string;
  /** Marked invalid (aria-invalid), described by the element with id `describedBy` (its error message). */
  invalid?: boolean;
  describedBy?: string;
}

const fmt = (v: number | null) => (v === null || Number.isNaN(v) ? '' : String(v));

/** A number field that keeps what the user types (e.g. "0." or "") while reporting parsed values. */
export function NumberInput({ value, onChange, nullable, placeholder, step, min, max, disabled, testId, title, className, id, invalid, describedBy }: Props) {
  const [text, setText] = useState(fmt(value));
  useEffect(() => {
    const parsed = text.trim() === '' ? null : Number(text);
    if (parsed !== value && !(Number.isNaN(parsed) && Number.isNaN(value))) setText(fmt(value));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [value]);
  return (
    <input
      type="number"
      id={id}
      aria-invalid={invalid || undefined}
      aria-describedby={describedBy}
      className={className}
      value={text}
      step={step ?? 'any'}
      min={min}
      max={max}
      placeholder={placeholder}
      disabled={disabled}
      title={title}
      data-testid={testId}
      onChange={(e) => {
        setText(e.target.value);
        const t = e.target.value.trim();
        onChange(t === '' ? (nullable ? null : NaN) : Number(t));
      }}
    />
  );
}
