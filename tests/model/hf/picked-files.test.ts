/**
 * A model folder picked in the page (File objects, read by slice) loads the same weights and
 * tokenizer as from memory, reading only header and tensor slices; duplicates and missing files
 * are one message. Also: scripts/make-tiny-hf.ts writes folders the Node loader reads back to
 * the same weights.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryFolder, ModelFolderError } from '../../../src/model/hf/files';
import { pickedModelFolder, type PickedFile } from '../../../src/model/hf/picked-files';
import { tinyHfFolder } from '../../../src/model/hf/tiny';
import { loadHfTokenizer } from '../../../src/model/hf/tokenizer';
import { loadHfWeights } from '../../../src/model/hf/weights';
import { nodeModelFolder } from '../../../src/run/model-folder';

describe('a picked model folder', () => {
  it('loads the same weights and tokenizer as from memory, by slices', async () => {
    const files = tinyHfFolder('qwen2', 4);
    const slices: [string, number, number][] = [];
    const picked: PickedFile[] = [...files].map(([name, body]) => {
      const f = new File([typeof body === 'string' ? body : new Uint8Array(body)], `my-model/${name}`);
      return { name: f.name, size: f.size, slice: (a: number, b: number) => (slices.push([name, a, b]), f.slice(a, b)) };
    });
    const folder = pickedModelFolder('my-model', picked);
    expect(await loadHfWeights(folder)).toEqual(await loadHfWeights(memoryFolder('m', files)));
    expect((await loadHfTokenizer(folder)).encode('the answer')).toEqual((await loadHfTokenizer(memoryFolder('m', files))).encode('the answer'));
    const weightSlices = slices.filter(([n]) => n.endsWith('.safetensors'));
    expect(weightSlices.every(([n, a, b]) => b - a < (files.get(n) as Uint8Array).length)).toBe(true); // never a whole weight file at once
  });

  it('refuses two files of one name and names a missing one', async () => {
    const f = (n: string) => new File(['{}'], n);
    expect(() => pickedModelFolder('x', [f('a/config.json'), f('b/config.json')])).toThrow(/two files named config\.json were picked/);
    await expect(loadHfWeights(pickedModelFolder('x', [f('tokenizer.json')]))).rejects.toThrow(ModelFolderError);
    await expect(loadHfWeights(pickedModelFolder('x', [f('tokenizer.json')]))).rejects.toThrow(/x\/config\.json: not among the picked files/);
  });
});

describe('scripts/make-tiny-hf.ts', () => {
  it('writes both tiny models to disk, loadable by the Node folder reader, equal to the in-memory ones', async () => {
    const out = mkdtempSync(join(tmpdir(), 'magic-tiny-hf-'));
    execFileSync(process.execPath, ['node_modules/.bin/tsx', 'scripts/make-tiny-hf.ts', out, '--seed', '3'], { encoding: 'utf8' });
    for (const arch of ['llama', 'qwen2'] as const)
      expect(await loadHfWeights(nodeModelFolder(join(out, arch)))).toEqual(await loadHfWeights(memoryFolder('m', tinyHfFolder(arch, 3))));
  }, 60_000);
});
