/**
 * Code comments under src/ and the user documents (README.md, docs/ but its history log,
 * RELIABILITY.md, REPLICATION.md, BENCHMARKS.md) say why in words, not by an internal issue number
 * ("issue #28 item 5", "(#14)"): a reader has no access to the tracker, and the number explains
 * nothing. History, with its numbers, is docs/benchmarks-log.md. CSS colours (#1d2330) and hex
 * literals are not issue numbers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documents } from '../../scripts/docs-check/plan';

const ROOT = join(import.meta.dirname, '../..');
const files = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.(ts|tsx|css|wgsl|mjs)$/.test(e.name) ? [join(dir, e.name)] : []));

/** An issue cited by number: "issue 22", "issue #27", "#28 item 6", "(#14)", ", #14)". */
export const ISSUE_NUMBER = /\bissues? #?\d+|#\d+ item|[(,;]\s*#\d{1,3}\b(?![0-9a-fA-F])/i;

describe('no internal issue numbers in code comments', () => {
  it('the pattern finds the ways they were written, and not colours', () => {
    for (const s of ['(issue #27)', '(issue 22)', '(#28 item 6: …)', 'cannot be wedged, #14)', '(#14)']) expect(s).toMatch(ISSUE_NUMBER);
    for (const s of ['color: #1d2330;', "fill: '#666'", 'background: #fff', 'stroke="#e5e7eb"']) expect(s).not.toMatch(ISSUE_NUMBER);
  });
  it('none under src/', () => {
    const hits = files('src').flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (ISSUE_NUMBER.test(l) ? [`${f}:${i + 1}: ${l.trim().slice(0, 100)}`] : [])),
    );
    expect(hits).toEqual([]);
  });
  it('none in the user documents', () => {
    const hits = documents(ROOT).flatMap((f) =>
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .flatMap((l, i) => (ISSUE_NUMBER.test(l) ? [`${f}:${i + 1}: ${l.trim().slice(0, 100)}`] : [])),
    );
    expect(hits).toEqual([]);
  });
});
