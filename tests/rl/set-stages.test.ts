/**
 * A stage edit is validated once, in trainer.setStages; the Worker's resource check runs on that
 * validated config through the `admit` hook and can still refuse the edit.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/model/config';
import { wasmBackend, type WasmBackend } from '../../src/model/cpu-policy';
import { getPreset, type RunConfig } from '../../src/rl/config';
import { MagicTrainer } from '../../src/rl/trainer';

let shared: Promise<WasmBackend> | null = null;
const cpu = () => (shared ??= wasmBackend({ threads: 1 }));
afterAll(async () => (await shared)?.destroy());

describe('trainer.setStages', () => {
  it('hands the validated config to admit, and adopts it only when admit accepts', async () => {
    const t = await MagicTrainer.create(await cpu(), getPreset('magic-tiny'));
    const before = JSON.stringify(t.config);
    const seen: RunConfig[] = [];
    // A partial stage: admit sees it completed from the template (the validated form).
    const edit = [t.config.stages[0], { maxResponseLength: 20, steps: 3 }] as RunConfig['stages'];
    expect(() =>
      t.setStages(edit, (next) => {
        seen.push(next);
        throw new Error('too big for this engine');
      }),
    ).toThrow('too big for this engine');
    expect(seen[0].stages[1]).toEqual({ maxResponseLength: 20, steps: 3, convergence: null, batchPrompts: null, groupSize: null, temperature: null });
    expect(JSON.stringify(t.config)).toBe(before);

    // An invalid edit is refused by validation before admit runs.
    let called = false;
    expect(() => t.setStages([{ ...t.config.stages[0], steps: 0 }], () => (called = true))).toThrow(ConfigError);
    expect(called).toBe(false);

    t.setStages(edit, (next) => seen.push(next));
    expect(t.config).toEqual(seen[1]);
    t.destroy();
  });
});
