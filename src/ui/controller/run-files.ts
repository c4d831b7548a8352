/** Runs and checkpoints as files: export, import (MAGIC Lab exports and cluster logs), checkpoint download and the upload check. */
import { validateRunConfig } from '../../rl/config';
import { loadCheckpoint } from '../../rl/run-checkpoint';
import { warningLines } from '../../verl/import';
import { dbGetCheckpoint } from '../lib/db';
import { downloadBlob, safeFileName } from '../lib/download';
import { importRunFiles, runToCsv, runToJsonl, sameRunRecords, type RunData } from '../../io/runfile';
import type { LabStore } from '../store';
import type { Lab } from './lab-store';

/**
 * Why the uploaded file `fileName` cannot start a run, or null when it can. The whole file
 * (checksum, tensors, run config and state) is checked before the current run is stopped: a
 * truncated, corrupt, wrong-version or inconsistent file is one message and changes nothing.
 */
export function uploadProblem(bytes: ArrayBuffer, fileName: string, s: Pick<LabStore, 'configError' | 'draft'>): string | null {
  const head = new TextDecoder().decode(new Uint8Array(bytes, 0, Math.min(8, bytes.byteLength)));
  if (head !== 'MAGICLAB') return `${fileName}: not a MAGIC Lab checkpoint (.mlck files start with "MAGICLAB").`;
  try {
    const { contents, meta } = loadCheckpoint(new Uint8Array(bytes), fileName);
    if (meta.kind === 'base' && !s.configError) {
      const model = validateRunConfig(s.draft).model;
      if (JSON.stringify(contents.model) !== JSON.stringify(model)) {
        return `checkpoint ${fileName}: holds model ${JSON.stringify(contents.model)}, not the config's ${JSON.stringify(model)}; set the config's model to it first (the current run is unchanged).`;
      }
    }
  } catch (e) {
    return `${(e as Error).message} (the current run is unchanged)`;
  }
  return null;
}

export function runFiles(store: Lab, deps: { persistRun(runId: string, now?: boolean): void; newRunId(): string }) {
  const get = () => store.getState();

  async function downloadCheckpoint(runId: string) {
    const run = get().runs[runId];
    const ck = await dbGetCheckpoint(runId);
    if (!run || !ck) return get().setError('This run has no saved checkpoint yet.');
    downloadBlob(new Blob([ck.bytes], { type: 'application/octet-stream' }), `${safeFileName(run.name)}-step${ck.step}.mlck`);
  }

  function exportRun(runId: string, format: 'jsonl' | 'csv') {
    const run = get().runs[runId];
    if (!run) return;
    const text = format === 'jsonl' ? runToJsonl(run) : runToCsv(run);
    downloadBlob(new Blob([text], { type: format === 'jsonl' ? 'application/x-ndjson' : 'text/csv' }), `${safeFileName(run.name)}.${format}`);
  }

  async function importRunFile(file: Pick<File, 'name' | 'text'>) {
    const s = get();
    try {
      // A MAGIC Lab export, or a cluster run's log (verl console, W&B / TensorBoard CSV, JSONL metrics).
      const imported = importRunFiles([{ name: file.name, text: await file.text() }]);
      const parsed = imported.run;
      // The same file again (or the same run under another name) is not a second row.
      const same = Object.values(s.runs).find((r) => sameRunRecords(r, parsed));
      if (same) return s.setNotice(`${file.name} is already in the list, as ${same.name}.`);
      const id = parsed.id && !s.runs[parsed.id] ? parsed.id : deps.newRunId();
      const run: RunData = { ...parsed, id, checkpointStep: undefined };
      s.addRun(run);
      if (!s.overlay.includes(id) && s.activeRunId !== id) s.toggleOverlay(id);
      deps.persistRun(id, true);
      s.setError(null);
      const skipped = imported.warnings.length ? ` ${imported.warnings.length} warning${imported.warnings.length > 1 ? 's' : ''}: ${warningLines(imported.warnings, 1).join(' ')}` : '';
      if (imported.warnings.length || imported.notes.length) console.warn(`import ${file.name}:\n${[...warningLines(imported.warnings, 200), ...imported.notes].join('\n')}`);
      s.setNotice(`Imported ${file.name} (${imported.format}): ${run.steps.length} steps, ${run.evals.length} evaluations.${skipped}`);
    } catch (e) {
      s.setError(`Import failed — ${(e as Error).message}`);
    }
  }

  return { downloadCheckpoint, exportRun, importRunFile };
}
