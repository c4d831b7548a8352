// Writes the tiny random checkpoints of src/model/hf/tiny.ts into a folder, one sub-folder per
// architecture (llama/: BF16, tied head, one file; qwen2/: F32, q/k/v biases, 3 shards), each with
// its byte-level BPE tokenizer.json. Deterministic: the same seed writes the same bytes.
//   npx tsx scripts/make-tiny-hf.ts OUT_DIR [--seed N]
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tinyHfFolder } from '../src/model/hf/tiny';

const [out, ...rest] = process.argv.slice(2);
const seedAt = rest.indexOf('--seed');
const seed = seedAt >= 0 ? Number(rest[seedAt + 1]) : 1;
if (!out || !Number.isInteger(seed)) {
  console.error('usage: npx tsx scripts/make-tiny-hf.ts OUT_DIR [--seed N]');
  process.exit(2);
}
for (const arch of ['llama', 'qwen2'] as const) {
  const dir = path.join(out, arch);
  mkdirSync(dir, { recursive: true });
  for (const [name, body] of tinyHfFolder(arch, seed)) writeFileSync(path.join(dir, name), body);
  console.log(`${dir}: tiny ${arch} (seed ${seed})`);
}
