/**
 * The page's controller: owns the LabClient (the Worker), routes its messages into the store,
 * keeps runs and checkpoints in IndexedDB, keeps the URL in sync with the config, and
 * implements the user actions (play, pause, step, reset, checkpoints, run files), loads the
 * reference runs (public/reference/) and runs the queue of "Run this finding here".
 * Components call these functions; they never talk to the Worker directly.
 */
import { presetNames, validateRunConfig, type RunConfig, type StageConfig } from '../rl/config';
import { loadCheckpoint } from '../rl/run-checkpoint';
import { browserHostLimits, checkRunResources } from '../rl/resources';
import { LabClient } from '../worker/client';
import type { FromWorker, TokenProbsAnswer, ToWorker } from '../worker/protocol';
import { dbAllRuns, dbDeleteRun, dbGetCheckpoint, dbPutCheckpoint, dbPutRun, onStorageProblem, requestPersistentStorage, type StoredCheckpoint } from './lib/db';
import { downloadBlob, safeFileName } from './lib/download';
import { currentIndex, nextToStart, planQueue, queuedRunConfig, queueReducer, stepLimit, type QueueEvent } from './lib/queue';
import { fetchReferenceFile, fetchReferenceIndex, type ReferenceFile } from './lib/reference';
import { importRunFiles, runToCsv, runToJsonl, sameRunRecords, type RunData } from '../io/runfile';
import { warningLines } from '../verl/import';
import { staggerQueue } from './lib/stagger';
import { backendFromUrl, setupFromUrl, urlSearchFor, withBackend } from './lib/url';
import { teachingFromUrl } from './lib/teach';
import { StopWatch } from './lib/watchdog';
import type { BackendChoice } from '../worker/protocol';
import { isLive, useLab } from './store';

let client: LabClient | null = null;
/** The startLab call the Worker belongs to (a restarted Worker stays its). */
let owner: object | null = null;
const get = () => useLab.getState();

// ---------------------------------------------------------------------------------------------
// A Worker that cannot be wedged (#14). Set-up work (building a large model, generating a large
// data set, the offline filter) and a step run inside the Worker without reading its messages in
// between, and its commands are handled in order, so a `stop` — and every command after it — can
// wait behind them for minutes. Reset during a start therefore terminates the Worker and opens a
// new one (the run stays in the list); after a run has started, Reset sends `stop` and restarts a
// Worker that has not answered it within STOP_ANSWER_MS.

/** How long Reset waits for the Worker to answer a `stop` before it restarts the Worker. */
export const STOP_ANSWER_MS = 5000;
/** The last `start` sent, until the Worker answers it (a state for its run other than `starting`), and what was sent after it. */
let pendingStart: Extract<ToWorker, { type: 'start' }> | null = null;
let sinceStart: ToWorker[] = [];
const stopWatch = new StopWatch(STOP_ANSWER_MS, () => {
  restartWorker({ resend: true });
  get().setNotice(`The engine did not answer Reset within ${STOP_ANSWER_MS / 1000} s: it was restarted.`);
});

function spawnWorker(): LabClient {
  // Messages from a Worker that was terminated or replaced are dropped.
  const c: LabClient = new LabClient((m) => {
    if (client === c) onMessage(m);
  });
  client = c;
  return c;
}

/**
 * Terminates the Worker and opens a new one with the same engine choice (the page shows
 * "Starting the engine…" until it is ready). `resend`: a run started after the stop that was not
 * answered (it waits in the old Worker's queue) is started in the new one, with the commands sent
 * after its start.
 */
function restartWorker({ resend }: { resend: boolean }): void {
  stopWatch.clear();
  client?.terminate();
  const again = resend && pendingStart && get().liveRunId === pendingStart.runId ? [pendingStart, ...sinceStart] : [];
  pendingStart = null;
  sinceStart = [];
  // Requests the old Worker will never answer.
  for (const [requestId, answer] of tokenProbsWaiting) answer({ requestId, runId: '', error: 'the engine was restarted' });
  tokenProbsWaiting.clear();
  saveRequested = false;
  const c = spawnWorker();
  get().setDevice({ status: 'starting' });
  c.send({ type: 'init', backend: get().backendChoice });
  for (const m of again) send(m);
}

