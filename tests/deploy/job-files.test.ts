/**
 * The container and scheduler files in deploy/ cannot run here (no Docker, no cluster), so this checks what can go
 * stale without anyone noticing: every `magic-lab` command they write uses only flags the CLI knows, every job runs
 * its shard (--shard INDEX/N) in its own --out, and the image is Debian bookworm Node 20 with Chromium.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FlagSpec } from '../../src/cli/args';
import { MERGE_FLAGS } from '../../src/cli/sweep-shard';
import { SWEEP_FLAGS } from '../../src/cli/sweep';
import { TRAIN_FLAGS } from '../../src/cli/train';

const DEPLOY = join(__dirname, '../../deploy');
const read = (f: string) => readFileSync(join(DEPLOY, f), 'utf8');
const TABLES: Record<string, Record<string, FlagSpec>> = { 'sweep merge': MERGE_FLAGS, sweep: SWEEP_FLAGS, train: TRAIN_FLAGS };

/** Each `magic-lab[.mjs] COMMAND …` in a file (shell continuations joined, in comments too): the command and its flags. */
export function magicLabCommands(text: string): { command: string; flags: string[]; line: string }[] {
  const joined = text.replace(/\\\n\s*#?\s*/g, ' ');
  const out: { command: string; flags: string[]; line: string }[] = [];
  for (const m of joined.matchAll(/\bmagic-lab(?:\.mjs)?\s+(sweep merge|sweep|train)\b([^\n]*)/g)) {
    const flags = m[2].split(/\s+/).filter((t) => t.startsWith('--')).map((t) => t.slice(2).split('=')[0]);
    out.push({ command: m[1], flags, line: m[0] });
  }
  return out;
}

/** The flags of `commands` that the CLI's tables lack, as "command --flag". */
export function unknownFlags(commands: ReturnType<typeof magicLabCommands>): string[] {
  return commands.flatMap((c) => c.flags.filter((f) => !(f in TABLES[c.command])).map((f) => `${c.command} --${f}`));
}

describe('deploy/ job files', () => {
  it('the check finds commands across continuation lines and fails on a flag the CLI lacks', () => {
    const cmds = magicLabCommands('run node bin/magic-lab.mjs sweep --presets a \\\n   --shard "$I/$N" --bogus 1 --out=x\n# magic-lab train --steps 2');
    expect(cmds.map((c) => [c.command, c.flags])).toEqual([
      ['sweep', ['presets', 'shard', 'bogus', 'out']],
      ['train', ['steps']],
    ]);
    expect(unknownFlags(cmds)).toEqual(['sweep --bogus']);
  });

  for (const file of ['slurm-sweep.sh', 'k8s-sweep-job.yaml']) {
    it(`${file}: a sweep shard per task, with the CLI's flags`, () => {
      const cmds = magicLabCommands(read(file));
      expect(unknownFlags(cmds)).toEqual([]);
      const shard = cmds.filter((c) => c.command === 'sweep' && c.flags.includes('shard'));
      expect(shard.length, 'one sweep --shard command').toBe(1);
      expect(shard[0].line).toMatch(/--shard "\$INDEX\/\$N"/);
      // Each shard its own directory, named by its index.
      expect(shard[0].line).toMatch(/--out "[^"]*\$INDEX"/);
      expect(cmds.some((c) => c.command === 'sweep merge')).toBe(true);
    });
  }

  it('k8s-sweep-job.yaml: an Indexed Job whose N is its completions', () => {
    const y = read('k8s-sweep-job.yaml');
    expect(y).toMatch(/completionMode: Indexed/);
    const completions = Number(/\bcompletions: (\d+)/.exec(y)?.[1]);
    expect(Number(/- name: N\s+value: "(\d+)"/.exec(y)?.[1])).toBe(completions);
    expect(y).toMatch(/INDEX=\$\(\(JOB_COMPLETION_INDEX \+ 1\)\)/);
  });

  it('slurm-sweep.sh: shards 1 … N from the array, whatever its first index', () => {
    const s = read('slurm-sweep.sh');
    expect(s).toMatch(/^#SBATCH --array=/m);
    expect(s).toMatch(/N=\$\{SLURM_ARRAY_TASK_COUNT\}/);
    expect(s).toMatch(/INDEX=\$\(\(SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN \+ 1\)\)/);
  });

  it('Dockerfile: Debian bookworm Node 20 with Chromium, a smoke run at build, magic-lab as the entry point', () => {
    const d = read('Dockerfile');
    expect(d).toMatch(/^FROM node:20-bookworm\b/m);
    expect(d).toMatch(/apt-get install[^\n]*\bchromium\b/);
    expect(d).toMatch(/^ENTRYPOINT \["node", "scripts\/webgpu-env\.mjs", "node", "bin\/magic-lab\.mjs"\]/m);
    const cmds = magicLabCommands(d);
    expect(unknownFlags(cmds)).toEqual([]);
    expect(cmds.some((c) => c.command === 'train' && c.line.includes('--preset magic-tiny') && c.line.includes('--steps 2'))).toBe(true);
  });
});
