/**
 * The commands a user document shows, found the way a reader finds them: every line of a fenced
 * `sh`/`bash` block, and every inline code span that starts like a command (`magic-lab …`,
 * `npx magic-lab …`, `npm run …`, `npm start`, `npm test`, `npx tsx scripts/…`, `node scripts/…`,
 * `sh scripts/…`). Pure: text in, commands out (tests/docs/commands.test.ts, scripts/docs-check.ts).
 *
 * A document says how a command is to be checked with an HTML comment (invisible when rendered)
 * on the line before the block, or on the command's own line for an inline one:
 *   <!-- check: shorten --steps 2 --seeds 1 -->   run it with these flags set (a flag given
 *                                                  replaces the command's own value)
 *   <!-- check: skip REASON -->                    not run by `npm run docs:check` (REASON says
 *                                                  why: hours long, needs a GPU, a browser, …);
 *                                                  the fast checks (flags, scripts, files) still hold
 *   <!-- check: stderr "TEXT" -->                  running it must print TEXT on stderr (a quoted refusal)
 *   <!-- check: stdout "TEXT" -->                  … on stdout
 *   <!-- check: exit N -->                         … and exit with N
 *   <!-- check: run CMD -->                        a command of its own, for a quoted output
 *                                                  whose command is not written beside it (the
 *                                                  quoted TEXT must still be in the document's
 *                                                  visible text: the check compares what a reader sees)
 *   <!-- check: planned -->                        a command the document says is not built yet:
 *                                                  neither run nor its flags checked
 *   <!-- check: slow -->                           its output is checked by `npm run docs:check`
 *                                                  only (it needs an engine or takes minutes)
 * Several may share one comment, separated by `;`. A `--config '{…}'` in a command that is run is
 * written to a temporary file first (the flag takes a file).
 */

export interface DocCommand {
  /** The document (path relative to the repository root) and 1-based line. */
  file: string;
  line: number;
  /** The command as written, continuation lines joined, a trailing `# comment` removed. */
  text: string;
  /** Where it was found: a fenced block, an inline code span, or a check comment's `run`. */
  where: 'block' | 'inline' | 'marker';
  /** From its check comment, if any. */
  shorten: string[];
  skip: string | null;
  expect: { stream: 'stdout' | 'stderr'; text: string }[];
  exit: number | null;
  /** From a `slow` directive: checked by the script only. */
  slow: boolean;
  /** From a `planned` directive: described, not built yet. */
  planned: boolean;
}

type Check = Pick<DocCommand, 'shorten' | 'skip' | 'expect' | 'exit' | 'slow' | 'planned'> & { run: string[] };

/** The directives of one check comment (several comments on a line: all of them). */
export function parseCheck(line: string): Check | null {
  const found = [...line.matchAll(/<!--\s*check:\s*([\s\S]*?)-->/g)];
  if (found.length === 0) return null;
  const out: Check = { shorten: [], skip: null, expect: [], exit: null, slow: false, planned: false, run: [] };
  for (const m of found)
    for (const part of splitDirectives(m[1])) {
      const d = part.trim();
      if (!d) continue;
      let r: RegExpMatchArray | null;
      if ((r = d.match(/^shorten\s+(.+)$/))) out.shorten.push(...splitArgs(r[1]));
      else if ((r = d.match(/^skip\s+(.+)$/))) out.skip = r[1].trim();
      else if ((r = d.match(/^(stdout|stderr)\s+"((?:[^"\\]|\\.)*)"$/))) out.expect.push({ stream: r[1] as 'stdout' | 'stderr', text: r[2].replace(/\\(.)/g, '$1') });
      else if ((r = d.match(/^exit\s+(\d+)$/))) out.exit = Number(r[1]);
      else if ((r = d.match(/^run\s+(.+)$/))) out.run.push(r[1].trim());
      else if (d === 'slow') out.slow = true;
      else if (d === 'planned') out.planned = true;
      else throw new Error(`check comment: "${d}" is not shorten FLAGS, skip REASON, stdout "TEXT", stderr "TEXT", exit N, run CMD, slow or planned`);
    }
  return out;
}