/**
 * Stops the Worker's run: a start still in progress by restarting the Worker (set-up work cannot
 * be interrupted by a message), else with `stop`, restarting the Worker if it does not answer.
 */
function stopWorkerRun(): void {
  const s = get();
  if (pendingStart || s.runState === 'starting') return restartWorker({ resend: false });
  send({ type: 'stop' });
  stopWatch.arm(s.liveRunId);
}

// ---------------------------------------------------------------------------------------------
// Persistence (throttled: at most one IndexedDB write per run per PERSIST_MS)

const PERSIST_MS = 1000;
const persistTimers = new Map<string, ReturnType<typeof setTimeout>>();

function persistRun(id: string, now = false) {
  const write = () => {
    persistTimers.delete(id);
    const run = get().runs[id];
    // A failed write keeps the run in the store; db.ts reports the reason once (the storage warning).
    if (run) dbPutRun(run).catch(() => undefined);
  };
  if (now) {
    const t = persistTimers.get(id);
    if (t) clearTimeout(t);
    write();
  } else if (!persistTimers.has(id)) persistTimers.set(id, setTimeout(write, PERSIST_MS));
}

// ---------------------------------------------------------------------------------------------
// Worker messages

let saveRequested = false;
/** Runs started from an uploaded file, by run id → file name, until their checkpoint has loaded. */
const uploadedRuns = new Map<string, string>();
/** The file whose upload just failed: names it in the Worker's error message that follows. */
let failedUpload: string | null = null;

