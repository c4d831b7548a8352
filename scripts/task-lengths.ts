/**
 * Response lengths (tokens, EOS included) of a task family's synthetic traces at each
 * difficulty, for docs/tasks.md: the concise style and the default imperfect SFT style
 * (DEFAULT_SFT_CONFIG.style), and the share of imperfect traces that overrun a context (prompt +
 * response longer than it; SFT cuts those). Prints a markdown table.
 *
 *   npx tsx scripts/task-lengths.ts multiply [samples=2000] [seed=1] [context=256]
 */
import { CONCISE_STYLE, encodePrompt, encodeResponse, FAMILY_NAMES, getFamily, isFamilyName, type TraceStyle } from '../src/tasks';
import { DEFAULT_SFT_CONFIG } from '../src/rl/sft';
import { Rng } from '../src/util/rng';

const [name, samplesArg = '2000', seedArg = '1', contextArg = '256'] = process.argv.slice(2);
if (!isFamilyName(name)) {
  console.error(`usage: npx tsx scripts/task-lengths.ts FAMILY [samples] [seed] [context]; FAMILY is one of ${FAMILY_NAMES.join(', ')}`);
  process.exit(2);
}
const samples = Number(samplesArg);
const seed = Number(seedArg);
const context = Number(contextArg);
if (!Number.isInteger(samples) || samples < 1) throw new Error(`samples must be a positive integer, got ${samplesArg}`);
if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seedArg}`);
if (!Number.isInteger(context) || context < 2) throw new Error(`context must be an integer ≥ 2, got ${contextArg}`);

const family = getFamily(name);
const imperfect: TraceStyle = DEFAULT_SFT_CONFIG.style;

/** mean, p50, p95, max of `xs` (nearest-rank percentiles). */
function summary(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const rank = (q: number) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `${mean.toFixed(1)} | ${rank(0.5)} | ${rank(0.95)} | ${s[s.length - 1]}`;
}

console.log(`${name}: ${samples} problems per difficulty, seed ${seed}; response tokens, EOS included.`);
console.log(`Imperfect = wrongStepRate ${imperfect.wrongStepRate}, verboseRate ${imperfect.verboseRate} (the SFT default).\n`);
console.log(`| difficulty | max prompt | concise mean | p50 | p95 | max | imperfect mean | p50 | p95 | max | imperfect correct | imperfect over ${context} |`);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const pct = (k: number) => `${((100 * k) / samples).toFixed(k > 0 && k < samples / 100 ? 1 : 0)}%`;
const rng = new Rng(seed);
for (let d = 1; d <= family.maxDifficulty; d++) {
  const concise: number[] = [];
  const rough: number[] = [];
  let prompt = 0;
  let correct = 0;
  let over = 0;
  for (let i = 0; i < samples; i++) {
    const p = family.generate(rng, d);
    prompt = Math.max(prompt, encodePrompt(p.prompt).length);
    concise.push(encodeResponse(family.trace(p, rng, CONCISE_STYLE)).length);
    const t = family.trace(p, rng, imperfect);
    rough.push(encodeResponse(t).length);
    if (encodePrompt(p.prompt).length + encodeResponse(t).length > context) over++;
    correct += family.verify(p, t);
  }
  console.log(`| ${d} | ${prompt} | ${summary(concise)} | ${summary(rough)} | ${pct(correct)} | ${pct(over)} |`);
}
