/**
 * What a documented command invokes, and whether it can be run as written: the part of the
 * document checker shared by the fast checks (tests/docs/commands.test.ts) and the runner
 * (scripts/docs-check.ts). Pure but for `documents`, which lists the checked files.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { splitArgs, type DocCommand } from './extract';

/** The user documents whose commands are checked. docs/benchmarks-log.md is left out: it is the history of what was run then. */
export function documents(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'benchmarks-log.md')
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'RELIABILITY.md', 'REPLICATION.md', 'BENCHMARKS.md', ...docs];
}

/** One program call of a command line (a line may chain several with &&, ; or a pipe). */
export type Invocation =
  | { kind: 'magic-lab'; sub: string; args: string[] }
  | { kind: 'npm'; script: string; args: string[] }
  | { kind: 'file'; path: string; args: string[] }
  | { kind: 'other'; words: string[] };

/** A command line's program calls: `&&`, `;` and pipes split it; a leading `VAR=value` is dropped. */
export function invocations(text: string): Invocation[] {
  const out: Invocation[] = [];
  for (const seg of segments(text)) {
    const words = splitArgs(seg);
    while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) words.shift();
    if (words.length) out.push(invocation(words));
  }
  return out;
}

function invocation(w: string[]): Invocation {
  if (w[0] === 'npx' && w[1] === 'magic-lab') return { kind: 'magic-lab', sub: w[2] ?? '', args: w.slice(3) };
  if (w[0] === 'magic-lab') return { kind: 'magic-lab', sub: w[1] ?? '', args: w.slice(2) };
  if (w[0] === 'node' && w[1] === 'scripts/webgpu-env.mjs') {
    const rest = w.slice(w[2] === '--ensure-only' ? 3 : 2);
    return rest.length ? invocation(rest) : { kind: 'file', path: w[1], args: [] };
  }
  if (w[0] === 'node' && w[1] === 'bin/magic-lab.mjs') return { kind: 'magic-lab', sub: w[2] ?? '', args: w.slice(3) };
  if (w[0] === 'npm' && w[1] === 'run') {
    const dd = w.indexOf('--');
    return { kind: 'npm', script: w[2] ?? '', args: dd >= 0 ? w.slice(dd + 1) : [] };
  }
  if (w[0] === 'npm' && (w[1] === 'start' || w[1] === 'test')) return { kind: 'npm', script: w[1], args: w.slice(2) };
  const file = (i: number) => ({ kind: 'file' as const, path: w[i], args: w.slice(i + 1) });
  if (w[0] === 'npx' && w[1] === 'tsx') return file(2);
  if ((w[0] === 'node' || w[0] === 'python3') && w[1] && !w[1].startsWith('-')) return file(1);
  if (w[0] === 'node' && w[1] === '--import' && w[2] === 'tsx') return file(3);
  if ((w[0] === 'sh' || w[0] === 'bash') && w[1]) return file(1);
  return { kind: 'other', words: w };
}

/** Splits on `&&`, `;` and ` | ` outside quotes; a `|` between alternatives of a synopsis (`| --list`) is kept. */
function segments(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (q) {
      if (c === q) q = null;
      cur += c;
      continue;
    }
    if (c === "'" || c === '"') q = c;
    const two = text.slice(i, i + 2);
    if (two === '&&' || c === ';' || (c === '|' && text[i + 1] === ' ' && text[i - 1] === ' ' && !/^\s*(--|\[)/.test(text.slice(i + 1)))) {
      out.push(cur);
      cur = '';
      if (two === '&&') i++;
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/**
 * A synopsis, not a command to run as written: optional parts ([…]), alternatives (a|b),
 * an ellipsis, or a placeholder (DIR, F.json, NAME, $i, <id>).
 */
export function isSynopsis(text: string): boolean {
  if (/[[\]…<>$]/.test(text.replace(/2>&1/g, '')) || /(^|\s)\((?!'|")|\S\|\S/.test(text)) return true;
  return splitArgs(text).some((w) => /^(?:[A-Z][A-Z0-9_]*|[A-Z][A-Z0-9_]*\.(?:json|md|mlck|jsonl)|F|N|M|P|S|T|R|I)$/.test(w.replace(/^--[\w-]+=/, '')) && !/^[A-Z_]+=/.test(w));
}

/** The flags (`--name`) an invocation's words give, `--name=value` read as `--name`. */
export const flagsOf = (args: readonly string[]) => args.filter((a) => /^--[a-z]/.test(a)).map((a) => a.replace(/=.*$/, '').replace(/[\]),]+$/, ''));

/** Paths a command or a sentence names inside the repository's tracked folders (checked to exist). */
export function repoPaths(words: readonly string[]): string[] {
  return words
    .map((w) => w.replace(/^--[\w-]+=/, '').replace(/[),.:;]+$/, ''))
    .filter((w) => /^(?:src|scripts|tests|e2e|docs|bin|shaders|deploy|public|reports)\/[\w./-]*\.\w+$/.test(w) && !/[*<>]/.test(w));
}

/** Where a command is written, for messages. */
export const at = (c: DocCommand) => `${c.file}:${c.line}`;
