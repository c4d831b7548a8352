/**
 * `magic-lab train --model DIR --steps 2`, full and `--lora 4`, on the tiny Llama (BF16, tied head, one file)
 * and Qwen2 (F32, q/k/v biases, 3 shards) folders: each logs actor/entropy (and a non-zero gradient, with a
 * constant entropy coefficient so a batch without reward signal still trains), and exports a model folder that
 * `logprobs --model` loads, changed where the mode trains and nowhere else. Refusals are one line, exit 2.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { tinyHfFolder } from '../../src/model/hf/tiny';
import { expectedTensors, loadHfWeights, type HfWeights } from '../../src/model/hf/weights';
import { nodeModelFolder } from '../../src/run/model-folder';
import { cliRunner } from './harness';

const run = cliRunner(main);
const root = mkdtempSync(join(tmpdir(), 'magic-hf-train-'));
function writeFolder(name: string, files: Map<string, Uint8Array | string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, body] of files) writeFileSync(join(dir, f), body);
  return dir;
}
const folders = { llama: writeFolder('llama', tinyHfFolder('llama', 1)), qwen2: writeFolder('qwen2', tinyHfFolder('qwen2', 1)) };
const config = join(root, 'small.json');
writeFileSync(
  config,
  JSON.stringify({
    data: { offlineFilter: { enabled: false }, onlineFilter: false },
    rollout: { batchPrompts: 2, groupSize: 3 },
    stages: [{ maxResponseLength: 6, steps: 10 }],
    rejection: { mode: 'off' },
    loss: { entropy: { mode: 'constant', constantCoef: 0.05 } },
    eval: { everySteps: 0 },
  }),
);
const tensor = (w: HfWeights, t: { layer: number; key: string }) =>
  t.layer >= 0 ? (w.layers[t.layer] as unknown as Record<string, Float32Array>)[t.key] : (w as unknown as Record<string, Float32Array>)[t.key];

describe('train --model', () => {
  for (const arch of ['llama', 'qwen2'] as const)
    for (const lora of [null, 4])
      it(`${arch}, ${lora ? `--lora ${lora}` : 'full'}: two steps log actor/entropy and export a loadable model`, async () => {
        const out = join(root, `run-${arch}-${lora ?? 'full'}`);
        const r = await run('train', '--model', folders[arch], '--steps', '2', '--config', config, '--out', out, ...(lora ? ['--lora', String(lora)] : []));
        expect(r.code, r.err).toBe(0);
        expect(r.out).toMatch(/resource check: fits/);
        const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        expect(lines.map((l) => l.step)).toEqual([1, 2]);
        for (const l of lines) {
          expect(l['actor/entropy']).toBeGreaterThan(0);
          expect(l['actor/entropy']).toBeLessThanOrEqual(Math.log(320) + 1e-9);
          expect(l['actor/grad_norm']).toBeGreaterThan(0);
          expect(l['actor/entropy_coeff_realized']).toBe(0.05);
        }
        expect(r.out).toMatch(/step 2 .* entropy \d\.\d{3}/);
        const base = await loadHfWeights(nodeModelFolder(folders[arch]));
        const trained = await loadHfWeights(nodeModelFolder(join(out, 'model')));
        expect(trained.config).toEqual(base.config);
        const changed = expectedTensors(base.config).filter((t) => tensor(trained, t).some((x, i) => x !== tensor(base, t)[i])).map((t) => t.key);
        if (lora) expect(new Set(changed)).toEqual(new Set(['q', 'k', 'v', 'o', 'gate', 'up', 'down']));
        else expect(changed).toContain('embed');
        const lp = await run('logprobs', '--model', join(out, 'model'), '--text', 'The answer is 42.');
        expect(lp.code, lp.err).toBe(0);
        expect(JSON.parse(lp.out).logprobs.every((x: number) => Number.isFinite(x) && x < 0)).toBe(true);
      });

  it('refusals: a run that does not fit, --lora-alpha without --lora, a non-empty --out, a missing folder', async () => {
    const cases: [string[], RegExp][] = [
      [['--memory-gib', '0.000001'], /resource check: does not fit: llama/],
      [['--lora-alpha', '8'], /--lora-alpha needs --lora/],
      [['--out', root], /is not empty/],
    ];
    for (const [extra, msg] of cases) {
      const r = await run('train', '--model', folders.llama, '--steps', '1', '--config', config, ...(extra[0] === '--out' ? [] : ['--out', join(root, 'refused')]), ...extra);
      expect(r.code, r.err).toBe(2);
      expect(r.errLines).toHaveLength(1);
      expect(r.err).toMatch(msg);
    }
    const missing = await run('train', '--model', join(root, 'nope'), '--steps', '1', '--out', join(root, 'refused2'));
    expect(missing.code).toBe(2);
    expect(missing.errLines).toHaveLength(1);
  });
});

describe('export-verl --model', () => {
  it('MODEL_PATH defaults to the checked folder in every stage script and NOTES.md, with --scale too; a folder that is not a model is one line, exit 2', async () => {
    for (const scale of [[], ['--scale', '1.5b']]) {
      const out = join(root, `verl-${scale.length}`);
      const r = await run('export-verl', '--preset', 'magic', '--model', folders.qwen2, '--out', out, ...scale);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(/MODEL_PATH defaults to .*qwen2 \(qwen2\)/);
      for (const f of ['run_stage1.sh', 'run_stage2.sh']) expect(readFileSync(join(out, f), 'utf8')).toContain(`: "\${MODEL_PATH:=${folders.qwen2}}"`);
      expect(readFileSync(join(out, 'NOTES.md'), 'utf8')).toContain(folders.qwen2);
    }
    const plain = join(root, 'verl-plain');
    expect((await run('export-verl', '--preset', 'magic', '--out', plain)).code).toBe(0);
    expect(readFileSync(join(plain, 'run_stage1.sh'), 'utf8')).not.toContain(folders.qwen2);
    const bad = await run('export-verl', '--preset', 'magic', '--model', root, '--out', join(root, 'verl-bad'));
    expect(bad.code).toBe(2);
    expect(bad.errLines).toHaveLength(1);
    expect(bad.err).toMatch(/config\.json/);
  });
});

describe('eval --model', () => {
  it('the lab\'s held-out metrics for a model folder, the same for the same seed; a response too long for the model is one line, exit 2', async () => {
    const argv = ['eval', '--model', folders.llama, '--config', config, '--k', '2', '--problems', '3', '--temperatures', '1,0.6'];
    const a = await run(...argv), b = await run(...argv);
    expect(a.code, a.err).toBe(0);
    const rec = JSON.parse(a.out);
    expect(rec).toEqual(JSON.parse(b.out));
    expect(rec.problems).toBe(3);
    for (const t of ['1.0', '0.6']) {
      expect(rec[`val/avg@2/t${t}`]).toBeGreaterThanOrEqual(0);
      expect(rec[`val/pass@2/t${t}`]).toBeGreaterThanOrEqual(rec[`val/avg@2/t${t}`]);
      expect(rec[`val/entropy/t${t}`]).toBeGreaterThan(0);
    }
    expect(rec['val/entropy/t0.6']).toBeLessThan(rec['val/entropy/t1.0']);
    const long = join(root, 'long.json');
    writeFileSync(long, JSON.stringify({ model: { contextLength: 512 }, stages: [{ maxResponseLength: 250, steps: 1 }], eval: { everySteps: 0 } }));
    const r = await run('eval', '--model', folders.llama, '--config', long, '--k', '1', '--problems', '1');
    expect(r.code).toBe(2);
    expect(r.errLines).toHaveLength(1);
    expect(r.err).toMatch(/max_position_embeddings 256/);
  });
});

describe('bench --hf', () => {
  it('reports sampling and training rates and memory for a shape, full and LoRA; an unknown shape is one line, exit 2', async () => {
    const full = await run('bench', '--hf', 'tiny-qwen2', '--prompt', '5', '--response', '3', '--rows', '2', '--json');
    expect(full.code, full.err).toBe(0);
    const f = JSON.parse(full.out);
    expect(f).toMatchObject({ shape: 'tiny-qwen2', mode: 'full', params: 36128, trainable: 36128, promptTokens: 5, responseTokens: 3, rows: 2 });
    for (const k of ['sampleTokensPerS', 'prefillTokensPerS', 'trainTokensPerS', 'rssMiB', 'estimateMiB']) expect(f[k]).toBeGreaterThan(0);
    const lora = JSON.parse((await run('bench', '--hf', 'tiny-llama', '--lora', '2', '--prompt', '4', '--response', '2', '--json')).out);
    expect(lora.mode).toBe('lora r=2');
    expect(lora.trainable).toBe(2 * 2 * (32 + 32 + 32 + 8 + 32 + 8 + 32 + 32 + 32 + 48 + 32 + 48 + 48 + 32));
    const bad = await run('bench', '--hf', 'gpt2');
    expect(bad.code).toBe(2);
    expect(bad.errLines).toHaveLength(1);
    expect(bad.err).toMatch(/--hf: unknown shape "gpt2"/);
  });
});

describe('train --model with held-out evaluation', () => {
  it('eval.everySteps 1: an eval record after each step, shown on the progress line', async () => {
    const cfgFile = join(root, 'with-eval.json');
    const base = JSON.parse(readFileSync(config, 'utf8'));
    writeFileSync(cfgFile, JSON.stringify({ ...base, eval: { everySteps: 1, k: 2, temperatures: [1], testProblems: 2 } }));
    const out = join(root, 'run-eval');
    const r = await run('train', '--model', folders.llama, '--lora', '2', '--steps', '2', '--config', cfgFile, '--out', out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(/not applied.*eval/);
    const lines = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => `${l.type ?? 'step'}@${l.step}`)).toEqual(['step@1', 'eval@1', 'step@2', 'eval@2']);
    for (const e of lines.filter((l) => l.type === 'eval')) {
      expect(e['val/avg@2/t1.0']).toBeGreaterThanOrEqual(0);
      expect(e['val/entropy/t1.0']).toBeGreaterThan(0);
    }
    expect(r.out).toMatch(/step 2 .* val \d\.\d{3}/);
  });
});
