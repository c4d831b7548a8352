/**
 * `magic-lab compare --a DIR_A --b DIR_B [--out FILE]`: two finished sweeps paired by seed (for
 * example the same presets and seeds on the WebGPU path and on the CPU engine), per preset both
 * ran: each side's mean and B − A with its 95% interval (src/sweep/compare.ts).
 */

import { replaceFileWhole } from '../run/write-file';
import { join } from 'node:path';
import { compareSweeps, comparisonMarkdown, type SweepComparison } from '../sweep/compare';
import type { Summary } from '../sweep/summary';
import { parseFlags, UsageError, type FlagSpec } from './args';
import { existsStored, readStoredText } from '../sweep/gz-file';

export const COMPARE_FLAGS: Record<string, FlagSpec> = {
  a: { type: 'string', help: 'sweep directory A (holds summary.json) (required)' },
  b: { type: 'string', help: 'sweep directory B, compared as B − A (required)' },
  out: { type: 'string', help: 'also write the comparison as Markdown to this file' },
  help: { type: 'bool', help: 'show this help' },
};

function readSummary(dir: string, flag: string): Summary {
  const file = join(dir, 'summary.json');
  if (!existsStored(file)) throw new UsageError(`${flag}: ${file} does not exist (run the sweep first)`);
  let s: Summary;
  try {
    s = JSON.parse(readStoredText(file)) as Summary; // summary.json, or summary.json.gz in reports/
  } catch (e) {
    throw new UsageError(`${flag}: ${file} is not JSON (${(e as Error).message})`);
  }
  if (typeof s !== 'object' || s === null || !Array.isArray(s.runs) || typeof s.presets !== 'object' || typeof s.sweep !== 'object') {
    throw new UsageError(`${flag}: ${file} is not a sweep summary (no runs/presets/sweep)`);
  }
  return s;
}

export async function compare(argv: string[], log: (s: string) => void = console.log): Promise<SweepComparison> {
  const flags = parseFlags(argv, COMPARE_FLAGS, 'compare');
  if (flags.a === undefined || flags.b === undefined) throw new UsageError('compare: --a DIR and --b DIR are required');
  const [a, b] = [String(flags.a), String(flags.b)];
  const sa = readSummary(a, '--a');
  const sb = readSummary(b, '--b');
  let c: SweepComparison;
  try {
    c = compareSweeps(sa, sb, a, b);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(`compare: ${e.message}`);
    throw e;
  }
  const md = comparisonMarkdown(c);
  log(md);
  if (flags.out !== undefined) replaceFileWhole(String(flags.out), md + '\n');
  return c;
}
