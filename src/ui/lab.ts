/**
 * The page's controller: owns the link to the lab Worker (controller/worker-link.ts), routes its
 * messages into the store, keeps runs and checkpoints in IndexedDB (controller/storage.ts), keeps
 * the URL in sync with the config (controller/url-sync.ts), and implements the user actions (play,
 * pause, step, reset, checkpoints, run files: controller/run-files.ts), loads the reference runs
 * (controller/reference-runs.ts) and runs the queue of "Run this finding here" (controller/queue.ts).
 * A run is written by one tab at a time (controller/run-access.ts: a Web Lock per run).
 * Components call these functions; they never talk to the Worker directly.
 */
import { presetNames, validateRunConfig, type RunConfig, type StageConfig } from '../rl/config';
import { browserHostLimits, checkRunResources } from '../rl/resources';
import { LabClient } from '../worker/client';
import type { BackendChoice, FromWorker, TokenProbsAnswer, ToWorker } from '../worker/protocol';
import { queueRunner } from './controller/queue';
import { referenceRuns } from './controller/reference-runs';
import { runFiles, uploadProblem } from './controller/run-files';
import { LastDeleted, lockedWriter, RunPersister, SaveRequest, UploadedRuns } from './controller/storage';
import { TokenProbsRequests, type TokenProbsQuestion } from './controller/token-probs';
import { replaceSearch, syncUrl } from './controller/url-sync';
import { baseCheckpointUrl, rungControl } from './controller/rungs';
import { benchControl } from './controller/bench';
import { browserEnv, runAccess } from './controller/run-access';
import { WorkerLink } from './controller/worker-link';
import { dbAllRuns, dbDeleteRun, dbGetCheckpoint, dbPutCheckpoint, dbPutRun, onStorageProblem, requestPersistentStorage } from './lib/db';
import { isEmptyFailedStart } from './lib/failed-start';
import { backendFromUrl, setupFromUrl, withBackend } from './lib/url';
import { staggerQueue } from './lib/stagger';
import { teachingFromUrl } from './lib/teach';
import type { RunData } from '../io/runfile';
import { isLive, useLab } from './store';

const get = () => useLab.getState();

// ---------------------------------------------------------------------------------------------
// The Worker (controller/worker-link.ts: a Worker that cannot be wedged)

/** How long Reset waits for the Worker to answer a `stop` before it restarts the Worker. */
export const STOP_ANSWER_MS = 5000;
const link = new WorkerLink({
  spawn: (report) => new LabClient(report),
  onMessage: (m) => onMessage(m),
  stopAnswerMs: STOP_ANSWER_MS,
  onStuck: () => {
    restartWorker({ resend: true });
    get().setNotice(`The engine did not answer Reset within ${STOP_ANSWER_MS / 1000} s: it was restarted.`);
  },
});

/**
 * Terminates the Worker and opens a new one with the same engine choice (the page shows
 * "Starting the engine…" until it is ready). `resend`: a run started after the stop that was not
 * answered (it waits in the old Worker's queue) is started in the new one, with the commands sent
 * after its start.
 */
function restartWorker({ resend }: { resend: boolean }): void {
  link.restart({ type: 'init', backend: get().backendChoice }, resend ? get().liveRunId : null, () => {
    // Requests the old Worker will never answer.
    tokenProbs.failAll('the engine was restarted');
    speed.forgetPending();
    saveRequest.forget();
    get().setDevice({ status: 'starting' });
  });
}

/**
 * Stops the Worker's run: a start still in progress by restarting the Worker (set-up work cannot
 * be interrupted by a message), else with `stop`, restarting the Worker if it does not answer.
 */
function stopWorkerRun(): void {
  const s = get();
  if (link.starting || s.runState === 'starting') return restartWorker({ resend: false });
  link.stop(s.liveRunId);
}

// ---------------------------------------------------------------------------------------------
// Persistence (throttled: at most one IndexedDB write per run per PERSIST_MS)

/** One writer per run across tabs, and what the page says about runs at start. */
const access = runAccess(useLab, browserEnv());
export const { openReadOnly, dismiss: dismissRunAccess } = access;

/** Writes a run's record as it is now; a failed write keeps the run in the store (db.ts reports the reason once, the storage warning). */
async function putRun(id: string): Promise<void> {
  const run = get().runs[id];
  if (run) await dbPutRun(run).then((stored) => stored && access.saved(), () => undefined);
}

// The periodic writer writes only runs whose lock this tab holds (storage.ts, lockedWriter), else stops.
const persister = new RunPersister(lockedWriter((id) => access.holding(id), putRun));

/** A run this tab does not train (an import, an Undo), written once under its lock taken for the write. */
function persistOnce(id: string) {
  void access.putOnce(id, () => putRun(id));
}

function persistRun(id: string, now = false) {
  persister.persist(id, now);
}

// ---------------------------------------------------------------------------------------------
// Worker messages

/**
 * The rung selector (controller/rungs.ts): pickRung loads a rung and measures its speed, measureRung only measures
 * (a row not timed yet, the tiny rung the page opens on among them); the Benchmark view's runBench (controller/bench.ts).
 */
