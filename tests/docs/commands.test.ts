/**
 * The documents' commands, the fast half of the document checker (the rest: `npm run docs:check`,
 * scripts/docs-check.ts): every command shown in README.md, RELIABILITY.md, REPLICATION.md,
 * BENCHMARKS.md and docs/*.md names a `magic-lab` command and flags its `--help` lists, an npm
 * script package.json has, and files that exist; every file a document names in code exists; and
 * every quoted refusal marked with a check comment (scripts/docs-check/extract.ts) is what the
 * CLI prints, run in-process as written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { cliRunner } from '../cli/harness';
import { extractCommands, splitArgs, visibleText, type DocCommand } from '../../scripts/docs-check/extract';
import { at, documents, flagsOf, invocations, isSynopsis, repoPaths, type Invocation } from '../../scripts/docs-check/plan';
import { runnableArgv } from '../../scripts/docs-check/run-form';

const ROOT = join(import.meta.dirname, '../..');
const DOCS = documents(ROOT);
const TEXT = new Map(DOCS.map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]));
const COMMANDS: DocCommand[] = DOCS.flatMap((f) => extractCommands(f, TEXT.get(f)!));
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const run = cliRunner(main);

/** Each command's flags, from its --help (what a user reads). */
const helpFlags = new Map<string, Set<string>>();
/** A flag that switches a command to another mode with its own flags and --help (train/eval --model, bench --hf). */
const MODE_FLAGS: Record<string, string> = { train: '--model', eval: '--model', bench: '--hf' };
async function flagsOfCommand(sub: string, args: readonly string[] = []): Promise<Set<string> | null> {
  const mode = MODE_FLAGS[sub] !== undefined && args.some((a) => a === MODE_FLAGS[sub] || a.startsWith(`${MODE_FLAGS[sub]}=`)) ? MODE_FLAGS[sub] : null;
  const key = mode ? `${sub} ${mode}` : sub;
  if (!helpFlags.has(key)) {
    const r = await run(...sub.split(' '), ...(mode ? [mode, 'x'] : []), '--help');
    if (r.code !== 0) return null;
    helpFlags.set(key, new Set([...r.out.matchAll(/--[a-z][\w-]*/g)].map((m) => m[0]).concat('--help')));
  }
  return helpFlags.get(key)!;
}
const SUBCOMMANDS = ['train', 'eval', 'data', 'gradcheck', 'bench', 'sft', 'sweep', 'ablate', 'compare', 'export-verl', 'import-verl', 'logprobs', 'tokenize'];

/** An npm script that runs `magic-lab SUB …` itself: SUB and the flags it passes. */
function npmMagicLab(script: string): { sub: string; args: string[] } | null {
  const m = SCRIPTS[script]?.match(/bin\/magic-lab\.mjs\s+(\S+)(.*)$/);
  return m ? { sub: m[1], args: splitArgs(m[2]) } : null;
}

/** What is wrong with one invocation of a documented command ([] when nothing). */
async function problems(inv: Invocation, synopsis: boolean): Promise<string[]> {
  const out: string[] = [];
  const checkFlags = async (sub: string, args: string[]) => {
    const name = sub === 'sweep' && args[0] === 'merge' ? 'sweep merge' : sub;
    if (!SUBCOMMANDS.includes(sub)) return out.push(`magic-lab has no command "${sub}"`);
    const known = await flagsOfCommand(name, args);
    if (!known) return out.push(`magic-lab ${name} --help failed`);
    for (const f of flagsOf(args)) if (!known.has(f)) out.push(`magic-lab ${name} has no flag ${f}`);
  };
  if (inv.kind === 'magic-lab') await checkFlags(inv.sub, inv.args);
  else if (inv.kind === 'npm') {
    if (!(inv.script in SCRIPTS)) out.push(`package.json has no script "${inv.script}"`);
    const ml = npmMagicLab(inv.script);
    if (ml) await checkFlags(ml.sub, [...ml.args, ...inv.args]);
  } else if (inv.kind === 'file') {
    if (repoPaths([inv.path]).length && !existsSync(join(ROOT, inv.path))) out.push(`no file ${inv.path}`);
  }
  const words = inv.kind === 'other' ? inv.words : inv.args;
  // Paths a command reads (its outputs may not exist yet; a synopsis's may be examples).
  const outputs = new Set(words.flatMap((w, i) => (/^--(out|json|svg|runs|reports|write-solvability)$/.test(words[i - 1] ?? '') ? [w] : [])));
  if (!synopsis) for (const p of repoPaths(words.filter((w) => !outputs.has(w)))) if (!existsSync(join(ROOT, p))) out.push(`no file ${p}`);
  return out;
}

