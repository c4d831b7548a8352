/// <reference lib="webworker" />
/**
 * The Worker that owns the engine (WebGPU device or CPU engine) and the trainer (training never blocks the page's
 * main thread). Commands from the page are handled in order; the training loop runs between
 * them, one `trainStep()` at a time, and yields to the message queue after every step, so
 * pause / step / set-stages / save-checkpoint take effect at the next step boundary.
 * Step records are sent in batches (at most every FLUSH_MS), not one message per step.
 */
import { decodeCheckpoint } from '../model/checkpoint';
import { DeviceLostError, isDeviceFault, type Backend, type BackendChoice } from '../model/engine';
import { validateRunConfig, type RunConfig, type StageConfig } from '../rl/config';
import { DivergenceError } from '../rl/divergence';
import { DEVICE_RECOVERY, lossHeadline, mayRecover, RecoveryFailed, recoveredNotice, reopenWithBackoff } from '../rl/recovery';
import { groupInspector, nextTokenLogp } from '../rl/inspect';
import { temperatureViews } from '../rl/token-probs';
import { MagicTrainer } from '../rl/trainer';
import { browserHostLimits, checkRunResources, engineLimitsOf } from '../rl/resources';
import type { SampleRecord, StepRecord } from '../rl/trainer-types';
import { encodePrompt, VOCAB } from '../tasks';
import { DrawGate } from './drawgate';
import { acquireWorkerBackend } from './engine';
import type { EngineSummary, FromWorker, RunState, ToWorker } from './protocol';

const scope = self as unknown as DedicatedWorkerGlobalScope;

const post = (m: FromWorker, transfer: Transferable[] = []) => scope.postMessage(m, transfer);

/** Minimum interval between two batches (metrics + latest samples + state) while training. */
const FLUSH_MS = 400;
/** Longest wait for the page to draw a batch before the next step (software adapters only). */
const DRAW_WAIT_MAX_MS = 2000;

let backend: Backend | null = null;
let engine: EngineSummary | null = null;
/** The engine the page asked for last (init), used when a start finds none open. */
let engineChoice: BackendChoice = 'auto';
let trainer: MagicTrainer | null = null;
let runId: string | null = null;
let state: RunState = 'idle';
let note: string | undefined;
/** Keep stepping until paused. */
let running = false;
/** Single steps requested (each runs one step, then the run pauses). */
let pendingSteps = 0;
let looping = false;
let pendingStages: StageConfig[] | null = null;
let pendingSave = false;
let buffer: StepRecord[] = [];
/** Rollout samples not yet sent: every step's (the page's inspector keeps a history), at most the last SAMPLE_STEPS_KEPT steps'. */
let latestSamples: { step: number; samples: SampleRecord[] } | null = null;
const SAMPLE_STEPS_KEPT = 32;
let lastFlush = 0;
let lastCheckpointStep = -1;
/** The last checkpoint this run posted (kept: a lost GPU device resumes the run from it). */
let lastCheckpoint: Uint8Array | null = null;
/** What the live run was started from (its config and checkpoint or base weights): a lost device before the first checkpoint restarts it from here. */
let runStart: { config: RunConfig; checkpoint?: Uint8Array; fresh: boolean } | null = null;
/** Device losses since the last checkpoint written after a recovery (bounded by DEVICE_RECOVERY). */
let losses = 0;
let resumedAt = -1;
let startEvalPosted = false;
/** The recovery in progress, if any (one at a time). */
let recovering: Promise<boolean> | null = null;
let unwatchDevice: (() => void) | null = null;
/** A fresh run evaluates its start weights before the first step, as `magic-lab train` does (the "before" point of the held-out curves). */
let startEvalPending = false;
/** Incremented by every start/stop so a superseded loop stops touching the new run. */
let generation = 0;
/** "Draw, then step" on a software adapter (see drawgate.ts). */
const drawGate = new DrawGate();

const errMsg = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Training steps and the inspector's forward passes (token-probs) take the engine one at a time. */
let engineTurn: Promise<unknown> = Promise.resolve();
function exclusive<T>(f: () => Promise<T>): Promise<T> {
  const run = engineTurn.then(f);
  engineTurn = run.catch(() => undefined);
  return run;
}

function postState(message?: string) {
  post({ type: 'state', runId, state, step: trainer?.step ?? 0, stage: trainer?.stage ?? 0, message: message ?? note });
}

