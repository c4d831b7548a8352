import { describe, expect, it } from 'vitest';
import { getPreset } from '../../../src/rl/config';
import { runFiles, uploadProblem } from '../../../src/ui/controller/run-files';
import { runToJsonl } from '../../../src/io/runfile';
import { createLabStore } from '../../../src/ui/store';
import { fakeRun } from '../helpers';

const draft = { configError: null, draft: getPreset('magic-tiny') };
const bytes = (text: string) => new TextEncoder().encode(text).buffer as ArrayBuffer;

describe('run files', () => {
  it('an upload that is not a whole, valid checkpoint is one message', () => {
    expect(uploadProblem(bytes('PK\u0003\u0004zip'), 'x.mlck', draft)).toBe('x.mlck: not a MAGIC Lab checkpoint (.mlck files start with "MAGICLAB").');
    expect(uploadProblem(new ArrayBuffer(0), 'empty.mlck', draft)).toMatch(/^empty\.mlck: not a MAGIC Lab checkpoint/);
    expect(uploadProblem(bytes('MAGICLAB then nothing useful'), 'cut.mlck', draft)).toMatch(/ \(the current run is unchanged\)$/);
  });

  it('imports an exported run once, overlaid, and says so', async () => {
    const store = createLabStore();
    const persisted: string[] = [];
    const files = runFiles(store, { persistRun: (id) => persisted.push(id), newRunId: () => 'run-new' });
    const run = fakeRun('run-x', 4);
    const file = { name: 'x.jsonl', text: async () => runToJsonl(run) };
    await files.importRunFile(file);
    const s = store.getState();
    expect(Object.keys(s.runs)).toEqual(['run-x']);
    expect(s.runs['run-x'].steps).toHaveLength(4);
    expect(s.overlay).toContain('run-x');
    expect(persisted).toEqual(['run-x']);
    expect(s.notice).toMatch(/^Imported x\.jsonl \(.+\): 4 steps, 1 evaluations\.$/);
    await files.importRunFile({ ...file, name: 'again.jsonl' });
    expect(store.getState().notice).toBe(`again.jsonl is already in the list, as ${run.name}.`);
    await files.importRunFile({ name: 'bad.jsonl', text: async () => 'not a run' });
    expect(store.getState().error).toMatch(/^Import failed — /);
  });
});
