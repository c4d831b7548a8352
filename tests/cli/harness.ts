import { readFileSync } from 'node:fs';
import { join } from 'node:path';
/** Runs the CLI in-process and captures what it prints (shared by the CLI tests). */
export type CliMain = (argv: string[], log: (s: string) => void, err: (s: string) => void) => Promise<number>;

export interface CliResult {
  code: number;
  /** stdout and stderr, one string each (lines joined by \n). */
  out: string;
  err: string;
  /** stderr's lines as printed. */
  errLines: string[];
}

/**
 * A `run(...argv)` for `main`. Tests that mock a module under the CLI import `main` after
 * `vi.mock` and pass it here.
 */
export function cliRunner(main: CliMain): (...argv: string[]) => Promise<CliResult> {
  return async (...argv) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(argv, (s) => out.push(s), (s) => err.push(s));
    return { code, out: out.join('\n'), err: err.join('\n'), errLines: err };
  };
}

/** metrics.jsonl without the wall-clock fields (they differ between any two runs). */
export const journal = (dir: string) =>
  readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('timing') && !k.startsWith('perf/') && k !== 'time_ms')));