const speed = rungControl(useLab, (m) => send(m));
export const { pick: pickRung, measure: measureRung } = speed;
speed.keep(browserEnv().storage);
const bench = benchControl(useLab, (m) => send(m));
export const { run: runBench } = bench;
/** A checkpoint the user asked for (its arrival is a notice). */
const saveRequest = new SaveRequest();
/** Runs started from an uploaded file, until their checkpoint has loaded. */
const uploads = new UploadedRuns();
/** The group inspector's token-view requests waiting for an answer. */
const tokenProbs = new TokenProbsRequests();

function onMessage(m: FromWorker) {
  const s = get();
  switch (m.type) {
    case 'ready':
      s.setDevice({ status: 'ready', engine: m.engine });
      if (s.rung !== 'tiny') speed.measure(s.rung);
      break;
    case 'step-estimate':
    case 'base-progress':
      return speed.onMessage(m);
    case 'bench-progress':
    case 'bench-result':
      return bench.onMessage(m);
    case 'no-engine':
      s.setDevice({ status: 'no-engine', reason: m.reason });
      break;
    case 'error': {
      const failedUpload = uploads.takeFailed();
      if (failedUpload) s.setError(`${failedUpload}: ${m.message}`);
      else if (s.device.status === 'starting') s.setDevice({ status: 'error', message: m.message });
      else s.setError(m.message);
      break;
    }
    case 'state': {
      // A file that did not load leaves no empty run row behind; the error names the file.
      if (m.runId && uploads.failedToLoad(m.runId, m.state)) {
        s.deleteRun(m.runId);
        void dbDeleteRun(m.runId);
        s.setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
        break;
      }
      // A start that failed before its first record leaves no "0 steps" row; the error line says why.
      if (m.runId && isEmptyFailedStart(m, s, s.runs[m.runId])) {
        s.deleteRun(m.runId);
        void dbDeleteRun(m.runId);
        s.setLiveState({ runId: null, state: 'error', step: 0, stage: 0 });
        onQueueEvent({ type: 'run-state', runId: m.runId, state: m.state, step: m.step, message: m.message });
        break;
      }
      s.setLiveState(m);
      if (m.state !== 'starting' && s.baseDownload) s.setBaseDownload(null);
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
    case 'progress':
      // Only the state line, and only of the run the page still has running (after a Reset it is not).
      if (s.liveRunId === m.runId && s.runState === 'running') useLab.setState({ statusMessage: m.message });
      break;
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
      if (get().runs[m.runId]) speed.calibrate(get().runs[m.runId]);
      break;
    case 'eval':
      s.addEval(m.runId, m.record);
      persistRun(m.runId);
      break;
    case 'samples':
      return s.setSamples(m.runId, m.step, m.samples);
    case 'token-probs': {
      const { type: _type, ...answer } = m;
      tokenProbs.answer(answer);
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
      staggerQueue.whenDrawn(() => link.reply({ type: 'drawn', id }));
      break;
    }
    case 'checkpoint': {
      const bytes = m.bytes;
      // Kept in IndexedDB, or in this tab's memory when storage fails (resume and download still work here).
      // With the run record (its steps up to this one) in one transaction: a tab closed mid-save keeps both or neither.
      const run = s.runs[m.runId];
      dbPutCheckpoint({ runId: m.runId, step: m.step, bytes, savedAt: Date.now() }, run && { ...run, checkpointStep: m.step })
        .then((where) => {
          get().patchRun(m.runId, { checkpointStep: m.step });
          persistRun(m.runId, true);
          if (saveRequest.answered()) {
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

/**
 * Starts the page's controller; the returned function stops it. Each start owns its Worker and
 * URL subscription, and its stop releases only those: under React's StrictMode (npm start) the
 * first start is stopped after the second has begun, and must not take the second's Worker.
 */
export async function startLab(): Promise<() => void> {
  const setup = setupFromUrl(location.search);
  get().loadSetup(setup.preset, setup.config, setup.error, setup.rung);
  const teaching = teachingFromUrl(location.search);
  get().setTeaching({ teacher: teaching.teacher, hidden: teaching.hidden, tryId: teaching.tryId });
  const unsubscribeUrl = syncUrl(useLab);
  const token = {};
  const mine = link.open(token);
  const backend = backendFromUrl(location.search);
  get().setBackendChoice(backend);
  mine.send({ type: 'init', backend });
  void loadReferenceIndex();
  const unsubscribeStorage = onStorageProblem((p) => get().setStorageWarning(p.reason));
  const unsubscribeLocks = access.watchLiveRun((id) => persister.flush(id));
  void requestPersistentStorage().then((ok) => get().setStoragePersisted(ok));
  try {
    const runs = await dbAllRuns();
    for (const r of runs) get().addRun(r);
    const wanted = new URLSearchParams(location.search).get('run');
    const active = wanted && runs.some((r) => r.id === wanted) ? wanted : null;
    if (active) get().setActiveRun(active);
    void access.checkStart(runs, wanted);
  } catch (e) {
    get().setError(`Could not read saved runs: ${(e as Error).message}`);
  }
  return () => {
    unsubscribeUrl();
    unsubscribeStorage();
    unsubscribeLocks();
    // The Worker this start opened, and the one that replaced it (restartWorker) while this start owns the link.
    link.close(token, mine);
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
  replaceSearch(withBackend(location.search, choice));
  // A start in progress would hold `init` behind it: a new Worker opens the chosen engine.
  if (link.starting || get().runState === 'starting') {
    restartWorker({ resend: false });
    get().setLiveState({ runId: null, state: 'idle', step: 0, stage: 0 });
    return;
  }
  s.setDevice({ status: 'starting' });
  send({ type: 'init', backend: choice });
}

const send = (m: ToWorker, transfer?: Transferable[]) => link.send(m, transfer);

const newRunId = () => `run-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e4).toString(36)}`;

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
  access.started(id); // before its first write: the writer waits for this request
  persistRun(id, true);
  s.setLiveState({ runId: id, state: 'starting', step: 0, stage: 0 });
  send({ type: 'start', runId: id, config, paused: opts.paused, ...(opts.checkpoint ? { checkpoint: opts.checkpoint } : { baseCheckpointUrl: baseCheckpointUrl(config, preset, import.meta.env.BASE_URL) }) });
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
  if (s.liveRunId || link.starting) stopWorkerRun();
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
  saveRequest.ask();
  send({ type: 'save-checkpoint' });
}

/**
 * The group inspector's token view: asks the Worker for the run's current policy's distribution at
 * response position `position` (answered between two training steps).
 */
export function requestTokenProbs(q: TokenProbsQuestion): Promise<TokenProbsAnswer> {
  return tokenProbs.request(q, send);
}

/** The editor shows (and edits) a run's own preset and config, not whatever was selected before. */
function showRunSetup(preset: string, config: RunConfig) {
  get().loadSetup(presetNames().includes(preset) ? preset : get().preset, config);
}

/** Resumes a run from its last checkpoint kept in this browser (paused; Play continues it). */
export async function resumeRun(runId: string) {
  // Another tab training it keeps it (the page offers it read-only); the stored copy is the newest.
  if (!(await access.claimForTraining(runId))) return;
  const s = get();
  const run = s.runs[runId];
  const ck = await dbGetCheckpoint(runId);
  if (!run || !ck) {
    access.unclaim(runId);
    return s.setError(`Run ${run?.name ?? runId} has no saved checkpoint.`);
  }
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

/** Starts a new run (with the draft config) from an uploaded .mlck file, paused. */
export async function uploadCheckpoint(file: File) {
  const bytes = await file.arrayBuffer();
  // The whole file is checked before the current run is stopped (a bad file changes nothing).
  const problem = uploadProblem(bytes, file.name, get());
  if (problem) return get().setError(problem);
  cancelQueue('a checkpoint was uploaded');
  if (isLive(get().runState)) stopWorkerRun();
  const id = startNewRun({ paused: true, checkpoint: bytes, name: `${file.name.replace(/\.mlck$/i, '')} (uploaded)` });
  if (id) uploads.started(id, file.name);
}

export const { downloadCheckpoint, exportRun, importRunFile } = runFiles(useLab, { persistRun: (id) => persistOnce(id), newRunId: () => newRunId() });

export function renameRun(runId: string, name: string) {
  void access.write(runId, 'rename', async () => {
    get().renameRun(runId, name);
    await putRun(runId); // under the lock taken for the rename
  });
}

/** The last deleted run and its checkpoint (the notice's Undo brings both back). */
const lastDeleted = new LastDeleted();

export async function deleteRun(runId: string) {
  const s = get();
  const run = s.runs[runId];
  if (!run) return;
  const deleted = await access.write(runId, 'delete', async () => {
    if (s.liveRunId === runId && isLive(s.runState)) reset();
    const checkpoint = await dbGetCheckpoint(runId);
    lastDeleted.keep(get().runs[runId] ?? run, checkpoint);
    s.deleteRun(runId);
    await dbDeleteRun(runId);
  });
  if (!deleted) return;
  if (get().order.length === 0) access.deletedAll();
  get().setNotice(`Deleted ${run.name}.`, true);
}

/** Brings the last deleted run back (records, checkpoint, name). */
export async function undoDelete() {
  const d = lastDeleted.take();
  if (!d) return;
  get().addRun(d.run);
  const checkpoint = d.checkpoint;
  await access.putOnce(d.run.id, async () => {
    await putRun(d.run.id);
    if (checkpoint) await dbPutCheckpoint(checkpoint);
  });
  get().setNotice(`Restored ${d.run.name}.`);
}

// ---------------------------------------------------------------------------------------------
// Reference runs (public/reference/, controller/reference-runs.ts) and the run queue of "Run this
// finding here" (controller/queue.ts): a reference's presets × seeds in the Worker, one after another

export const { loadReferenceIndex, loadReference, overlayReference } = referenceRuns(useLab);

const queue = queueRunner(useLab, { send, stopWorkerRun, persistRun, startNewRun, loadReference });
const { queuedLimit, sendSteps, onQueueEvent } = queue;
export const { runFinding, startQueue, cancelQueue } = queue;
