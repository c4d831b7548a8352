/**
 * `npm run docs:check`: runs every command that README.md, RELIABILITY.md, REPLICATION.md,
 * BENCHMARKS.md and docs/*.md show, as written or shortened, and compares the outputs they quote
 * (the fast half — commands, flags, scripts, files, in-process refusals — is tests/docs/commands.test.ts
 * in `npm test`). Commands run in a scratch copy of the checkout (tracked and unignored files,
 * node_modules linked), so nothing a document's command writes (a base checkpoint, REPLICATION.md)
 * touches the checkout; `--out`-like flags point into a scratch folder too.
 *
 *   npm run docs:check -- [--only TEXT] [--list] [--timeout S] [--keep]
 *
 * --only: commands whose document:line or text contains TEXT; --list: the plan, nothing run;
 * --timeout: seconds per command (default 900); --keep: leave the scratch copy.
 * How a document marks a command (shorten, skip, expected output): scripts/docs-check/extract.ts.
 * A `magic-lab` command also gets SHORTEN's sizes below (the flags it has), replacing its own,
 * unless the document quotes its output (then it runs as shown). The checker itself, the
 * whole test suites (npm test, npm run test:e2e: CI runs them), a synopsis (placeholders, [options], a|b) and a command named without arguments are not run.
 * Exit 0 when every command run did what its document says, else 1.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { extractCommands, type DocCommand } from './docs-check/extract';
import { at, documents, invocations, isSynopsis } from './docs-check/plan';
import { runnableArgv, shortened } from './docs-check/run-form';

/** A run of each command's own length, cut to seconds: applied where the command has the flag and its mark sets none. */
export const SHORTEN: Record<string, string[]> = {
  train: ['--steps', '2'],
  sft: ['--steps', '2'],
  sweep: ['--seeds', '1', '--steps', '2', '--eval-problems', '8', '--eval-k', '2'],
  ablate: ['--seeds', '1', '--steps', '2', '--eval-problems', '8', '--eval-k', '2'],
  eval: ['--problems', '8', '--k', '2'],
  bench: ['--steps', '1'],
};

const root = join(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const opt = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const only = opt('--only');
const timeoutS = Number(opt('--timeout') ?? 900);
const list = argv.includes('--list');

type Plan = { c: DocCommand; how: 'run'; shell: string[] } | { c: DocCommand; how: 'not-run'; why: string };

function planOf(c: DocCommand, scratch: string): Plan {
  if (c.planned) return { c, how: 'not-run', why: 'planned, not built yet' };
  if (c.skip !== null) return { c, how: 'not-run', why: `skip: ${c.skip}` };
  const inv = invocations(c.text);
  if (inv.some((i) => i.kind === 'npm' && i.script === 'docs:check')) return { c, how: 'not-run', why: 'the checker itself' };
  if (inv.some((i) => i.kind === 'npm' && (i.script === 'test' || i.script === 'test:e2e'))) return { c, how: 'not-run', why: 'a whole test suite, which CI runs (npm test holds the fast half of this checker)' };
  if (inv.length === 1 && inv[0].kind === 'magic-lab' && inv[0].args.length === 0 && c.where === 'inline') return { c, how: 'not-run', why: 'names a command (no arguments)' };
  // A check comment's own command is meant to run (its --out OUT goes to the scratch folder).
  if (c.where !== 'marker' && isSynopsis(c.text)) return { c, how: 'not-run', why: 'a synopsis (its flags are checked by npm test)' };
  const ml = inv.length === 1 && inv[0].kind === 'magic-lab' ? inv[0] : null;
  if (ml) {
    const sub = ml.sub;
    const known = helpOf(sub === 'sweep' && ml.args[0] === 'merge' ? 'sweep merge' : sub);
    // `ablate --list` / `--replication` run no finding: nothing to shorten. A command whose output
    // the document quotes runs as shown (`sft --steps 3` prints the note quoted); any other has
    // its sizes cut to SHORTEN's, replacing its own (`eval --k 64 --problems 256` → 2 and 8).
    const keep = (flag: string) => known.has(flag) && (c.expect.length === 0 || !ml.args.includes(flag));
    const defaults = (ml.args[0]?.startsWith('--') && sub === 'ablate' ? [] : (SHORTEN[sub] ?? [])).filter((w, i, a) => (w.startsWith('--') ? keep(w) : keep(a[i - 1])));
    const withDefaults: DocCommand = { ...c, shorten: [...shortened(defaults, c.shorten)] };
    const args = runnableArgv(
      withDefaults,
      join(scratch, 'out'),
      (name, json) => {
        const f = join(scratch, 'out', name);
        writeFileSync(f, json);
        return f;
      },
      redirected,
    )!;
    return { c, how: 'run', shell: ['node', 'scripts/webgpu-env.mjs', 'node', 'bin/magic-lab.mjs', ...args] };
  }
  if (inv.length === 1 && inv[0].kind === 'npm' && c.shorten.length) {
    const w = c.text.split(' -- ');
    return { c, how: 'run', shell: ['sh', '-c', `${w[0]} -- ${shortened(inv[0].args, c.shorten).map(q).join(' ')}`] };
  }
  // A shell line reading an earlier command's output (`phase-times.mjs /tmp/perf-magic40`) reads it where it went.
  return { c, how: 'run', shell: ['sh', '-c', c.text.split(/(\s+)/).map((w) => (redirected.has(w) ? q(redirected.get(w)!) : w)).join('')] };
}

/** The outputs the commands run so far were told to write, named → where they went. */
const redirected = new Map<string, string>();

const q = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

const helps = new Map<string, Set<string>>();
function helpOf(sub: string): Set<string> {
  if (!helps.has(sub)) {
    const r = spawnSync('node', ['bin/magic-lab.mjs', ...sub.split(' '), '--help'], { cwd: root, encoding: 'utf8' });
    helps.set(sub, new Set([...(r.stdout ?? '').matchAll(/--[a-z][\w-]*/g)].map((m) => m[0])));
  }
  return helps.get(sub)!;
}

/** A copy of the checkout as it is now (tracked and unignored files), node_modules linked. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'docs-check-'));
  const files = spawnSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
  for (const f of files) {
    mkdirSync(dirname(join(dir, 'repo', f)), { recursive: true });
    try {
      cpSync(join(root, f), join(dir, 'repo', f));
    } catch {
      /* deleted in the working tree: not part of it */
    }
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'repo', 'node_modules'));
  // A repository of its own (the tracked tree as it is now): scripts that read git (npm run tree:size) work in it.
  const git = (...a: string[]) => spawnSync('git', ['-c', 'user.name=docs-check', '-c', 'user.email=docs-check@localhost', ...a], { cwd: join(dir, 'repo'), stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'docs-check scratch copy');
  mkdirSync(join(dir, 'out'), { recursive: true });
  // `magic-lab` on the PATH, as `npm link` or a global install would put it.
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'magic-lab'), `#!/bin/sh\nexec node ${q(join(dir, 'repo', 'bin', 'magic-lab.mjs'))} "$@"\n`, { mode: 0o755 });
  return dir;
}