/** `;`-separated directives, a `;` inside quotes kept. */
function splitDirectives(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\\' && quoted) {
      cur += c + (s[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** A command line's words, as sh splits them (single and double quotes; no expansions). */
export function splitArgs(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let q: "'" | '"' | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = null;
      else if (c === '\\' && q === '"' && i + 1 < s.length) cur += s[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      q = c;
      has = true;
    } else if (/\s/.test(c)) {
      if (has) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) out.push(cur);
  return out;
}

/**
 * Does an inline code span read as a command a user would type? A bare `magic-lab` names the tool,
 * and `magic-lab train: …` quotes its output: neither is a command.
 */
export const isInlineCommand = (text: string) =>
  /^(?:(?:npx magic-lab|magic-lab|npm run|npm start|npm test|npx vite|npx playwright)(?=\s|$)|(?:npx tsx|node(?: --import tsx)?|sh|bash|python3) (?:scripts|bin)\/)/.test(text) &&
  !/^(?:npx )?magic-lab(?:\s+[\w-]+)?:/.test(text) &&
  text !== 'magic-lab';

/** Every command of one Markdown document. */
export function extractCommands(file: string, markdown: string): DocCommand[] {
  const lines = markdown.split('\n');
  const out: DocCommand[] = [];
  let fence: { lang: string; indent: string } | null = null;
  let pending: Check | null = null;
  let blockCheck: Check | null = null;
  let joined = '';
  let joinedAt = 0;
  const none = (): Check => ({ shorten: [], skip: null, expect: [], exit: null, slow: false, planned: false, run: [] });
  const make = (line: number, text: string, where: DocCommand['where'], c: Check): DocCommand => {
    const { run: _run, ...rest } = c;
    return { file, line, text, where, ...rest };
  };
  // A check comment's own commands (run CMD) are commands of the document too.
  const own = (line: number, c: Check | null) => {
    if (c) for (const text of c.run) out.push(make(line, text, 'marker', c));
    return c && c.run.length > 0;
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const open = line.match(/^(\s*)(`{3,}|~{3,})\s*([\w-]*)/);
    if (fence) {
      if (open && line.trim().startsWith('```') && line.trim().replace(/`/g, '') === '') {
        fence = null;
        blockCheck = null;
        continue;
      }
      if (fence.lang !== 'sh' && fence.lang !== 'bash') continue;
      const lineCheck = parseCheck(line);
      if (own(i + 1, lineCheck)) continue;
      const body = line.replace(/<!--[\s\S]*?-->/g, '').trim();
      if (!joined) {
        if (body === '' || body.startsWith('#')) continue;
        joinedAt = i + 1;
      }
      if (body.endsWith('\\')) {
        joined += body.slice(0, -1).trimEnd() + ' ';
        continue;
      }
      const text = stripComment(joined + body).trim();
      joined = '';
      const c = lineCheck ?? blockCheck ?? none();
      if (text) out.push(make(joinedAt, text, 'block', c));
      continue;
    }
    if (open && line.trim().startsWith('```')) {
      fence = { lang: open[3], indent: open[1] };
      blockCheck = pending;
      pending = null;
      continue;
    }
    let check = parseCheck(line);
    // A line with a command of its own (run CMD): the commands written on it are the ones it
    // shows refused (they keep its exit), its expectations are checked on its own command.
    if (own(i + 1, check)) check = { ...none(), exit: check!.exit, skip: "its line's check comment runs the command it stands for" };
    const visible = line.replace(/<!--[\s\S]*?-->/g, '');
    if (check && visible.trim() === '') {
      pending = check; // applies to the next block or command line
      continue;
    }
    let used = false;
    for (const m of visible.matchAll(/(`+)([^`]+?)\1/g)) {
      // A `|` inside a table cell is written `\|`.
      const text = m[2].trim().replace(/\\\|/g, '|');
      if (!isInlineCommand(text)) continue;
      out.push(make(i + 1, text, 'inline', check ?? pending ?? none()));
      used = true;
    }
    if (used) pending = null;
  }
  return out;
}

/** `cmd args # comment` → `cmd args` (a `#` inside quotes kept). */
function stripComment(s: string): string {
  let q: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (q) {
      if (c === q) q = null;
    } else if (c === "'" || c === '"') q = c;
    else if (c === '#' && (i === 0 || /\s/.test(s[i - 1]))) return s.slice(0, i);
  }
  return s;
}

/** A document's text as a reader sees it: check comments removed. */
export const visibleText = (markdown: string) => markdown.replace(/<!--[\s\S]*?-->/g, '');
