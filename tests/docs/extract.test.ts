/** The document checker's parts (scripts/docs-check/): finding commands and their check comments, and the form they run in. */
import { describe, expect, it } from 'vitest';
import { extractCommands, isInlineCommand, parseCheck, splitArgs } from '../../scripts/docs-check/extract';
import { invocations, isSynopsis, repoPaths } from '../../scripts/docs-check/plan';
import { runnableArgv, shortened } from '../../scripts/docs-check/run-form';

const DOC = [
  'Intro with `magic-lab` (the tool) and `magic-lab train: --steps: must be at least 1` (an output).',
  '<!-- check: shorten --steps 2 -->',
  '```sh',
  '# a comment line',
  'npx magic-lab train --preset magic \\',
  '  --out runs/a   # trailing comment',
  '```',
  'Inline: `node scripts/phase-times.mjs DIR` and `npx tsx scripts/task-lengths.ts sort 5000`. <!-- check: skip minutes, a long table -->',
  '| row | `magic-lab train --bogus 2>&1 \\| true` | exit 2 | <!-- check: run magic-lab train --bogus; exit 2; stderr "unknown flag --bogus" -->',
  '5. <!-- check: planned -->`magic-lab train --model DIR`',
  '```',
  'magic-lab train --not-a-command-in-a-plain-fence',
  '```',
].join('\n');

describe('extractCommands', () => {
  const cs = extractCommands('X.md', DOC);
  it('finds block lines (continuations joined, comments dropped), inline commands, and check comments’ own commands', () => {
    expect(cs.map((c) => [c.line, c.where, c.text])).toEqual([
      [5, 'block', 'npx magic-lab train --preset magic --out runs/a'],
      [8, 'inline', 'node scripts/phase-times.mjs DIR'],
      [8, 'inline', 'npx tsx scripts/task-lengths.ts sort 5000'],
      [9, 'marker', 'magic-lab train --bogus'],
      [9, 'inline', 'magic-lab train --bogus 2>&1 | true'],
      [10, 'inline', 'magic-lab train --model DIR'],
    ]);
  });
  it('attaches each check comment to what it marks', () => {
    expect(cs[0].shorten).toEqual(['--steps', '2']);
    expect(cs[1].skip).toBe('minutes, a long table');
    expect(cs[2].skip).toBe('minutes, a long table');
    expect(cs[3]).toMatchObject({ exit: 2, expect: [{ stream: 'stderr', text: 'unknown flag --bogus' }], skip: null });
    // The command the line shows stands for the comment's own: it keeps the exit, is not run twice.
    expect(cs[4]).toMatchObject({ exit: 2, expect: [] });
    expect(cs[4].skip).not.toBeNull();
    expect(cs[5].planned).toBe(true);
  });
  it('refuses a check comment it does not understand (a `;` splits directives)', () => {
    expect(() => parseCheck('<!-- check: skip network; then more -->')).toThrow(/"then more"/);
    expect(parseCheck('no comment here')).toBeNull();
  });
  it('tells a command from a mention or a quoted output', () => {
    for (const t of ['magic-lab sweep --seeds 2', 'npm run bench', 'node scripts/x.mjs', 'node --import tsx scripts/bench-cpu.mjs', 'npx playwright test e2e/a.spec.ts']) expect(isInlineCommand(t), t).toBe(true);
    for (const t of ['magic-lab', 'magic-lab train: refused', 'magic-lab-run:<id>', 'magic-lab/countdown', 'npm', 'src/cli/main.ts']) expect(isInlineCommand(t), t).toBe(false);
  });
});

describe('plan and run form', () => {
  it('splits a line into program calls; a synopsis is recognised', () => {
    expect(invocations('OUT=r bash .device/run.sh --quick').map((i) => i.kind)).toEqual(['file']);
    expect(invocations('npm run build && npm run bench:ui -- --seconds 60')).toEqual([
      { kind: 'npm', script: 'build', args: [] },
      { kind: 'npm', script: 'bench:ui', args: ['--seconds', '60'] },
    ]);
    expect(invocations('node scripts/webgpu-env.mjs node bin/magic-lab.mjs bench --compare')).toEqual([{ kind: 'magic-lab', sub: 'bench', args: ['--compare'] }]);
    expect(invocations('npx magic-lab ablate FINDING [--seeds 5] | --list')).toHaveLength(1);
    for (const t of ['magic-lab eval --checkpoint F', 'magic-lab data build|inspect', 'magic-lab sweep … --shard I/N', 'magic-lab train [--steps N]']) expect(isSynopsis(t), t).toBe(true);
    for (const t of ['magic-lab sweep --presets magic,grpo --seeds 5', 'npm run bench -- --json bench.json']) expect(isSynopsis(t), t).toBe(false);
    expect(repoPaths(['--config', 'public/checkpoints/base.sft.json', 'runs/x.mlck', 'docs/roofline.svg,'])).toEqual(['public/checkpoints/base.sft.json', 'docs/roofline.svg']);
    expect(splitArgs(`a 'b c' "d \\"e\\"" f`)).toEqual(['a', 'b c', 'd "e"', 'f']);
  });
  it('shortens, writes an inline config to a file and sends outputs to the scratch folder', () => {
    expect(shortened(['--steps', '400', '--seed', '1'], ['--steps', '2', '--png'])).toEqual(['--steps', '2', '--seed', '1', '--png']);
    const [c] = extractCommands('R.md', `<!-- check: run magic-lab train --preset magic --config '{"a": 1}' --out runs/a --json r.json; exit 2 -->`);
    const written: [string, string][] = [];
    const redirected = new Map<string, string>();
    const argv = runnableArgv({ ...c, shorten: ['--steps', '2'] }, '/scratch', (name, json) => (written.push([name, json]), `/scratch/${name}`), redirected);
    expect(argv).toEqual(['train', '--preset', 'magic', '--config', '/scratch/config-1.json', '--out', '/scratch/runs_a', '--json', '/scratch/r.json', '--steps', '2']);
    expect(written).toEqual([['config-1.json', '{"a": 1}']]);
    // A later command that reads that output is sent to it.
    const [resume] = extractCommands('R.md', '`magic-lab train --resume runs/a`');
    expect(runnableArgv(resume, '/scratch', () => '', redirected)).toEqual(['train', '--resume', '/scratch/runs_a']);
    expect(runnableArgv({ ...c, text: 'npm run build' }, '/s', () => '')).toBeNull();
  });
});
