/**
 * `magic-lab import-verl LOG [LOG…] --out RUNFILE`: a cluster run (verl's console log, a W&B /
 * TensorBoard CSV export, JSONL metrics; several files merge by step) → a MAGIC Lab run file, the
 * JSONL the page's "Import run…" reads. The reading is src/verl/import.ts, shared with the page.
 *
 * Skipped lines go to stderr as `file:line: reason` (at most --max-warnings, then a count); the
 * summary and the import rules applied go to stdout. A file that cannot be read or holds nothing
 * usable is a usage error (exit 2, one line naming the file).
 */
import { mkdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { validateRunConfig } from '../rl/config';
import { importRunFiles, RunFileError, runToJsonl } from '../io/runfile';
import { isLabRunFile, writeImportedRunJsonl } from '../io/runfile-stream';
import { FileReadError, readLinesSync } from '../run/read-file';
import { explainFsCode, openReplacement } from '../run/write-file';
import { warningLines, type VerlLineSource } from '../verl/import';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { nodeHostLimits } from './resources';

export const IMPORT_VERL_FLAGS: Record<string, FlagSpec> = {
  out: { type: 'string', help: 'run file to write (MAGIC Lab JSONL: the page\'s "Import run…" reads it)' },
  name: { type: 'string', help: 'run name (default: the first file\'s name and its format)' },
  'val-temperature': { type: 'number', help: "verl's validation temperature (val_kwargs.temperature), when the log does not print it", min: 0 },
  'val-n': { type: 'int', help: "verl's validation samples per prompt (val_kwargs.n), to map val/test_score", min: 1 },
  tag: { type: 'string', help: "TensorBoard per-tag CSV: the tag (default: from the file name run-…-tag-TAG.csv)" },
  config: { type: 'string', help: "a RunConfig JSON to attach (e.g. magic-lab train's DIR/config.json); default: the lab's default config" },
  'max-warnings': { type: 'int', help: 'skipped lines listed on stderr before a count (default 20)', min: 0 },
};

export const IMPORT_VERL_USAGE = 'import-verl LOG [LOG…] --out RUNFILE [--name N] [--val-temperature T] [--val-n N] [--tag TAG] [--config F.json]';

/** Positional arguments (log files) apart from the flags and their values. */
function splitArgs(argv: string[]): { files: string[]; flags: string[] } {
  const files: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) {
      files.push(a);
      continue;
    }
    flags.push(a);
    const spec = IMPORT_VERL_FLAGS[a.slice(2)];
    if (spec && spec.type !== 'bool' && !a.includes('=') && i + 1 < argv.length) flags.push(argv[++i]);
  }
  return { files, flags };
}

/** A config, or a MAGIC Lab run file given back to import-verl, is read whole: at most what one V8 string holds. Logs stream. */
const MAX_LOG_BYTES = 512 * 1024 ** 2;

/** Whether two paths name one file: equal realpaths, or one device and inode (hard links). */
function sameFile(a: string, b: string): boolean {
  try {
    if (realpathSync(a) === realpathSync(b)) return true;
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false; // one of them does not exist (yet): not the same file
  }
}

const errCode = (e: unknown) => explainFsCode(e as NodeJS.ErrnoException) ?? (e as Error).message;

