/**
 * A documented command as the checker runs it: shortened as its check comment says, an inline
 * `--config '{…}'` written to a file (the flag takes a file), and the files it writes
 * (--out, --json, --svg, --runs, --reports, --write-solvability) sent to a scratch folder, so
 * that running a document never changes the checkout (the shipped base checkpoints included).
 */
import { join } from 'node:path';
import { splitArgs, type DocCommand } from './extract';
import { invocations } from './plan';

const OUTPUT_FLAGS = /^--(out|json|svg|runs|reports|write-solvability)$/;

/** `args` with each `--flag value` of `shorten` set (replacing the command's own value, or added). */
export function shortened(args: readonly string[], shorten: readonly string[]): string[] {
  const out = [...args];
  for (let i = 0; i < shorten.length; i++) {
    const flag = shorten[i];
    const value = shorten[i + 1] !== undefined && !shorten[i + 1].startsWith('--') ? shorten[++i] : null;
    const at = out.indexOf(flag);
    if (at >= 0) {
      if (value !== null) out[at + 1] = value;
    } else out.push(...(value !== null ? [flag, value] : [flag]));
  }
  return out;
}

/** Where an output the document names (`--out runs/a`, `/tmp/perf`) is written instead: one place per name, so a later command that reads it finds it. */
export const outputPath = (scratch: string, named: string) => join(scratch, named.replace(/^\/+/, '').replace(/[^\w.-]+/g, '_'));

/**
 * The magic-lab argv (after `magic-lab`) of a single-invocation command, ready to run in-process:
 * null when the command is not one magic-lab call. `writeConfig(name, json)` stores an inline
 * config and returns its path; outputs go under `scratch` (outputPath), and `redirected` (named →
 * scratch path) records them, so an argument naming an earlier command's output is sent there too.
 */
export function runnableArgv(c: DocCommand, scratch: string, writeConfig: (name: string, json: string) => string, redirected = new Map<string, string>()): string[] | null {
  const inv = invocations(c.text);
  if (inv.length !== 1 || inv[0].kind !== 'magic-lab') return null;
  const args = shortened([inv[0].sub, ...inv[0].args], c.shorten);
  return args.map((w, i) => {
    const flag = args[i - 1] ?? '';
    if (flag === '--config' && w.trim().startsWith('{')) return writeConfig(`config-${c.line}.json`, w);
    if (OUTPUT_FLAGS.test(flag)) {
      redirected.set(w, outputPath(scratch, w));
      return redirected.get(w)!;
    }
    return redirected.get(w) ?? w;
  });
}

export { splitArgs };
