/**
 * Rewrites checkpoints in the current format version (src/model/checkpoint.ts), keeping every
 * tensor and meta value bit-identical: the contents' version-1 encoding is compared before and
 * after, byte for byte. This build still reads version 1, so this is only needed for files that
 * should carry the whole-file checksum (the shipped public/checkpoints/*.mlck were made with it).
 *
 *   npx tsx scripts/upgrade-checkpoint.ts public/checkpoints/base.mlck public/checkpoints/base-tiny.mlck
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { CHECKPOINT_VERSION, crc32Label, decodeCheckpoint, encodeCheckpoint } from '../src/model/checkpoint';
import { loadCheckpoint } from '../src/rl/run-checkpoint';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/upgrade-checkpoint.ts FILE.mlck…');
  process.exit(2);
}
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(file));
  const version = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
  const { contents } = loadCheckpoint(bytes, file); // the whole file checked, meta included
  const out = encodeCheckpoint(contents);
  const before = encodeCheckpoint(contents, 1);
  const after = encodeCheckpoint(decodeCheckpoint(out, file), 1);
  if (before.length !== after.length || before.some((b, i) => b !== after[i])) throw new Error(`${file}: the re-encoded contents differ; not written`);
  writeFileSync(`${file}.tmp`, out);
  renameSync(`${file}.tmp`, file);
  console.log(`${file}: version ${version} → ${CHECKPOINT_VERSION} (${bytes.length} → ${out.length} bytes); contents identical (version-1 encoding ${crc32Label(before)})`);
}