/** Whether the last flush sent anything for the page to draw. */
function flush(): boolean {
  const sent = !!runId && (buffer.length > 0 || latestSamples !== null);
  if (runId && buffer.length) post({ type: 'metrics', runId, steps: buffer });
  if (runId && latestSamples) post({ type: 'samples', runId, ...latestSamples });
  buffer = [];
  latestSamples = null;
  lastFlush = performance.now();
  return sent;
}

async function saveAndPost() {
  if (!trainer || !runId) return;
  flush(); // the page keeps metrics up to the checkpoint's step before the checkpoint itself
  const bytes = await trainer.saveCheckpoint();
  // A copy goes to the page; the Worker keeps `bytes` to resume from if the device is lost.
  const copy = bytes.slice().buffer as ArrayBuffer;
  lastCheckpoint = bytes;
  lastCheckpointStep = trainer.step;
  post({ type: 'checkpoint', runId, step: trainer.step, bytes: copy }, [copy]);
}

/** Stage edits and checkpoint requests wait for a step boundary. */
async function applyPending() {
  if (!trainer) return;
  if (pendingStages) {
    const s = pendingStages;
    pendingStages = null;
    try {
      // A later stage's larger batch or length must fit the engine too (its plans are built when the stage starts).
      trainer.setStages(s, (next) => {
        if (backend) checkRunResources(next, { engine: engineLimitsOf(backend), host: browserHostLimits() });
      });
    } catch (e) {
      post({ type: 'error', message: `Stage edit rejected: ${errMsg(e)}` });
    }
  }
  if (pendingSave) {
    pendingSave = false;
    await saveAndPost();
  }
}

const yieldToMessages = () => new Promise<void>((r) => setTimeout(r, 0));

async function loop() {
  if (looping) return;
  looping = true;
  const gen = generation;
  const stepping = backend;
  try {
    while (gen === generation && trainer && (running || pendingSteps > 0)) {
      await applyPending();
      if (trainer.done) break;
      if (state !== 'running') {
        state = 'running';
        postState();
      }
      if (startEvalPending && trainer.step === 0) {
        startEvalPending = false;
        // Same eval seed stream as the CLI's step-0 evaluation; it draws nothing from training's streams.
        const ev0 = await exclusive(() => trainer!.evaluate());
        if (gen !== generation || !runId) break;
        post({ type: 'eval', runId, record: ev0 });
        startEvalPosted = true;
      }
      const stageBefore = trainer.stage;
      const { record, samples, eval: ev } = await exclusive(() => trainer!.trainStep());
      if (gen !== generation || !runId) break;
      if (pendingSteps > 0) pendingSteps--;
      buffer.push(record);
      if (samples.length) latestSamples = { step: record.step, samples: [...(latestSamples?.samples ?? []).filter((s) => s.step > record.step - SAMPLE_STEPS_KEPT), ...samples] };
      const every = trainer.config.checkpoint.everySteps;
      // One batch per FLUSH_MS (metrics, samples, state), not one message per step.
      let drawn = false;
      if (ev || performance.now() - lastFlush >= FLUSH_MS || trainer.done || (!running && pendingSteps === 0)) {
        drawn = flush();
        postState();
      }
      if (ev) post({ type: 'eval', runId, record: ev });
      // Every N steps and at each stage boundary: a lost device costs at most the steps since.
      if ((every > 0 && trainer.step % every === 0) || trainer.stage !== stageBefore || trainer.done) await saveAndPost();
      // GPU emulated on the CPU: let the page draw this batch before the next step takes the cores.
      if (drawn && running && !trainer.done && engine?.cpuBound) {
        post({ type: 'sync', id: drawGate.request() });
        await drawGate.wait(DRAW_WAIT_MAX_MS);
      } else await yieldToMessages();
    }
    if (gen === generation && trainer) {
      flush();
      await applyPending();
      state = trainer.done ? 'done' : 'paused';
      if (trainer.done && lastCheckpointStep !== trainer.step) await saveAndPost();
      postState();
    }
  } catch (e) {
    // A lost device: open a new one and resume from the last checkpoint (the loop goes on below).
    if (gen === generation && isDeviceFault(e)) await recoverDevice(e, stepping);
    else if (gen === generation) {
      flush();
      state = 'error';
      running = false;
      pendingSteps = 0;
      // A diverged run saves nothing more: name the checkpoint the page keeps from before it.
      const why =
        e instanceof DivergenceError
          ? `${e.message}; stopped — ${lastCheckpointStep >= 0 ? `the last good checkpoint is this run's checkpoint at step ${lastCheckpointStep}` : 'no checkpoint was saved before it'}`
          : errMsg(e);
      postState(why);
      post({ type: 'error', message: `Training failed: ${why}` });
    }
  } finally {
    looping = false;
  }
  // A command that arrived while the last step finished may need another pass.
  if (gen === generation && trainer && !trainer.done && state !== 'error' && (running || pendingSteps > 0)) void loop();
}

