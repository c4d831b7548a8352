/**
 * Rewrites a weights-only base checkpoint with its parameters in IEEE half floats (dtype "f16"), as
 * `magic-lab sft --weights-only --f16` writes them: half the size, loading as the rounded f32 values.
 * Meta is kept, except a stored offline-filter result: its key is the f32 weights' checksum, which
 * the rounded weights no longer match, so it is dropped (a run would ignore it and re-sample);
 * store a fresh one with `magic-lab data filter --rung NAME --write`. The f32 weights' checksum is
 * recorded as meta.halfOf, so the file says which f32 base it rounds.
 *
 *   npx tsx scripts/half-checkpoint.ts public/checkpoints/base-small.mlck
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { decodeCheckpoint, encodeCheckpoint } from '../src/model/checkpoint';
import { weightsChecksum } from '../src/rl/offline-sampling';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: npx tsx scripts/half-checkpoint.ts FILE.mlck…');
  process.exit(2);
}
for (const file of files) {
  const ck = decodeCheckpoint(new Uint8Array(readFileSync(file)), file);
  if (ck.adam) {
    console.error(`${file}: has AdamW moments; f16 is for weights-only bases`);
    process.exit(2);
  }
  if (ck.weightsDtype === 'f16') {
    console.log(`${file}: already f16, unchanged`);
    continue;
  }
  const { offlineFilter, ...meta } = ck.meta as Record<string, unknown>;
  const out = encodeCheckpoint({ model: ck.model, params: ck.params, meta: { ...meta, halfOf: weightsChecksum(ck.params) }, weightsDtype: 'f16' });
  const back = decodeCheckpoint(out, file);
  let maxRel = 0;
  let maxAbs = 0;
  for (let i = 0; i < ck.params.length; i++) {
    const d = Math.abs(back.params[i] - ck.params[i]);
    maxAbs = Math.max(maxAbs, d);
    if (Math.abs(ck.params[i]) > 6.2e-5) maxRel = Math.max(maxRel, d / Math.abs(ck.params[i])); // half normals (below: subnormal steps)
  }
  writeFileSync(`${file}.tmp`, out);
  renameSync(`${file}.tmp`, file);
  console.log(
    `${file}: f32 → f16 (${readFileSync(file).length} bytes; was ${ck.params.length * 4} of weights); largest rounding ${maxAbs.toExponential(2)} absolute, ${maxRel.toExponential(2)} relative on normal halves` +
      (offlineFilter ? '; the stored offline-filter result was for the f32 weights and is dropped: re-store it with `magic-lab data filter --write`' : ''),
  );
}
