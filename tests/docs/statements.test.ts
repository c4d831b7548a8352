/**
 * Statements the documents make about the code, checked so they cannot drift: docs/architecture.md
 * says no file under src/ is over 500 lines, and which generated or data files are exempt.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const files = (dir: string): string[] => readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));

describe('docs/architecture.md: no file under src/ over 500 lines', () => {
  const architecture = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
  const EXEMPT = ['src/cpu/kernels.wasm.ts', 'src/verl/reward.py'];
  it('says so, naming the exempt files', () => {
    expect(architecture).toContain('No file under `src/` is over 500 lines');
    for (const f of EXEMPT) expect(architecture).toContain(`\`${f}\``);
  });
  it('holds', () => {
    const long = files('src')
      .filter((f) => !EXEMPT.includes(f) && /\.(ts|tsx|css|wgsl|mjs|py)$/.test(f))
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > 500);
    expect(long).toEqual([]);
  });
});
