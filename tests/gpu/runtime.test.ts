/** The runtime's own behaviour: readable kernel errors, the no-adapter message, limits, pipeline cache. */
import { describe, expect, it } from 'vitest';
import { NO_ADAPTER_HELP, runtimeFromAdapter } from '../../src/gpu/adapter';
import { GpuRuntime, KernelError } from '../../src/gpu/runtime';
import { GpuPolicy } from '../../src/model/policy';
import { validateModelConfig } from '../../src/model/config';
import { gpu } from './harness';

describe('GpuRuntime', () => {
  it('reports a WGSL compile error as a KernelError naming the kernel and the line', async () => {
    const rt = await gpu();
    const broken = new GpuRuntime(rt.device, rt.adapter, () => '@compute @workgroup_size(1)\nfn main() {\n  let x: f32 = undefined_thing;\n}\n');
    const err = await broken.pipeline({ shader: 'broken.wgsl', entry: 'main' }).catch((e) => e);
    expect(err).toBeInstanceOf(KernelError);
    expect(err.message).toMatch(/broken\.wgsl:main failed: line 3:/);
    expect(err.message).toMatch(/undefined_thing/);
  });

  it('caches pipelines by shader, entry and constants', async () => {
    const rt = await gpu();
    const a = await rt.pipeline({ shader: 'elementwise.wgsl', entry: 'add' });
    expect(await rt.pipeline({ shader: 'elementwise.wgsl', entry: 'add' })).toBe(a);
    expect(await rt.pipeline({ shader: 'elementwise.wgsl', entry: 'gelu_forward' })).not.toBe(a);
  });

  it('a missing adapter is one clear error that names the fix, for each host', async () => {
    await expect(runtimeFromAdapter(null, () => '', 'node')).rejects.toThrow(NO_ADAPTER_HELP.node);
    expect(NO_ADAPTER_HELP.node).toMatch(/VK_ICD_FILENAMES=\/usr\/lib\/chromium\/vk_swiftshader_icd\.json/);
    await expect(runtimeFromAdapter(null, () => '', 'browser')).rejects.toThrow(/--enable-unsafe-webgpu/);
  });

  it('refuses a batch whose activations exceed the adapter limit, naming contextLength', async () => {
    const rt = await gpu();
    const cfg = validateModelConfig({ vocabSize: 8, contextLength: 1024, nLayers: 1, dModel: 8, nHeads: 8 });
    const policy = new GpuPolicy(rt, cfg, 'limits');
    // 4096 sequences × 8 heads × 1024² attention probabilities is 128 GiB.
    await expect(policy.trainPlan(4096, 1024)).rejects.toThrow(/^contextLength: model too large for this adapter/);
  });
});