/** Bytes of the base checkpoint at `url` when it exists and matches the config's model; else null and why. */
async function fetchBase(url: string, config: RunConfig): Promise<{ bytes: Uint8Array | null; why?: string }> {
  try {
    const res = await fetch(url);
    // A static server may answer a missing file with the app's index.html (SPA fallback).
    if (!res.ok || (res.headers.get('content-type') ?? '').includes('text/html')) return { bytes: null, why: `no base checkpoint at ${url}` };
    const bytes = new Uint8Array(await res.arrayBuffer());
    const model = decodeCheckpoint(bytes, url).model;
    if (JSON.stringify(model) !== JSON.stringify(config.model)) return { bytes: null, why: `base checkpoint ${url} is for another model size` };
    return { bytes };
  } catch (e) {
    return { bytes: null, why: `base checkpoint ${url} unavailable (${errMsg(e)})` };
  }
}

/** Closes the open engine (if any) and opens `choice`. */
async function openEngine(choice: BackendChoice) {
  closeEngine();
  engineChoice = choice;
  useEngine(await acquireWorkerBackend(choice));
}

function closeEngine() {
  unwatchDevice?.();
  unwatchDevice = null;
  backend?.destroy();
  backend = null;
  engine = null;
}

/** Makes `opened` the engine and watches its GPU device: a loss while no step runs is recovered at once (a step in flight fails and recovers by itself). */
function useEngine(opened: { backend: Backend; summary: EngineSummary }) {
  backend = opened.backend;
  engine = opened.summary;
  const mine = backend;
  unwatchDevice =
    backend.onLost?.((info) => {
      if (looping || recovering || backend !== mine) return;
      queue = queue.then(() => recoverDevice(new DeviceLostError(info), mine)).then(() => undefined, (e) => post({ type: 'error', message: errMsg(e) }));
    }) ?? null;
}

/**
 * The GPU device of `lost` failed (issue #13): drop it and the run's buffers, open a new engine
 * (bounded retries with back-off), and resume the live run from its last checkpoint — or from
 * what it started from, before its first checkpoint — re-sending the steps since. Returns whether
 * the run can go on; after the last attempt fails the run stops in `error` with one line saying
 * what to do, and the next start opens an engine afresh (no dead runtime is kept).
 */
function recoverDevice(fault: unknown, lost: Backend | null): Promise<boolean> {
  if (recovering) return recovering;
  if (!lost || backend !== lost) return Promise.resolve(backend !== null);
  recovering = recoverFrom(fault).finally(() => (recovering = null));
  return recovering;
}

