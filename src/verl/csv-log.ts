/** CSV exports of a verl run: W&B's wide table, TensorBoard's per-tag download, or long (step, tag, value). */
import { checkStep, keyProblem, parseValue, unmangleTag, VerlImportError, type LineParser, type Sink, type VerlFormat, type VerlImportOptions } from './log-records';

const STEP_COLUMNS = ['step', '_step', 'global_step', 'trainer/global_step'];
const TAG_COLUMNS = ['tag', 'metric', 'key', 'name'];

/** The CSV flavour of a file by its first line (the extension only breaks ties), or null. */
export function csvFormatOf(first: string, name: string): VerlFormat | null {
  if (first.includes(',') || name.toLowerCase().endsWith('.csv')) {
    const header = splitCsvRow(first).map((h) => h.trim().toLowerCase());
    if (header.length === 3 && header[0] === 'wall time' && header[1] === 'step' && header[2] === 'value') return 'tensorboard-csv';
    if (header.some((h) => STEP_COLUMNS.includes(h))) {
      if (header.includes('value') && header.some((h) => TAG_COLUMNS.includes(h))) return 'long-csv';
      return 'wandb-csv';
    }
  }
  return null;
}

/** One CSV row's cells (RFC 4180 quotes, doubled quotes inside). */
function splitCsvRow(row: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (quoted) {
      if (c === '"') {
        if (row[i + 1] === '"') {
          cur += '"';
          i++;
        } else quoted = false;
      } else cur += c;
    } else if (c === '"' && cur.trim() === '') {
      quoted = true;
      cur = '';
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/**
 * Physical lines → rows, each with the line it starts on: a row with an odd number of quotes goes
 * on on the next line (a quoted cell may span lines); blank rows are skipped.
 */
function csvRowReader(onRow: (line: number, cells: string[]) => void): LineParser {
  let lineNo = 0;
  let row: string | null = null;
  let start = 0;
  let quotes = 0;
  const finish = () => {
    if (row !== null && row.trim() !== '') onRow(start, splitCsvRow(row));
    row = null;
  };
  const count = (t: string) => {
    let n = 0;
    for (let i = t.indexOf('"'); i >= 0; i = t.indexOf('"', i + 1)) n++;
    return n;
  };
  return {
    line(raw: string) {
      lineNo++;
      const t = (lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw).replace(/\r$/, '');
      if (row !== null) {
        row += '\n' + t;
        quotes += count(t);
      } else {
        row = t;
        start = lineNo;
        quotes = count(t);
      }
      if (quotes % 2 === 0) finish();
    },
    end: finish,
  };
}

/** Every data row of a CSV export (format from csvFormatOf) into the sink; bad cells are warnings. */
export function csvParser(file: string, format: VerlFormat, opts: VerlImportOptions, sink: Sink): LineParser {
  let onRow: ((line: number, cells: string[]) => void) | null = null;
  let onEnd = () => {};
  const rows = csvRowReader((line, cells) => {
    if (onRow) onRow(line, cells);
    else [onRow, onEnd] = csvHeader(file, cells, format, opts, sink);
  });
  return { line: rows.line, end: () => (rows.end(), onEnd()) };
}

/** A CSV export's header row → the reader of its data rows, and what to say at the end. */
function csvHeader(file: string, headerCells: string[], format: VerlFormat, opts: VerlImportOptions, sink: Sink): [(line: number, cells: string[]) => void, () => void] {
  const header = headerCells.map((h) => h.trim());
  const lower = header.map((h) => h.toLowerCase());
  const warn = (line: number | null, reason: string) => sink.warnings.push({ file, line, reason });
  const num = (cells: string[], j: number, line: number): number | null | undefined => {
    const c = (cells[j] ?? '').trim();
    if (c === '') return undefined;
    const v = parseValue(c);
    if (v === null) warn(line, `column ${JSON.stringify(header[j].slice(0, 80))}: not a number: ${JSON.stringify(c.slice(0, 40))}`);
    return v;
  };

  if (format === 'tensorboard-csv') {
    const tag = opts.tag ?? tagFromFileName(file);
    const kp = keyProblem(tag);
    if (kp) throw new VerlImportError(file, `TensorBoard CSV: cannot use the tag from the file name (${kp}); name the file run-RUN-tag-TAG.csv`);
    sink.notes.push(`${file}: TensorBoard CSV of tag "${tag}"`);
    const tbRow = (line: number, cells: string[]) => {
      if (cells.length !== 3) return warn(line, `expected 3 cells (Wall time, Step, Value), got ${cells.length}`);
      const step = checkStep(cells[1].trim());
      if (typeof step === 'string') return warn(line, step);
      const wall = num(cells, 0, line);
      const v = num(cells, 2, line);
      if (wall === null || v === null) return;
      if (v === undefined) return warn(line, 'empty value');
      sink.emit({ file, line, step, values: new Map([[tag, v]]), wallS: wall !== undefined && Number.isFinite(wall) ? wall : undefined, kind: 'auto' });
    };
    return [tbRow, () => {}];
  }

  const stepCol = lower.findIndex((h) => STEP_COLUMNS.includes(h));
  if (stepCol < 0) throw new VerlImportError(file, `no step column (expected one of ${STEP_COLUMNS.join(', ')})`);

  if (format === 'long-csv') {
    const tagCol = lower.findIndex((h) => TAG_COLUMNS.includes(h));
    const valueCol = lower.indexOf('value');
    const wallCol = lower.findIndex((h) => h === 'wall_time' || h === 'wall time');
    const runCol = lower.indexOf('run');
    let firstRun: string | null = null;
    const otherRuns = new Set<string>();
    const longRow = (line: number, cells: string[]) => {
      if (cells.length !== header.length) return warn(line, `expected ${header.length} cells, got ${cells.length}`);
      if (runCol >= 0) {
        const r = cells[runCol].trim();
        if (firstRun === null) firstRun = r;
        if (r !== firstRun) return void otherRuns.add(r);
      }
      const step = checkStep(cells[stepCol].trim());
      if (typeof step === 'string') return warn(line, step);
      const tag = unmangleTag(cells[tagCol].trim());
      const kp = keyProblem(tag);
      if (kp) return warn(line, kp);
      const v = num(cells, valueCol, line);
      if (v === null) return;
      if (v === undefined) return warn(line, 'empty value');
      const wall = wallCol >= 0 ? num(cells, wallCol, line) : undefined;
      sink.emit({ file, line, step, values: new Map([[tag, v]]), wallS: typeof wall === 'number' && Number.isFinite(wall) ? wall : undefined, kind: 'auto' });
    };
    const longEnd = () => {
      if (otherRuns.size) warn(null, `several runs in one file: imported run ${JSON.stringify(firstRun)}, ignored ${[...otherRuns].map((r) => JSON.stringify(r)).join(', ')}`);
    };
    return [longRow, longEnd];
  }

  // Wide (W&B): a step column and one column per metric.
  type Col = { j: number; key: string } | { j: number; runtime: true } | { j: number; wall: true };
  const cols: Col[] = [];
  let run: string | null = null;
  const otherRuns = new Set<string>();
  let minMax = 0;
  const internal: string[] = [];
  const seen = new Map<string, number>();
  header.forEach((h, j) => {
    if (j === stepCol) return;
    if (/__(min|max)$/i.test(h)) return void minMax++;
    // W&B's chart export names a column `RUN - key`.
    let key = h;
    const sep = h.lastIndexOf(' - ');
    if (sep >= 0) {
      const r = h.slice(0, sep);
      key = h.slice(sep + 3).trim();
      if (run === null) run = r;
      if (r !== run) return void otherRuns.add(r);
    }
    const lk = key.toLowerCase();
    if (STEP_COLUMNS.includes(lk)) return;
    if (lk === '_runtime') return void cols.push({ j, runtime: true });
    if (lk === '_timestamp' || lk === 'wall time' || lk === 'wall_time') return void cols.push({ j, wall: true });
    if (key.startsWith('_')) return void internal.push(key);
    const kp = keyProblem(key);
    if (kp) return warn(1, `column ${j + 1}: ${kp}; column skipped`);
    if (seen.has(key)) return warn(1, `column ${j + 1}: "${key}" repeats column ${seen.get(key)! + 1}; column skipped`);
    seen.set(key, j);
    cols.push({ j, key });
  });
  if (minMax) sink.notes.push(`${file}: ${minMax} __MIN/__MAX column${minMax > 1 ? 's' : ''} ignored (W&B's sampling envelopes)`);
  if (internal.length) sink.notes.push(`${file}: W&B internal columns ignored: ${internal.join(', ')}`);
  if (otherRuns.size) warn(1, `several runs in one file: imported run ${JSON.stringify(run)}, ignored ${[...otherRuns].map((r) => JSON.stringify(r)).join(', ')}`);
  const wideRow = (line: number, cells: string[]) => {
    if (cells.length !== header.length) return warn(line, `expected ${header.length} cells, got ${cells.length}`);
    const step = checkStep(cells[stepCol].trim());
    if (typeof step === 'string') return warn(line, step);
    const values = new Map<string, number>();
    let runtimeS: number | undefined;
    let wallS: number | undefined;
    let bad = false;
    for (const c of cols) {
      const v = num(cells, c.j, line);
      if (v === null) {
        bad = true;
        break;
      }
      if (v === undefined) continue;
      if ('key' in c) values.set(c.key, v);
      else if ('runtime' in c) runtimeS = Number.isFinite(v) ? v : undefined;
      else wallS = Number.isFinite(v) ? v : undefined;
    }
    if (bad || values.size === 0) return;
    sink.emit({ file, line, step, values, runtimeS, wallS, kind: 'auto' });
  };
  return [wideRow, () => {}];
}

/** `run-foo-tag-actor_entropy.csv` → actor/entropy (TensorBoard's download name); else the file's stem. */
export function tagFromFileName(file: string): string {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1).replace(/\.csv$/i, '');
  const m = /(?:^|[-_])tag[-_](.+)$/.exec(base);
  return unmangleTag(m ? m[1] : base);
}

