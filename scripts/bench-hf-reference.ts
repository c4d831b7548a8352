// What today's real-model path costs at SmolLM2-135M's size (random weights, its published config):
// writing the model as one BF16 safetensors file, loading it back through the bounded reader
// (BF16 → f32), and the float64 reference forward's per-token log-probs over its 49,152-token
// vocabulary in 4,096-row chunks. Prints one JSON object; BENCHMARKS.md records the numbers.
//   npx tsx scripts/bench-hf-reference.ts [--tokens 16] [--dir /tmp/magic-hf-bench]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { parseHfConfig, hfParamCount } from '../src/model/hf/config';
import { hfTokenLogprobs } from '../src/model/hf/reference-forward';
import { tinyHfWeights } from '../src/model/hf/tiny';
import { encodeHfFolder, loadHfWeights } from '../src/model/hf/weights';
import { nodeModelFolder } from '../src/run/model-folder';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const T = Number(arg('tokens', '16'));
const dir = arg('dir', '/tmp/magic-hf-bench');
const config = parseHfConfig({
  model_type: 'llama', hidden_act: 'silu', hidden_size: 576, intermediate_size: 1536, num_attention_heads: 9, num_hidden_layers: 30,
  num_key_value_heads: 3, rms_norm_eps: 1e-5, rope_theta: 100000, tie_word_embeddings: true, vocab_size: 49152, max_position_embeddings: 8192,
}, 'SmolLM2-135M config');
const gib = (b: number) => +(b / 1024 ** 3).toFixed(3);
const load0 = loadavg()[0];
let t = performance.now();
const weights = tinyHfWeights(config, 1);
const makeS = (performance.now() - t) / 1000;
t = performance.now();
const files = encodeHfFolder(weights, { dtype: 'BF16', shards: 1 });
mkdirSync(dir, { recursive: true });
for (const [name, body] of files) writeFileSync(path.join(dir, name), body);
const fileBytes = (files.get('model.safetensors') as Uint8Array).length;
files.clear();
const writeS = (performance.now() - t) / 1000;
t = performance.now();
const loaded = await loadHfWeights(nodeModelFolder(dir));
const loadS = (performance.now() - t) / 1000;
const tokens = Array.from({ length: T }, (_, i) => (i * 7919) % config.vocabSize);
t = performance.now();
const out = hfTokenLogprobs(loaded, tokens);
const forwardS = (performance.now() - t) / 1000;
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({
  date: new Date().toISOString(), params: hfParamCount(config), safetensorsBytes: fileBytes, tokens: T,
  randomInitS: +makeS.toFixed(2), writeBf16S: +writeS.toFixed(2), loadBf16S: +loadS.toFixed(2), loadMBps: +(fileBytes / 1e6 / loadS).toFixed(1),
  forwardS: +forwardS.toFixed(2), tokensPerS: +(T / forwardS).toFixed(2), gflopPerS: +((2 * hfParamCount(config) * T) / forwardS / 1e9).toFixed(3),
  rssGiB: gib(process.memoryUsage().rss), loadavgBefore: load0, loadavgAfter: loadavg()[0], meanLogprob: out.logprobs.reduce((a, b) => a + b, 0) / out.logprobs.length,
}));
