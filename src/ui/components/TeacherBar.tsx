import { useState } from 'react';
import { HIDEABLE, studentSearch, teachingFromUrl } from '../lib/teach';
import { useLab } from '../store';
import { setHidden } from '../teaching';

/** Teacher mode (teacher=1): tick what students should not see, and copy their link. */
export function TeacherBar() {
  const hidden = useLab((s) => s.hidden);
  // Re-render when the config (hence the URL) changes: the students' link is read from the address bar.
  useLab((s) => s.draft);
  useLab((s) => s.preset);
  useLab((s) => s.rung);
  const [copied, setCopied] = useState(false);
  const link = `${location.origin}${location.pathname}${studentSearch(location.search)}`;
  const unknown = teachingFromUrl(location.search).unknown;
  const toggle = (id: string, on: boolean) => setHidden(on ? [...hidden, id] : hidden.filter((x) => x !== id));
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(link);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      (document.querySelector('[data-testid="student-link"]') as HTMLInputElement | null)?.select();
    }
  };
  return (
    <section className="panel teacher-bar" data-testid="teacher-bar">
      <div className="teacher-head">
        <b>Teacher mode</b>
        <span className="hint">Tick what students should not see (it disappears here too), set up the lesson, then share their link.</span>
      </div>
      <div className="hide-grid">
        {HIDEABLE.map((h) => (
          <label key={h.id} className="chip">
            <input type="checkbox" checked={hidden.includes(h.id)} onChange={(e) => toggle(h.id, e.target.checked)} data-testid={`hide-${h.id}`} />
            {h.label}
          </label>
        ))}
      </div>
      <div className="teacher-link">
        <label htmlFor="student-link">Students' link</label>
        <input id="student-link" data-testid="student-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
        <button onClick={copy}>{copied ? 'Copied' : 'Copy'}</button>
      </div>
      {unknown.length > 0 && <p className="hint">Not a control, ignored: {unknown.join(', ')}.</p>}
    </section>
  );
}