export async function importVerl(argv: string[], log: (s: string) => void, err: (s: string) => void): Promise<void> {
  const { files, flags: flagArgs } = splitArgs(argv);
  const flags = parseFlags(flagArgs, IMPORT_VERL_FLAGS, 'import-verl');
  if (files.length === 0) throw new UsageError(`name the log file(s) to import; usage: magic-lab ${IMPORT_VERL_USAGE}`);
  const out = flags.out as string | undefined;
  if (!out) throw new UsageError('--out RUNFILE is required (the run file to write)');
  if (files.includes(out)) throw new UsageError(`--out ${out}: is also an input; write the run file elsewhere`);
  // The same file under another name (./w.csv vs /abs/w.csv, a symlink, a hard link): by realpath and inode.
  const same = files.find((f) => sameFile(f, out));
  if (same !== undefined) throw new UsageError(`--out ${out}: is the same file as the input ${same}; write the run file elsewhere`);

  let config;
  if (flags.config !== undefined) {
    const f = flags.config as string;
    let raw: unknown;
    try {
      const st = statSync(f);
      if (!st.isFile() || st.size > MAX_LOG_BYTES) throw new UsageError(`--config: ${f} is ${st.isFile() ? `${st.size} bytes` : st.isDirectory() ? 'a directory' : 'a device, pipe or socket'}, not a config file`);
      raw = JSON.parse(readFileSync(f, 'utf8'));
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`--config: cannot read ${f} (${e instanceof SyntaxError ? 'not valid JSON' : errCode(e)})`);
    }
    try {
      config = validateRunConfig(raw);
    } catch (e) {
      throw new UsageError(`--config: ${f}: ${(e as Error).message}`);
    }
  }

  const sources: VerlLineSource[] = files.map((name) => {
    try {
      // Stat'ed first: a device or directory is refused before a byte is read.
      const st = statSync(name);
      if (!st.isFile()) throw new UsageError(`${name}: is ${st.isDirectory() ? 'a directory' : 'a device, pipe or socket'}, not a log file`);
      return { name, lines: () => readLinesSync(name, '') };
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${name}: cannot read (${errCode(e)})`);
    }
  });
  const val = flags['val-temperature'] !== undefined || flags['val-n'] !== undefined ? { temperature: flags['val-temperature'] as number | undefined, n: flags['val-n'] as number | undefined } : undefined;
  // The merged step table may take half this machine's memory (src/verl/step-table.ts states what it holds).
  const opts = { val, tag: flags.tag as string | undefined, maxTableBytes: nodeHostLimits().memoryBytes };
  const over = { ...(flags.name !== undefined ? { name: flags.name as string } : {}), ...(config ? { config } : {}) };

  // The run file goes to a temp file beside --out (every byte checked), renamed into place once
  // whole: a failed import leaves no half file. A device, pipe or directory as --out is refused
  // here, before a log is read (a rename would replace the device node).
  const target = openReplacement(out, { flag: '--out', beforeCreate: () => mkdirSync(dirname(out), { recursive: true }) });
  const write = (chunk: string) => {
    try {
      target.write(chunk);
    } catch (e) {
      throw new UsageError(`--out: cannot write ${out} (${errCode(e)})`);
    }
  };
  let imported: { format: string; warnings: Parameters<typeof warningLines>[0]; notes: string[]; name: string; steps: number; evals: number };
  try {
    const own = sources.find((s) => isLabRunFile(s.lines()));
    if (own !== undefined) imported = importOwnRunFile(own.name, files.length, opts, over, write);
    else imported = writeImportedRunJsonl(sources, opts, write, over);
    try {
      target.commit();
    } catch (e) {
      throw new UsageError(`--out: cannot write ${out} (${errCode(e)})`);
    }
  } catch (e) {
    target.abort();
    if (e instanceof RunFileError || e instanceof FileReadError) throw new UsageError(e.message);
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code) throw new UsageError(`--out: cannot write ${out} (${errCode(e)})`);
    throw e;
  }

  const max = (flags['max-warnings'] as number | undefined) ?? 20;
  for (const line of warningLines(imported.warnings, max)) err(line);
  log(`wrote ${out}: "${imported.name}", ${imported.steps} steps, ${imported.evals} evaluations (${imported.format})${imported.warnings.length ? `; ${imported.warnings.length} warning${imported.warnings.length > 1 ? 's' : ''} on stderr` : ''}`);
  for (const n of imported.notes) log(`  ${n}`);
}

/**
 * A MAGIC Lab run file or CSV export given to import-verl: read whole (it is validated as a whole:
 * checksum first) and written back through runToJsonl, as before the import streamed. It is imported
 * on its own, never merged with logs.
 */
function importOwnRunFile(name: string, nFiles: number, opts: { val?: { temperature?: number; n?: number }; tag?: string }, over: { name?: string; config?: ReturnType<typeof validateRunConfig> }, write: (s: string) => void) {
  if (nFiles > 1) throw new RunFileError(name, null, 'a MAGIC Lab run file is imported on its own, not merged with other files');
  const size = statSync(name).size;
  if (size > MAX_LOG_BYTES) throw new UsageError(`${name}: is ${size} bytes; import-verl reads MAGIC Lab run files up to ${MAX_LOG_BYTES} bytes`);
  const imported = importRunFiles([{ name, text: readFileSync(name, 'utf8') }], opts);
  const run = { ...imported.run, ...over };
  write(runToJsonl(run));
  return { ...imported, name: run.name, steps: run.steps.length, evals: run.evals.length };
}