function onMessage(m: FromWorker) {
  const s = get();
  if (m.type === 'state') {
    stopWatch.state(m.runId);
    if (pendingStart && m.runId === pendingStart.runId && m.state !== 'starting') {
      pendingStart = null;
      sinceStart = [];
    }
  }
  switch (m.type) {
    case 'ready':
      s.setDevice({ status: 'ready', engine: m.engine });
      break;
    case 'no-engine':
      s.setDevice({ status: 'no-engine', reason: m.reason });
      break;
    case 'error':
      if (failedUpload) {
        s.setError(`${failedUpload}: ${m.message}`);
        failedUpload = null;
      } else if (s.device.status === 'starting') s.setDevice({ status: 'error', message: m.message });
      else s.setError(m.message);
      break;
    case 'state': {
      const upload = m.runId ? uploadedRuns.get(m.runId) : undefined;
      if (m.runId && upload !== undefined && m.state !== 'starting') {
        uploadedRuns.delete(m.runId);
        // A file that did not load leaves no empty run row behind; the error names the file.
        if (m.state === 'error') {
          failedUpload = upload;
          s.deleteRun(m.runId);
          void dbDeleteRun(m.runId);
          s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
          break;
        }
      }
      s.setLiveState(m);
      if (m.runId && s.runs[m.runId]) {
        const run = s.runs[m.runId];
        if (m.message && m.message !== run.note && m.state !== 'error') s.patchRun(m.runId, { note: m.message });
        if (m.state === 'done' && !run.done) {
          s.patchRun(m.runId, { done: true });
          persistRun(m.runId, true);
        }
      }
      onQueueEvent({ type: 'run-state', runId: m.runId, state: m.state, step: m.step, message: m.message });
      break;
    }
    case 'run-config':
      // A checkpoint's own config replaces the editor's in the run record (charts, export, resume),
      // and in the editor while that run is the live one: edits must apply to what it runs.
      if (s.runs[m.runId]) {
        s.patchRun(m.runId, { config: m.config });
        persistRun(m.runId, true);
        if (s.liveRunId === m.runId) showRunSetup(s.runs[m.runId].preset, m.config);
      }
      break;
    case 'metrics':
      s.appendSteps(m.runId, m.steps);
      persistRun(m.runId);
      break;
    case 'eval':
      s.addEval(m.runId, m.record);
      persistRun(m.runId);
      break;
    case 'samples':
      s.setSamples(m.runId, m.step, m.samples);
      break;
    case 'token-probs': {
      const { type: _type, ...answer } = m;
      tokenProbsWaiting.get(m.requestId)?.(answer);
      tokenProbsWaiting.delete(m.requestId);
      break;
    }
    case 'device-lost':
      // The run resumed from its checkpoint: the steps after it are sent again.
      if (m.phase === 'recovered' && m.runId && s.runs[m.runId]) {
        s.truncateRun(m.runId, m.resumedFromStep ?? 0);
        persistRun(m.runId, true);
      }
      s.setDeviceLoss({ phase: m.phase, message: m.message });
      break;
    case 'sync': {
      const id = m.id;
      staggerQueue.whenDrawn(() => client?.send({ type: 'drawn', id }));
      break;
    }
    case 'checkpoint': {
      const bytes = m.bytes;
      // Kept in IndexedDB, or in this tab's memory when storage fails (resume and download still work here).
      dbPutCheckpoint({ runId: m.runId, step: m.step, bytes, savedAt: Date.now() })
        .then((where) => {
          get().patchRun(m.runId, { checkpointStep: m.step });
          persistRun(m.runId, true);
          if (saveRequested) {
            saveRequested = false;
            get().setNotice(where === 'stored' ? `Checkpoint saved at step ${m.step}.` : `Checkpoint kept at step ${m.step} in this tab only (the browser did not save it).`);
          }
        })
        .catch((e) => get().setError(`Could not keep the checkpoint: ${(e as Error).message}`));
      break;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Start-up

/** Keeps the URL in step with the draft config; returns the unsubscribe. */
function syncUrl(): () => void {
  let last = '';
  return useLab.subscribe((s) => {
    if (s.configError) return;
    let search: string;
    try {
      search = urlSearchFor(s.draft, s.preset, location.search);
    } catch {
      return;
    }
    if (search === last) return;
    last = search;
    if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
  });
}

/**
 * Starts the page's controller; the returned function stops it. Each start owns its Worker and
 * URL subscription, and its stop releases only those: under React's StrictMode (npm start) the
 * first start is stopped after the second has begun, and must not take the second's Worker.
 */
export async function startLab(): Promise<() => void> {
  const setup = setupFromUrl(location.search);
  get().loadSetup(setup.preset, setup.config, setup.error);
  const teaching = teachingFromUrl(location.search);
  get().setTeaching({ teacher: teaching.teacher, hidden: teaching.hidden, tryId: teaching.tryId });
  const unsubscribeUrl = syncUrl();
  const token = {};
  owner = token;
  const mine = spawnWorker();
  const backend = backendFromUrl(location.search);
  get().setBackendChoice(backend);
  mine.send({ type: 'init', backend });
  void loadReferenceIndex();
  const unsubscribeStorage = onStorageProblem((p) => get().setStorageWarning(p.reason));
  void requestPersistentStorage().then((ok) => get().setStoragePersisted(ok));
  try {
    const runs = await dbAllRuns();
    for (const r of runs) get().addRun(r);
    const wanted = new URLSearchParams(location.search).get('run');
    const active = wanted && runs.some((r) => r.id === wanted) ? wanted : null;
    if (active) get().setActiveRun(active);
  } catch (e) {
    get().setError(`Could not read saved runs: ${(e as Error).message}`);
  }
  return () => {
    unsubscribeUrl();
    unsubscribeStorage();
    mine.terminate();
    // The Worker this start opened, or the one that replaced it (restartWorker).
    if (owner === token) {
      stopWatch.clear();
      client?.terminate();
      client = null;
      owner = null;
      pendingStart = null;
      sinceStart = [];
    }
  };
}

// ---------------------------------------------------------------------------------------------
// Actions

/** Switches the engine (stops a live run: its last checkpoint stays, and it resumes on the new engine). */
export function setBackend(choice: BackendChoice): void {
  const s = get();
  if (choice === s.backendChoice && s.device.status === 'ready') return;
  cancelQueue('the engine was switched');
  s.setBackendChoice(choice);
  const search = withBackend(location.search, choice);
  if (search !== location.search) history.replaceState(null, '', `${location.pathname}${search}${location.hash}`);
  // A start in progress would hold `init` behind it: a new Worker opens the chosen engine.
  if (pendingStart || get().runState === 'starting') {
    restartWorker({ resend: false });
    get().setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
    return;
  }
  s.setDevice({ status: 'starting' });
  send({ type: 'init', backend: choice });
}

function send(m: ToWorker, transfer?: Transferable[]) {
  if (!client) throw new Error('the lab Worker is not running');
  client.send(m, transfer);
  // Kept until the Worker answers the start: restartWorker may send them again (never with transferred buffers).
  if (m.type === 'start') {
    pendingStart = transfer?.length ? null : m;
    sinceStart = [];
  } else if (pendingStart && m.type !== 'drawn' && m.type !== 'token-probs') sinceStart.push(m);
}

const newRunId = () => `run-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4).toString(36)}`;

function baseCheckpointUrl(preset: string): string {
  return `${import.meta.env.BASE_URL}checkpoints/${preset.endsWith('-tiny') ? 'base-tiny' : 'base'}.mlck`;
}

function nextRunName(preset: string): string {
  const n = get().order.filter((id) => get().runs[id]?.preset === preset).length + 1;
  return `${preset} #${n}`;
}

/**
 * Starts a new run from the draft config (or `setup`: a preset and its config, for queued runs).
 * `paused`: create it and wait (for a single step).
 */
export function startNewRun(opts: { paused?: boolean; checkpoint?: ArrayBuffer; name?: string; setup?: { preset: string; config: RunConfig } } = {}): string | null {
  const s = get();
  if (!opts.setup) cancelQueue('another run was started');
  if (!opts.setup && s.configError) {
    s.setError(`Fix the config first: ${s.configError}`);
    return null;
  }
  const preset = opts.setup?.preset ?? s.preset;
  const config = validateRunConfig(opts.setup?.config ?? s.draft);
  const id = newRunId();
  const run: RunData = { id, name: opts.name ?? nextRunName(preset), preset, createdAt: Date.now(), config, steps: [], evals: [] };
  s.addRun(run, { activate: true });
  s.setSamples(id, 0, []);
  s.setError(null);
  persistRun(id, true);
  s.setLiveState({ runId: id, state: 'starting', step: 0, stage: 0 });
  send({ type: 'start', runId: id, config, paused: opts.paused, ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : { baseCheckpointUrl: baseCheckpointUrl(preset) }) });
  return id;
}

export function play() {
  const s = get();
  if (s.liveRunId && (s.runState === 'paused' || s.runState === 'starting')) {
    // A queued run stopped at a step limit continues only up to it.
    const limited = queuedLimit(s.liveRunId);
    if (limited !== null) sendSteps(Math.max(0, limited - s.step));
    else send({ type: 'resume' });
  } else if (!isLive(s.runState)) startNewRun();
}

export function pause() {
  send({ type: 'pause' });
}

export function singleStep() {
  const s = get();
  if (s.liveRunId && isLive(s.runState)) send({ type: 'step' });
  else if (startNewRun({ paused: true })) send({ type: 'step' });
}

/**
 * Stops the live run (kept in the run list) and clears the charts for a fresh start. A run still
 * starting (set-up work) is ended by restarting the Worker; a Worker that does not answer the stop
 * in time is restarted too (stopWorkerRun).
 */
export function reset() {
  cancelQueue('reset');
  const s = get();
  if (s.liveRunId || pendingStart) stopWorkerRun();
  s.setActiveRun(null);
  s.setSamples('', 0, []);
  s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
}

/** Edits the stage schedule; a live run gets the new future stages at once. */
export function editStages(stages: StageConfig[]) {
  const s = get();
  s.setDraftStages(stages);
  const id = s.liveRunId;
  if (!id || !isLive(s.runState) || !s.runs[id]) return;
  try {
    checkRunResources(validateRunConfig({ ...s.runs[id].config, stages }), { host: browserHostLimits() }, { engineKnown: false });
  } catch {
    return; // the config panel shows the error; nothing is sent until it is valid
  }
  s.setRunStages(id, stages);
  persistRun(id);
  send({ type: 'set-stages', stages });
}

export function saveCheckpoint() {
  saveRequested = true;
  send({ type: 'save-checkpoint' });
}

const tokenProbsWaiting = new Map<number, (a: TokenProbsAnswer) => void>();
let tokenProbsId = 0;

/**
 * The group inspector's token view: asks the Worker for the run's current policy's distribution at
 * response position `position` (answered between two training steps).
 */
export function requestTokenProbs(q: { runId: string; prompt: string; tokens: string[]; position: number; temperatures: number[]; k: number }): Promise<TokenProbsAnswer> {
  const requestId = ++tokenProbsId;
  return new Promise((resolve) => {
    tokenProbsWaiting.set(requestId, resolve);
    try {
      send({ type: 'token-probs', requestId, ...q });
    } catch (e) {
      tokenProbsWaiting.delete(requestId);
      resolve({ requestId, runId: q.runId, error: (e as Error).message });
    }
  });
}

/** The editor shows (and edits) a run's own preset and config, not whatever was selected before. */
function showRunSetup(preset: string, config: RunConfig) {
  get().loadSetup(presetNames().includes(preset) ? preset : get().preset, config);
}

/** Resumes a run from its last checkpoint kept in this browser (paused; Play continues it). */
export async function resumeRun(runId: string) {
  const s = get();
  const run = s.runs[runId];
  const ck = await dbGetCheckpoint(runId);
  if (!run || !ck) return s.setError(`Run ${run?.name ?? runId} has no saved checkpoint.`);
  cancelQueue('another run was resumed');
  if (isLive(s.runState) && s.liveRunId !== runId) stopWorkerRun();
  s.truncateRun(runId, ck.step);
  s.setActiveRun(runId);
  s.patchRun(runId, { done: false });
  persistRun(runId, true);
  s.setLiveState({ runId, state: 'starting', step: ck.step, stage: s.stage });
  showRunSetup(run.preset, run.config);
  send({ type: 'start', runId, config: run.config, checkpoint: ck.bytes.slice(0), paused: true });
}

export async function downloadCheckpoint(runId: string) {
  const run = get().runs[runId];
  const ck = await dbGetCheckpoint(runId);
  if (!run || !ck) return get().setError('This run has no saved checkpoint yet.');
  downloadBlob(new Blob([ck.bytes], { type: 'application/octet-stream' }), `${safeFileName(run.name)}-step${ck.step}.mlck`);
}

/** Starts a new run (with the draft config) from an uploaded .mlck file, paused. */
export async function uploadCheckpoint(file: File) {
  const bytes = await file.arrayBuffer();
  const head = new TextDecoder().decode(new Uint8Array(bytes, 0, Math.min(8, bytes.byteLength)));
  if (head !== 'MAGICLAB') return get().setError(`${file.name}: not a MAGIC Lab checkpoint (.mlck files start with "MAGICLAB").`);
  // The whole file (checksum, tensors, run config and state) is checked here, before the current run is
  // stopped: a truncated, corrupt, wrong-version or inconsistent file is one message and changes nothing.
  try {
    const { contents, meta } = loadCheckpoint(new Uint8Array(bytes), file.name);
    const s = get();
    if (meta.kind === 'base' && !s.configError) {
      const model = validateRunConfig(s.draft).model;
      if (JSON.stringify(contents.model) !== JSON.stringify(model)) {
        return s.setError(`checkpoint ${file.name}: holds model ${JSON.stringify(contents.model)}, not the config's ${JSON.stringify(model)}; set the config's model to it first (the current run is unchanged).`);
      }
    }
  } catch (e) {
    return get().setError(`${(e as Error).message} (the current run is unchanged)`);
  }
  cancelQueue('a checkpoint was uploaded');
  if (isLive(get().runState)) stopWorkerRun();
  const id = startNewRun({ paused: true, checkpoint: bytes, name: `${file.name.replace(/\.mlck$/i, '')} (uploaded)` });
  if (id) uploadedRuns.set(id, file.name);
}

export function exportRun(runId: string, format: 'jsonl' | 'csv') {
  const run = get().runs[runId];
  if (!run) return;
  const text = format === 'jsonl' ? runToJsonl(run) : runToCsv(run);
  downloadBlob(new Blob([text], { type: format === 'jsonl' ? 'application/x-ndjson' : 'text/csv' }), `${safeFileName(run.name)}.${format}`);
}

export async function importRunFile(file: File) {
  const s = get();
  try {
    // A MAGIC Lab export, or a cluster run's log (verl console, W&B / TensorBoard CSV, JSONL metrics).
    const imported = importRunFiles([{ name: file.name, text: await file.text() }]);
    const parsed = imported.run;
    // The same file again (or the same run under another name) is not a second row.
    const same = Object.values(s.runs).find((r) => sameRunRecords(r, parsed));
    if (same) return s.setNotice(`${file.name} is already in the list, as ${same.name}.`);
    const id = parsed.id && !s.runs[parsed.id] ? parsed.id : newRunId();
    const run: RunData = { ...parsed, id, checkpointStep: undefined };
    s.addRun(run);
    if (!s.overlay.includes(id) && s.activeRunId !== id) s.toggleOverlay(id);
    persistRun(id, true);
    s.setError(null);
    const skipped = imported.warnings.length ? ` ${imported.warnings.length} warning${imported.warnings.length > 1 ? 's' : ''}: ${warningLines(imported.warnings, 1).join(' ')}` : '';
    if (imported.warnings.length || imported.notes.length) console.warn(`import ${file.name}:\n${[...warningLines(imported.warnings, 200), ...imported.notes].join('\n')}`);
    s.setNotice(`Imported ${file.name} (${imported.format}): ${run.steps.length} steps, ${run.evals.length} evaluations.${skipped}`);
  } catch (e) {
    s.setError(`Import failed — ${(e as Error).message}`);
  }
}

export function renameRun(runId: string, name: string) {
  get().renameRun(runId, name);
  persistRun(runId, true);
}

/** The last deleted run and its checkpoint, kept in memory so the notice's Undo can bring both back. */
let lastDeleted: { run: RunData; checkpoint?: StoredCheckpoint } | null = null;

export async function deleteRun(runId: string) {
  const s = get();
  const run = s.runs[runId];
  if (!run) return;
  if (s.liveRunId === runId && isLive(s.runState)) reset();
  const checkpoint = await dbGetCheckpoint(runId);
  lastDeleted = { run, checkpoint };
  s.deleteRun(runId);
  await dbDeleteRun(runId);
  get().setNotice(`Deleted ${run.name}.`, true);
}

/** Brings the last deleted run back (records, checkpoint, name). */
export async function undoDelete() {
  const d = lastDeleted;
  if (!d) return;
  lastDeleted = null;
  get().addRun(d.run);
  persistRun(d.run.id, true);
  if (d.checkpoint) await dbPutCheckpoint(d.checkpoint);
  get().setNotice(`Restored ${d.run.name}.`);
}

// ---------------------------------------------------------------------------------------------
// Reference runs (public/reference/): the index at start-up, files on demand

export async function loadReferenceIndex(): Promise<void> {
  const s = get();
  s.setReferenceIndex({ status: 'loading' });
  try {
    s.setReferenceIndex({ status: 'ready', index: await fetchReferenceIndex() });
  } catch (e) {
    s.setReferenceIndex({ status: 'error', message: (e as Error).message });
  }
}

/** The reference file `name` (fetched once; a file that failed stays failed, with its message). */
export async function loadReference(name: string): Promise<ReferenceFile | null> {
  const s = get();
  const have = s.referenceFiles[name];
  if (have?.status === 'ready') return have.file;
  if (have) return null; // loading, or failed
  const idx = s.referenceIndex;
  const entry = idx.status === 'ready' ? idx.index.entries.find((e) => e.name === name) : undefined;
  if (!entry) return null;
  s.setReferenceFile(name, { status: 'loading' });
  try {
    const file = await fetchReferenceFile(entry);
    get().setReferenceFile(name, { status: 'ready', file });
    return file;
  } catch (e) {
    get().setReferenceFile(name, { status: 'error', message: (e as Error).message });
    return null;
  }
}

/** Overlays the reference `name` on the training charts (null: none). */
export function overlayReference(name: string | null): void {
  get().setOverlayReference(name);
  if (name) void loadReference(name);
}

// ---------------------------------------------------------------------------------------------
// The run queue: a reference's presets × seeds in the Worker, one after another

/** Step limit of the live run when it is the queue's running item with a shortened schedule. */
function queuedLimit(runId: string): number | null {
  const s = get();
  const q = s.queue;
  const i = q ? currentIndex(q) : -1;
  if (!q || i < 0 || q.items[i].runId !== runId || !s.runs[runId]) return null;
  return stepLimit(q, s.runs[runId].config);
}

/** Exactly n more steps, then the Worker pauses (it runs queued `step` commands one by one). */
function sendSteps(n: number) {
  for (let i = 0; i < n; i++) send({ type: 'step' });
}

function onQueueEvent(ev: QueueEvent) {
  const s = get();
  const q = s.queue;
  if (!q || q.status !== 'running') return;
  const i = currentIndex(q);
  const runId = i >= 0 ? q.items[i].runId : null;
  const limit = runId ? queuedLimit(runId) : null;
  const next = queueReducer(q, ev, limit);
  if (next === q) return;
  s.setQueue(next);
  if (runId && next.items[i].status === 'done') {
    if (!s.runs[runId]?.done) s.patchRun(runId, { done: true });
    persistRun(runId, true);
    // A run stopped at its step limit stands paused in the Worker: free it when no run follows
    // (a next run's start replaces it anyway), so Play cannot carry it past the reference's steps.
    if (limit !== null && next.status !== 'running') {
      send({ type: 'stop' });
      s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
    }
  }
  if (next.status === 'error' && next.message) s.setError(next.message);
  startNextQueued();
}

function startNextQueued() {
  const q = get().queue;
  const i = nextToStart(q);
  if (!q || i === null) return;
  const item = q.items[i];
  let config: RunConfig;
  try {
    config = queuedRunConfig(item);
  } catch (e) {
    get().setQueue({ ...queueReducer(q, { type: 'cancel' }), status: 'error', message: `${item.name}: ${(e as Error).message}` });
    return;
  }
  const limit = stepLimit(q, config);
  const id = startNewRun({ setup: { preset: item.preset, config }, name: item.name, paused: limit !== null });
  if (!id) return;
  get().setQueue(queueReducer(q, { type: 'started', index: i, runId: id }));
  if (limit !== null) sendSteps(limit);
}

/** Queues the presets × seeds of the reference `name` (its own seeds and steps; the page's base checkpoint) and starts the first. */
export async function runFinding(name: string): Promise<void> {
  const s = get();
  if (s.device.status !== 'ready') return s.setError('The engine is not ready yet.');
  const ref = await loadReference(name);
  if (!ref) return get().setError(`Reference ${name} is not loaded.`);
  let q;
  try {
    q = planQueue(ref, presetNames());
  } catch (e) {
    return get().setError((e as Error).message);
  }
  cancelQueue('another queue was started');
  const now = get();
  if (now.liveRunId && isLive(now.runState)) stopWorkerRun(); // the live run stays in the list
  now.setQueue(q);
  startNextQueued();
}

/** Cancels the queue (if one runs) and stops its live run, which stays in the run list. */
export function cancelQueue(why = 'cancelled'): void {
  const s = get();
  const q = s.queue;
  if (!q || q.status !== 'running') return;
  const i = currentIndex(q);
  const runId = i >= 0 ? q.items[i].runId : null;
  s.setQueue(queueReducer(q, { type: 'cancel', message: why }));
  if (runId && s.liveRunId === runId && isLive(s.runState)) {
    stopWorkerRun();
    s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
  }
}
