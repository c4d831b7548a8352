// Records tests/verl/fixtures/import-golden/ (run: npx tsx tests/verl/gen-import-golden.ts). Recorded once from the
// in-memory importer before import-verl streamed; re-run only when an import rule changes on purpose.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { importRunFiles, runToJsonl } from '../../src/io/runfile';
import { GOLDEN_CASES } from './import-golden-cases';
const FIX = join(import.meta.dirname, 'fixtures');
Date.now = () => 1700000000000;
for (const c of GOLDEN_CASES) {
  const files = c.files.map((f) => ({ name: f, text: readFileSync(join(FIX, f), 'utf8') }));
  const imp = importRunFiles(files, c.opts ?? {});
  writeFileSync(join(FIX, 'import-golden', `${c.id}.run.jsonl`), runToJsonl(imp.run));
  writeFileSync(join(FIX, 'import-golden', `${c.id}.log.txt`), [`format: ${imp.format}`, ...imp.warnings.map((w) => `warning ${w.file}:${w.line}: ${w.reason}`), ...imp.notes.map((n) => `note ${n}`)].join('\n') + '\n');
}
