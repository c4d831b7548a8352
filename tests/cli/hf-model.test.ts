/**
 * `magic-lab logprobs` and `magic-lab tokenize` on the tiny random checkpoints (a 2-layer Llama,
 * BF16, tied head, one file; a 2-layer Qwen2, F32, q/k/v biases, 3 shards; both GQA with a
 * byte-level BPE tokenizer.json), written by scripts/make-tiny-hf.ts's generator into a temporary
 * folder. The log-probs are checked against scripts/hf_reference.py, an independent numpy float64
 * forward with its own safetensors reader, within 2e-3 nats and 1e-4 relative at every position.
 * Broken folders and files are one line, exit 2.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main';
import { tinyHfFolder } from '../../src/model/hf/tiny';
import { cliRunner } from './harness';

const run = cliRunner(main);
const root = mkdtempSync(join(tmpdir(), 'magic-hf-'));
function writeFolder(name: string, files: Map<string, Uint8Array | string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, body] of files) writeFileSync(join(dir, f), body);
  return dir;
}
const llama = writeFolder('llama', tinyHfFolder('llama', 1));
const qwen2 = writeFolder('qwen2', tinyHfFolder('qwen2', 1));

function numpyReference(dir: string, tokens: number[]): { logprobs: number[]; entropies: number[] } {
  const out = execFileSync('python3', ['scripts/hf_reference.py', dir, tokens.join(',')], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: '' } });
  return JSON.parse(out);
}

function expectOneLine(r: { code: number; errLines: string[]; err: string }, msg: RegExp) {
  expect(r.code, r.err).toBe(2);
  expect(r.errLines).toHaveLength(1);
  expect(r.err).not.toMatch(/\bat .*\.(ts|js):\d+/);
  expect(r.err).toMatch(msg);
}

describe('logprobs matches an independent float64 forward (numpy)', () => {
  const sequences = [
    [5, 100, 200, 7, 300, 12],
    [319, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37],
    [42, 42],
  ];
  for (const [arch, dir] of [['llama (BF16, tied head)', llama], ['qwen2 (F32, q/k/v bias, 3 shards)', qwen2]] as const)
    it(`${arch}: every position within 2e-3 nats and 1e-4 relative`, async () => {
      for (const tokens of sequences) {
        const r = await run('logprobs', '--model', dir, '--tokens', tokens.join(','), '--chunk', '37');
        expect(r.code, r.err).toBe(0);
        const got = JSON.parse(r.out);
        expect(got.tokens).toEqual(tokens);
        const want = numpyReference(dir, tokens);
        expect(got.logprobs).toHaveLength(tokens.length - 1);
        got.logprobs.forEach((lp: number, i: number) => {
          const err = Math.abs(lp - want.logprobs[i]);
          expect(err).toBeLessThan(2e-3);
          expect(err / Math.abs(want.logprobs[i])).toBeLessThan(1e-4);
        });
        got.entropies.forEach((h: number, i: number) => expect(Math.abs(h - want.entropies[i]) / want.entropies[i]).toBeLessThan(1e-4));
        // Not a degenerate model: entropies above 0 and below the uniform log V.
        for (const h of got.entropies) expect(h > 0.1 && h < Math.log(320) - 0.05).toBe(true);
      }
    });

  for (const [arch, dir] of [['llama', llama], ['qwen2', qwen2]] as const)
    it(`${arch}: --backend webgpu (the WGSL forward) agrees with numpy within 2e-3 nats and 1e-4 relative`, async () => {
      const tokens = sequences[1];
      const r = await run('logprobs', '--model', dir, '--tokens', tokens.join(','), '--chunk', '37', '--backend', 'webgpu');
      expect(r.code, r.err).toBe(0);
      const got = JSON.parse(r.out);
      expect(got.tokens).toEqual(tokens);
      const want = numpyReference(dir, tokens);
      expect(got.logprobs).toHaveLength(tokens.length - 1);
      got.logprobs.forEach((lp: number, i: number) => {
        expect(Math.abs(lp - want.logprobs[i])).toBeLessThan(2e-3);
        expect(Math.abs(lp - want.logprobs[i]) / Math.abs(want.logprobs[i])).toBeLessThan(1e-4);
      });
      got.entropies.forEach((h: number, i: number) => expect(Math.abs(h - want.entropies[i]) / want.entropies[i]).toBeLessThan(1e-4));
    });

  it('the two architectures differ (the tiny checkpoints are not the same model)', async () => {
    const a = JSON.parse((await run('logprobs', '--model', llama, '--tokens', '1,2,3')).out);
    const b = JSON.parse((await run('logprobs', '--model', qwen2, '--tokens', '1,2,3')).out);
    expect(a.logprobs[0]).not.toBeCloseTo(b.logprobs[0], 3);
  });

  it('--text tokenizes with tokenizer.json first, then scores those ids', async () => {
    const text = 'The answer is 42.';
    const ids = JSON.parse((await run('tokenize', '--model', qwen2, '--text', text)).out).ids;
    const r = JSON.parse((await run('logprobs', '--model', qwen2, '--text', text)).out);
    expect(r.tokens).toEqual(ids);
    expect(r.logprobs).toEqual(JSON.parse((await run('logprobs', '--model', qwen2, '--tokens', ids.join(','))).out).logprobs);
  });
});

describe('tokenize', () => {
  it('prints the BPE ids of the folder tokenizer.json: learned merges for the corpus words, bytes otherwise', async () => {
    const r = await run('tokenize', '--model', llama, '--text', 'The answer is 42.');
    expect(r.code, r.err).toBe(0);
    const { ids } = JSON.parse(r.out);
    const vocab = JSON.parse(readFileSync(join(llama, 'tokenizer.json'), 'utf8')).model.vocab;
    expect(ids).toEqual([vocab.The, vocab['Ġanswer'], vocab['Ġis'], vocab['Ġ42'], vocab['.']]);
    expect(ids.every((i: number) => Number.isInteger(i))).toBe(true);
    expect(ids.every((i: number) => i < 300)).toBe(true);
    expect(ids.some((i: number) => i >= 256)).toBe(true); // merges were used, not only bytes
    // Text the corpus never had falls back to its UTF-8 bytes, ids 0–255 in byte order.
    const raw = await run('tokenize', '--model', llama, '--text', '\u{1F600}');
    expect(JSON.parse(raw.out).ids).toEqual([240, 159, 152, 128]);
  });
});

describe('bad input: one line, exit 2', () => {
  it('a safetensors file whose header length is absurd', async () => {
    const dir = writeFolder('absurd', tinyHfFolder('llama', 1));
    const bytes = readFileSync(join(dir, 'model.safetensors'));
    new DataView(bytes.buffer, bytes.byteOffset).setBigUint64(0, 0x7fffffffffffffffn, true);
    writeFileSync(join(dir, 'model.safetensors'), bytes);
    expectOneLine(await run('logprobs', '--model', dir, '--tokens', '1,2'), /^magic-lab logprobs: .*absurd\/model\.safetensors: header length 9223372036854775807 is absurd/);
  });
  it('a truncated shard', async () => {
    const dir = writeFolder('truncated', tinyHfFolder('qwen2', 1));
    const f = join(dir, 'model-00002-of-00003.safetensors');
    writeFileSync(f, readFileSync(f).subarray(0, 1000));
    expectOneLine(await run('logprobs', '--model', dir, '--tokens', '1,2'), /model-00002-of-00003\.safetensors: (the tensors cover|tensor ".*": data_offsets end \d+ lies past)/);
  });
  it('a folder that does not exist, a file instead of a folder, a folder without weights, an unsupported model_type', async () => {
    expectOneLine(await run('logprobs', '--model', join(root, 'nope'), '--tokens', '1'), /--model: .*nope does not exist/);
    expectOneLine(await run('logprobs', '--model', llama, '--tokens', '1', '--backend', 'cuda'), /--backend: expected one of reference, webgpu, got "cuda"/);
    expectOneLine(await run('logprobs', '--model', join(llama, 'config.json'), '--tokens', '1'), /is not a directory/);
    const empty = join(root, 'empty');
    mkdirSync(empty, { recursive: true });
    expectOneLine(await run('logprobs', '--model', empty, '--tokens', '1'), /empty\/config\.json: no such file/);
    writeFileSync(join(empty, 'config.json'), JSON.stringify({ model_type: 'mistral' }));
    expectOneLine(await run('logprobs', '--model', empty, '--tokens', '1'), /config\.json: model_type "mistral" is not supported/);
    expectOneLine(await run('tokenize', '--model', empty, '--text', 'x'), /empty\/tokenizer\.json: no such file/);
  });
  it('hostile paths inside the folder: a directory or a device where a file belongs, a device as the folder', async () => {
    const dirCfg = writeFolder('dir-config', new Map([...tinyHfFolder('llama', 1)].filter(([f]) => f !== 'config.json')));
    mkdirSync(join(dirCfg, 'config.json'));
    expectOneLine(await run('logprobs', '--model', dirCfg, '--tokens', '1'), /dir-config\/config\.json: a directory, not a regular file/);
    const dev = writeFolder('dev-weights', new Map([...tinyHfFolder('llama', 1)].filter(([f]) => f !== 'model.safetensors')));
    symlinkSync('/dev/zero', join(dev, 'model.safetensors'));
    expectOneLine(await run('logprobs', '--model', dev, '--tokens', '1'), /dev-weights\/model\.safetensors: a device, pipe or socket, not a regular file/);
    expectOneLine(await run('logprobs', '--model', '/dev/zero', '--tokens', '1'), /--model: \/dev\/zero is not a directory/);
    const dirTok = writeFolder('dir-tok', new Map());
    mkdirSync(join(dirTok, 'tokenizer.json'));
    expectOneLine(await run('tokenize', '--model', dirTok, '--text', 'x'), /dir-tok\/tokenizer\.json: a directory, not a regular file/);
  });

  it('bad tokens and flags', async () => {
    expectOneLine(await run('logprobs', '--model', llama, '--tokens', '1,x'), /--tokens: expected comma-separated non-negative integers/);
    expectOneLine(await run('logprobs', '--model', llama, '--tokens', '1,320'), /--tokens: token 320 is outside the model's vocabulary \[0, 320\)/);
    expectOneLine(await run('logprobs', '--model', llama, '--tokens', Array(257).fill(1).join(',')), /257 tokens, more than the model's max_position_embeddings 256/);
    expectOneLine(await run('logprobs', '--model', llama), /give exactly one of --tokens and --text/);
    expectOneLine(await run('logprobs', '--tokens', '1'), /--model DIR is required/);
    expectOneLine(await run('tokenize', '--model', llama), /--text .* is required/);
    const brokenTok = writeFolder('badtok', new Map([['tokenizer.json', '{"model": {"type": "WordPiece"}}']]));
    expectOneLine(await run('tokenize', '--model', brokenTok, '--text', 'x'), /badtok\/tokenizer\.json: model\.type "WordPiece" is not supported yet/);
  });
});
