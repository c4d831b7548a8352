/**
 * A run's JSONL journals (metrics.jsonl, samples.jsonl) read line by line: `train --resume` cuts
 * them back to its checkpoint's step without holding a journal in memory (a 600 MB journal used to
 * be one string, past V8's limit). The kept lines go to a temp file renamed over the journal only
 * once every line has been read, so damage found late changes nothing.
 */
import { readLinesSync } from './read-file';
import { openReplacement } from './write-file';

/** A line before the last that is not a JSON record: damage resume cannot repair. */
export class JournalDamageError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
  ) {
    super(`--resume: ${file}:${line} is not a JSON record; the run's journal is damaged before its end (restore it or start a new run)`);
    this.name = 'JournalDamageError';
  }
}

export interface JournalRecord {
  record: Record<string, unknown>;
  /** The line as written (it is copied back unchanged). */
  text: string;
}

/**
 * Each record of a journal, in order. A last non-blank line that does not parse is a partial
 * append (a crash or a full disk): not yielded, and reported through `onDropped`. A bad line
 * before the last throws JournalDamageError naming file:line (when the next record is reached).
 */
export function* journalRecords(file: string, onDropped: (line: number) => void = () => {}, chunkBytes?: number): Generator<JournalRecord> {
  let lineNo = 0;
  let bad: number | null = null;
  for (const text of readLinesSync(file, '--resume', chunkBytes)) {
    lineNo++;
    if (text.trim() === '') continue;
    if (bad !== null) throw new JournalDamageError(file, bad);
    let r: unknown;
    try {
      r = JSON.parse(text);
    } catch {
      r = undefined;
    }
    if (typeof r !== 'object' || r === null || Array.isArray(r)) bad = lineNo;
    else yield { record: r as Record<string, unknown>, text };
  }
  if (bad !== null) onDropped(bad);
}

/** A journal's kept records written in full beside it, not yet in place: `commit` renames, `abort` removes. */
export interface PendingJournal {
  kept: number;
  commit(): void;
  abort(): void;
}

/**
 * Writes the records of a journal that `keep` accepts, each line as it was, to a temp file beside
 * it (streamed, every byte checked: a nearly full disk takes part of a write and says so only in
 * the count). The journal itself is unchanged until `commit`: a resume prepares every journal
 * first and renames them only when all were written, so a refusal changes none of them.
 */
export function prepareJournalCut(file: string, keep: (r: Record<string, unknown>) => boolean, onDropped?: (line: number) => void, chunkBytes?: number): PendingJournal {
  const out = openReplacement(file);
  let kept = 0;
  try {
    let buf = '';
    for (const { record, text } of journalRecords(file, onDropped, chunkBytes)) {
      if (!keep(record)) continue;
      kept++;
      buf += text + '\n';
      if (buf.length >= 1 << 20) {
        out.write(buf);
        buf = '';
      }
    }
    out.write(buf); // creates the temp file even when nothing is kept
  } catch (e) {
    out.abort();
    throw e;
  }
  return { kept, commit: () => out.commit(), abort: () => out.abort() };
}

/**
 * Rewrites a journal keeping the records `keep` accepts, each line as it was, streamed through a
 * temp file; returns how many were kept. Nothing changes when the journal is damaged (or a write fails).
 */
export function filterJournal(file: string, keep: (r: Record<string, unknown>) => boolean, onDropped?: (line: number) => void, chunkBytes?: number): number {
  const p = prepareJournalCut(file, keep, onDropped, chunkBytes);
  p.commit();
  return p.kept;
}