describe('the documents name commands, flags, scripts and files that exist', () => {
  it('finds the commands (blocks, inline, check comments) in every checked document', () => {
    expect(DOCS).toContain('docs/sweeps.md');
    expect(DOCS).not.toContain('docs/benchmarks-log.md');
    expect(COMMANDS.length).toBeGreaterThan(150);
    for (const f of ['README.md', 'RELIABILITY.md', 'BENCHMARKS.md', 'REPLICATION.md']) expect(COMMANDS.some((c) => c.file === f), f).toBe(true);
  });

  it('every magic-lab command and flag is in its --help, every npm script in package.json, every script file exists', async () => {
    const bad: string[] = [];
    // Not checked: a command the document says is not built yet, one shown to be refused (exit 2:
    // `train --bogus`), and a placeholder for any command (`npx magic-lab …`).
    const checked = COMMANDS.filter((c) => !c.planned && c.exit !== 2 && !/^(npx )?magic-lab …$/.test(c.text));
    for (const c of checked) for (const inv of invocations(c.text)) for (const p of await problems(inv, isSynopsis(c.text))) bad.push(`${at(c)} \`${c.text}\`: ${p}`);
    expect(bad).toEqual([]);
  });

  it('no command a reader copies passes inline JSON to --config (it takes a file), or shortens an SFT run onto the shipped base', () => {
    const bad: string[] = [];
    for (const c of COMMANDS.filter((c) => c.where !== 'marker' && !c.planned))
      for (const inv of invocations(c.text)) {
        if (inv.kind !== 'magic-lab') continue;
        const config = inv.args[inv.args.indexOf('--config') + 1];
        if (inv.args.includes('--config') && config?.trim().startsWith('{')) bad.push(`${at(c)}: --config ${config.slice(0, 30)}…`);
        // A shortened SFT run (--steps) without --out writes the rung's shipped base checkpoint.
        if (inv.sub === 'sft' && inv.args.includes('--steps') && !inv.args.includes('--out') && !isSynopsis(c.text)) bad.push(`${at(c)}: sft --steps without --out replaces the shipped base`);
      }
    expect(bad).toEqual([]);
  });

  it('every repository file a document names in code exists', () => {
    const bad: string[] = [];
    for (const [f, text] of TEXT) {
      const lines = visibleText(text).split('\n');
      lines.forEach((line, i) => {
        for (const m of line.matchAll(/`([^`\n]+)`/g))
          for (const p of repoPaths(splitArgs(m[1]).flatMap((w) => w.split(/[,;]/))))
            if (!/\/[A-Z][A-Z_]*(\/|\.|$)/.test(p) && !existsSync(join(ROOT, p)) && !existsSync(join(ROOT, p.replace(/\.gz$/, '')))) bad.push(`${f}:${i + 1}: ${p}`);
      });
    }
    expect(bad).toEqual([]);
  });

  it('every skipped command says why, and every quoted output is in the text a reader sees', () => {
    for (const c of COMMANDS) {
      if (c.skip !== null) expect(c.skip.length, `${at(c)}: skip needs a reason`).toBeGreaterThan(8);
      for (const e of c.expect) expect(visibleText(TEXT.get(c.file)!), `${at(c)}: "${e.text}" is checked but not shown`).toContain(e.text);
    }
  });
});

describe('quoted refusals are what the CLI prints', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'docs-check-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const quoted = COMMANDS.filter((c) => (c.expect.length > 0 || c.where === 'marker') && !c.slow && c.skip === null && !c.planned);

  it('the documents mark quoted refusals to check (each one below ran)', () => {
    expect(quoted.length).toBeGreaterThanOrEqual(4);
  });

  for (const c of quoted)
    it(`${at(c)}: ${c.text.slice(0, 90)}`, async () => {
      const argv = runnableArgv(c, tmp, (name, json) => {
        const f = join(tmp, name);
        writeFileSync(f, json);
        return f;
      });
      expect(argv, 'a marked command runs magic-lab').not.toBeNull();
      const r = await run(...argv!);
      if (c.exit !== null) expect(r.code, r.err).toBe(c.exit);
      for (const e of c.expect) expect(e.stream === 'stderr' ? r.err : r.out).toContain(e.text);
    });
});