async function recoverFrom(fault: unknown): Promise<boolean> {
  const gen = generation;
  const hadRun = runId !== null && runStart !== null;
  const lostAt = trainer?.step ?? 0;
  const stages = trainer?.config.stages;
  const start = runStart;
  if (lastCheckpointStep > resumedAt) losses = 0; // a checkpoint since the last recovery: progress
  losses++;
  const kept = lastCheckpointStep >= 0 ? `its checkpoint at step ${lastCheckpointStep} is kept in this browser: Load it (Checkpoints) or resume it from the Runs panel once the GPU works again — reload the page if it does not, or choose the CPU engine` : 'no checkpoint was saved before it: start the run again';
  const fail = (why: string) => {
    const message = `${lossHeadline(fault, hadRun ? lostAt : undefined)}, and ${why}. ${hadRun ? `The run stopped; ${kept}` : 'The next run opens a new device'}.`;
    trainer?.destroy();
    trainer = null;
    running = false;
    pendingSteps = 0;
    if (hadRun) state = 'error';
    post({ type: 'device-lost', runId, phase: 'failed', lostAtStep: lostAt, resumedFromStep: null, message });
    postState(message);
    return false;
  };
  // Nothing from the failed step reaches the page; what was sent after the checkpoint is sent again.
  buffer = [];
  latestSamples = null;
  try {
    trainer?.destroy();
  } catch {
    // the lost device's buffers may be gone already
  }
  trainer = null;
  closeEngine();
  if (!mayRecover(fault, losses)) return fail(`it failed ${losses} times since the last checkpoint`);
  const trying = `${lossHeadline(fault, hadRun ? lostAt : undefined)}; opening a new device…`;
  if (hadRun) state = 'starting';
  post({ type: 'device-lost', runId, phase: 'recovering', lostAtStep: lostAt, resumedFromStep: null, message: trying });
  postState(trying);
  let opened: Awaited<ReturnType<typeof acquireWorkerBackend>> | null;
  try {
    opened = await reopenWithBackoff(() => acquireWorkerBackend(engineChoice), {
      policy: DEVICE_RECOVERY,
      cancelled: () => gen !== generation || backend !== null,
      onAttempt: (n, of) => postState(`${trying} (attempt ${n} of ${of})`),
    });
  } catch (e) {
    return fail(e instanceof RecoveryFailed ? e.message : errMsg(e));
  }
  // Stopped, restarted or switched meanwhile: that command opens (or has opened) what it needs.
  if (!opened) return false;
  if (backend !== null) {
    opened.backend.destroy();
    return false;
  }
  useEngine(opened);
  post({ type: 'ready', engine: opened.summary });
  if (gen !== generation) return false;
  if (!hadRun || !start) {
    const message = `${lossHeadline(fault)}; a new device is open.`;
    post({ type: 'device-lost', runId: null, phase: 'recovered', lostAtStep: lostAt, resumedFromStep: null, message });
    return true;
  }
  try {
    const t = await MagicTrainer.create(backend!, start.config, { checkpoint: lastCheckpoint ?? start.checkpoint, onProgress: (m) => postState(m), inspector: groupInspector() });
    if (gen !== generation) {
      t.destroy();
      return false;
    }
    // Stage edits made after the checkpoint still apply.
    if (stages && JSON.stringify(stages) !== JSON.stringify(t.config.stages)) {
      try {
        t.setStages(stages);
      } catch {
        // an edit the resumed step no longer allows: the checkpoint's stages stand
      }
    }
    trainer = t;
    if (JSON.stringify(t.config) !== JSON.stringify(start.config)) post({ type: 'run-config', runId: runId!, config: t.config });
    resumedAt = t.step;
    startEvalPending = start.fresh && t.step === 0 && !startEvalPosted;
    const resumedFrom = lastCheckpoint || t.step > 0 ? t.step : null;
    note = recoveredNotice(fault, lostAt, resumedFrom);
    post({ type: 'device-lost', runId, phase: 'recovered', lostAtStep: lostAt, resumedFromStep: resumedFrom ?? 0, message: note });
    state = t.done ? 'done' : 'paused';
    postState();
    return true;
  } catch (e) {
    return fail(`the run could not be reopened on the new device (${errMsg(e)})`);
  }
}

async function stopRun() {
  generation++;
  drawGate.cancel();
  running = false;
  pendingSteps = 0;
  pendingStages = null;
  pendingSave = false;
  flush();
  // Let an in-flight trainStep finish before freeing its buffers.
  while (looping) await new Promise((r) => setTimeout(r, 5));
  trainer?.destroy();
  trainer = null;
  runStart = null;
  lastCheckpoint = null;
}

async function start(msg: Extract<ToWorker, { type: 'start' }>) {
  await stopRun();
  const gen = generation;
  runId = msg.runId;
  state = 'starting';
  note = undefined;
  buffer = [];
  latestSamples = null;
  lastCheckpointStep = -1;
  running = !msg.paused;
  // Set-up work reports each phase in the state line (the page shows it under the controls); the
  // page ends a set-up it no longer wants by terminating this Worker (src/ui/lab.ts: Reset).
  const progress = (m: string) => {
    if (gen === generation) postState(m);
  };
  postState();
  try {
    if (!backend) {
      progress('opening the engine…');
      await openEngine(engineChoice);
    }
    const config = validateRunConfig(msg.config);
    // Too big for this engine or device: refused before anything is allocated, naming the field, the size and the limit.
    checkRunResources(config, { engine: engineLimitsOf(backend!), host: browserHostLimits() });
    let checkpoint: Uint8Array | undefined;
    if (msg.checkpoint) checkpoint = new Uint8Array(msg.checkpoint);
    else if (msg.baseCheckpointUrl) {
      progress(`loading the base checkpoint ${msg.baseCheckpointUrl}…`);
      const base = await fetchBase(msg.baseCheckpointUrl, config);
      if (base.bytes) {
        checkpoint = base.bytes;
        note = `started from the base checkpoint ${msg.baseCheckpointUrl}`;
      } else note = `started from random init: ${base.why}`;
    } else note = 'started from random init';
    runStart = { config, checkpoint, fresh: !msg.checkpoint };
    losses = 0;
    resumedAt = -1;
    startEvalPosted = false;
    // inspector: the samples carry ρ and clip marks for the page's group inspector (read-only; same run).
    const t = await MagicTrainer.create(backend!, config, { checkpoint, onProgress: progress, onSetup: progress, inspector: groupInspector() });
    if (gen !== generation) {
      t.destroy();
      return;
    }
    trainer = t;
    if (JSON.stringify(t.config) !== JSON.stringify(config)) post({ type: 'run-config', runId: msg.runId, config: t.config });
    lastCheckpointStep = msg.checkpoint ? t.step : -1;
    startEvalPending = !msg.checkpoint && t.step === 0;
    if (msg.checkpoint) note = `resumed from a checkpoint at step ${t.step}`;
    state = t.done ? 'done' : 'paused';
    postState();
    void loop();
  } catch (e) {
    if (gen !== generation) return;
    // The device was lost while the run was set up: set it up again on a new one.
    if (isDeviceFault(e) && runStart && !trainer) {
      if ((await recoverDevice(e, backend)) && gen === generation) void loop();
      return;
    }
    state = 'error';
    running = false;
    postState(errMsg(e));
    post({ type: 'error', message: `Could not start the run: ${errMsg(e)}` });
  }
}

