import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Untrusted content (imported runs, shared URLs, uploaded checkpoints, rollout text) must stay
// data: the page renders it through React text nodes only. This fails if any source file parses
// a string as HTML; e2e/untrusted.spec.ts checks the rendered page.
const HTML_SINKS = /dangerouslySetInnerHTML|\.innerHTML\s*=|\.outerHTML\s*=|insertAdjacentHTML|document\.write\(|createContextualFragment|DOMParser/;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx)$/.test(f) ? [p] : [];
  });
}

describe('no HTML sinks in the page', () => {
  it('no source file under src/ parses a string as HTML', () => {
    const offenders = files('src').filter((f) => HTML_SINKS.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
  });
  it('the pattern catches each sink (the check can fail)', () => {
    for (const s of ['<div dangerouslySetInnerHTML={{ __html: x }} />', 'el.innerHTML = x', 'el.insertAdjacentHTML("beforeend", x)', 'document.write(x)', 'new DOMParser()']) expect(HTML_SINKS.test(s)).toBe(true);
    expect(HTML_SINKS.test('el.textContent = x')).toBe(false);
  });
});
