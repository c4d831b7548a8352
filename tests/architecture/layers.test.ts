// The layer rule (docs/architecture.md): src/ holds it, and each wrong-way import the clean-up removed would
// fail it again. The fixtures are small virtual trees: the files and the one import that matters.
import { describe, expect, it } from 'vitest';
import path from 'node:path';
// @ts-expect-error plain ESM script without types
import { layerViolations, readSources } from '../../scripts/layers.mjs';

const violations = (files: Record<string, string>): string[] => layerViolations(new Map(Object.entries(files)));

/** A minimal clean tree that the wrong-way fixtures each add one import to. */
const CLEAN: Record<string, string> = {
  'util/rng.ts': 'export const x = 1;',
  'tasks/addition.ts': "import { x } from '../util/rng';",
  'gpu/kernels/loss.ts': 'export const MAX_CONTEXT = 512;',
  'gpu/faults.ts': 'export class DeviceLost {}',
  'cpu/blocks.ts': "import { x } from '../util/rng';",
  'model/config.ts': "import { DeviceLost } from '../gpu/faults';",
  'model/engine.ts': 'export interface PolicyEngine {}',
  'model/gpu-engine.ts': "import type { PolicyEngine } from './engine';\nimport { DeviceLost } from '../gpu/faults';",
  'rl/trainer.ts': "import type { PolicyEngine } from '../model/engine';",
  'rl/run-checkpoint.ts': "import { x } from '../util/rng';",
  'io/runfile.ts': "import type { PolicyEngine } from '../model/engine';",
  'sweep/runner.ts': "import { x } from '../rl/trainer';",
  'cli/args.ts': 'export class UsageError {}',
  'cli/import-verl.ts': "import { y } from '../io/runfile';\nimport { UsageError } from './args';",
  'worker/protocol.ts': "import type { PolicyEngine } from '../model/engine';",
  'ui/lab.ts': "import type { Msg } from '../worker/protocol';\nimport { y } from '../io/runfile';",
};

const withImport = (file: string, line: string): string[] =>
  violations({ ...CLEAN, [file]: `${CLEAN[file] ?? ''}\n${line}` });

describe('layers', () => {
  it('hold in src/: no wrong-way import and no import cycle', () => {
    expect(layerViolations(readSources(path.resolve(__dirname, '../..')))).toEqual([]);
  });

  it('the clean fixture passes', () => {
    expect(violations(CLEAN)).toEqual([]);
  });

  // The six wrong-way imports of the clean-up issue, and the cycle: each would fail the check again.
  it.each([
    ['the CPU engine importing the WebGPU launchers', 'cpu/blocks.ts', "import type { LossOptions } from '../gpu/kernels/loss';", "'cpu' may not import 'gpu'"],
    ['rl importing the WebGPU launchers (KlType)', 'rl/trainer.ts', "import type { KlType } from '../gpu/kernels/loss';", "'rl' may not import 'gpu'"],
    ['the engine interface importing a WebGPU kernel', 'model/engine.ts', "import type { AdamW } from '../gpu/kernels/loss';", 'engine-neutral'],
    ['a kernel importing the model config', 'gpu/kernels/loss.ts', "import { MAX_CONTEXT_LENGTH } from '../../model/config';", "'gpu' may not import 'model'"],
    ['rl reaching a concrete engine', 'rl/trainer.ts', "import type { GpuEngine } from '../model/gpu-engine';", 'PolicyEngine interface'],
    ['the CLI importing the page (run-file format)', 'cli/import-verl.ts', "import { parseRunFile } from '../ui/lib/runfile';", "'cli' may not import 'ui'"],
    ['the sweep runner importing the CLI', 'sweep/runner.ts', "import { UsageError } from '../cli/args';", "'sweep' may not import 'cli'"],
    ['the page importing the GPU, even for a type', 'ui/lab.ts', "import type { DeviceLost } from '../gpu/faults';", "'ui' may not import 'gpu'"],
  ])('fails on %s', (_name, file, line, message) => {
    const v = withImport(file, line);
    expect(v).toHaveLength(1);
    expect(v[0]).toContain(file);
    expect(v[0]).toContain(message);
  });

  it('fails on a type-only import cycle (trainer ↔ run-checkpoint)', () => {
    const v = violations({
      ...CLEAN,
      'rl/run-checkpoint.ts': "import type { TrainerState } from './trainer';",
      'rl/trainer.ts': "import type { RunState } from './run-checkpoint';",
    });
    expect(v).toEqual(['import cycle: rl/run-checkpoint.ts → rl/trainer.ts → rl/run-checkpoint.ts']);
  });

  it('names a room that is not in the table', () => {
    expect(violations({ ...CLEAN, 'plugins/x.ts': "import { x } from '../util/rng';" })[0]).toContain("room 'plugins' is not in the layer table");
  });
});