/** The inspector's token view: the live policy's distribution at one position (src/rl/inspect.ts), between two steps. */
async function answerTokenProbs(msg: Extract<ToWorker, { type: 'token-probs' }>) {
  const { requestId, runId: forRun } = msg;
  try {
    const got = await exclusive(async () => {
      if (!trainer || runId !== forRun) throw new Error('the policy of this run is not loaded: resume the run (Runs panel) to ask it');
      const ids = msg.tokens.map((t) => {
        const id = VOCAB.indexOf(t);
        if (id < 0) throw new Error(`token ${JSON.stringify(t)} is not in the vocabulary`);
        return id;
      });
      const logp = await nextTokenLogp(trainer.policy, encodePrompt(msg.prompt), ids, msg.position, trainer.config.model.contextLength);
      return { step: trainer.step, logp, sampled: ids[msg.position] };
    });
    const views = temperatureViews(got.logp, msg.temperatures, msg.k, got.sampled);
    post({ type: 'token-probs', requestId, runId: forRun, step: got.step, logp: Array.from(got.logp), views });
  } catch (e) {
    post({ type: 'token-probs', requestId, runId: forRun, error: errMsg(e) });
  }
}

let queue: Promise<void> = Promise.resolve();

async function handle(msg: ToWorker) {
  switch (msg.type) {
    case 'init': {
      const choice = msg.backend ?? 'auto';
      try {
        if (!backend || engineChoice !== choice) {
          await stopRun();
          if (runId) {
            runId = null;
            state = 'idle';
            note = undefined;
            postState();
          }
          await openEngine(choice);
        }
        post({ type: 'ready', engine: engine! });
      } catch (e) {
        engineChoice = choice;
        post({ type: 'no-engine', reason: errMsg(e) });
      }
      return;
    }
    case 'start':
      return start(msg);
    case 'pause':
      drawGate.cancel();
      running = false;
      pendingSteps = 0;
      if (trainer && !looping && state === 'running') {
        state = 'paused';
        postState();
      }
      return;
    case 'resume':
      if (!trainer || trainer.done) return;
      running = true;
      void loop();
      return;
    case 'step':
      if (!trainer || trainer.done) return;
      running = false;
      pendingSteps++;
      void loop();
      return;
    case 'stop':
      await stopRun();
      runId = null;
      state = 'idle';
      note = undefined;
      postState();
      return;
    case 'set-stages':
      if (!trainer) return;
      pendingStages = msg.stages;
      if (!looping) await applyPending();
      return;
    case 'save-checkpoint':
      if (!trainer) return post({ type: 'error', message: 'No run to save.' });
      pendingSave = true;
      if (!looping) await applyPending();
      return;
    case 'token-probs':
      void answerTokenProbs(msg);
      return;
  }
}

// Commands are handled in arrival order (a `step` sent right after `start` waits for the
// trainer to exist); the training loop itself is not awaited, so pause / step / set-stages
// reach it between two steps.
scope.onmessage = (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  // Not queued: the loop is waiting for it.
  if (msg.type === 'drawn') return drawGate.answer(msg.id);
  queue = queue.then(() => handle(msg)).catch((e) => post({ type: 'error', message: errMsg(e) }));
};
