/**
 * `magic-lab import-verl LOG [LOG…] --out RUNFILE`: a cluster run (verl's console log, a W&B /
 * TensorBoard CSV export, JSONL metrics; several files merge by step) → a MAGIC Lab run file, the
 * JSONL the page's "Import run…" reads. The reading is src/verl/import.ts, shared with the page.
 *
 * Skipped lines go to stderr as `file:line: reason` (at most --max-warnings, then a count); the
 * summary and the import rules applied go to stdout. A file that cannot be read or holds nothing
 * usable is a usage error (exit 2, one line naming the file).
 */
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { validateRunConfig } from '../rl/config';
import { importRunFiles, parseRunFile, RunFileError, runToJsonl } from '../io/runfile';
import { warningLines } from '../verl/import';
import { parseFlags, UsageError, type FlagSpec } from './args';

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

/** Logs are read whole (the page's reader takes text): at most what one V8 string holds. */
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

const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

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

  const inputs = files.map((name) => {
    try {
      // Stat'ed first: a device or directory is refused; a file over V8's string limit is one line, not a RangeError.
      const st = statSync(name);
      if (!st.isFile()) throw new UsageError(`${name}: is ${st.isDirectory() ? 'a directory' : 'a device, pipe or socket'}, not a log file`);
      if (st.size > MAX_LOG_BYTES) throw new UsageError(`${name}: is ${st.size} bytes; import-verl reads logs up to ${MAX_LOG_BYTES} bytes (split it by step range)`);
      return { name, text: readFileSync(name, 'utf8') };
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${name}: cannot read (${errCode(e)})`);
    }
  });

  let imported;
  try {
    imported = importRunFiles(inputs, {
      val: flags['val-temperature'] !== undefined || flags['val-n'] !== undefined ? { temperature: flags['val-temperature'] as number | undefined, n: flags['val-n'] as number | undefined } : undefined,
      tag: flags.tag as string | undefined,
    });
  } catch (e) {
    if (e instanceof RunFileError) throw new UsageError(e.message);
    throw e;
  }
  const run = { ...imported.run };
  if (flags.name !== undefined) run.name = flags.name as string;
  if (config) run.config = config;

  const text = runToJsonl(run);
  // What was written is what the page will read: check it reads back to the same records.
  const back = parseRunFile(text, out);
  if (back.steps.length !== run.steps.length || back.evals.length !== run.evals.length) throw new Error(`internal: ${out} does not read back (${back.steps.length}/${run.steps.length} steps)`);
  try {
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, text);
  } catch (e) {
    throw new UsageError(`--out: cannot write ${out} (${errCode(e)})`);
  }

  const max = (flags['max-warnings'] as number | undefined) ?? 20;
  for (const line of warningLines(imported.warnings, max)) err(line);
  log(`wrote ${out}: "${run.name}", ${run.steps.length} steps, ${run.evals.length} evaluations (${imported.format})${imported.warnings.length ? `; ${imported.warnings.length} warning${imported.warnings.length > 1 ? 's' : ''} on stderr` : ''}`);
  for (const n of imported.notes) log(`  ${n}`);
}