const commands = documents(root)
  .flatMap((f) => extractCommands(f, readFileSync(join(root, f), 'utf8')))
  .filter((c) => !only || at(c).includes(only) || c.text.includes(only));
const scratch = list ? mkdtempSync(join(tmpdir(), 'docs-check-plan-')) : scratchCopy();
if (list) mkdirSync(join(scratch, 'out'));
const plans = commands.map((c) => planOf(c, scratch));
let failed = 0;
let ran = 0;
for (const p of plans) {
  const where = `${at(p.c)} \`${p.c.text.length > 100 ? p.c.text.slice(0, 97) + '…' : p.c.text}\``;
  if (p.how === 'not-run') {
    console.log(`  --    ${where}: ${p.why}`);
    continue;
  }
  if (list) {
    console.log(`  run   ${where}\n        ${p.shell.map(q).join(' ')}`);
    continue;
  }
  ran++;
  const t0 = Date.now();
  const r = spawnSync(p.shell[0], p.shell.slice(1), { cwd: join(scratch, 'repo'), encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, PATH: `${join(scratch, 'bin')}:${join(root, 'node_modules/.bin')}:${process.env.PATH}` } });
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  const wrong: string[] = [];
  const want = p.c.exit ?? 0;
  if (r.error) wrong.push(`did not finish: ${r.error.message}`);
  else if (r.status !== want) wrong.push(`exit ${r.status ?? r.signal}, the document says ${want}`);
  for (const e of p.c.expect) if (!(e.stream === 'stderr' ? r.stderr : r.stdout)?.includes(e.text)) wrong.push(`${e.stream} lacks "${e.text}"`);
  if (wrong.length) {
    failed++;
    const tail = `${r.stderr ?? ''}${r.stdout ?? ''}`.trim().split('\n').slice(-4).join('\n        ');
    console.log(`  FAIL  ${where} (${s} s): ${wrong.join('; ')}\n        ${p.shell.map(q).join(' ')}\n        ${tail}`);
  } else console.log(`  ok    ${where} (${s} s)`);
}
const notRun = plans.filter((p) => p.how === 'not-run').length;
console.log(`\n${commands.length} commands: ${list ? plans.length - notRun + ' to run' : `${ran} run, ${failed} failed`}, ${notRun} not run (named above, with why).`);
if (list || !argv.includes('--keep')) rmSync(scratch, { recursive: true, force: true });
else if (!list) console.log(`scratch copy kept: ${scratch}`);
process.exitCode = failed ? 1 : 0;
