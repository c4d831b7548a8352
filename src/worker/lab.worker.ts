/// <reference lib="webworker" />
/**
 * The Worker that owns the engine (WebGPU device or CPU engine) and the trainer (training never blocks the page's
 * main thread). Commands from the page are handled in order; the training loop runs between
 * them, one `trainStep()` at a time, and yields to the message queue after every step, so
 * pause / step / set-stages / save-checkpoint take effect at the next step boundary.
 * Step records are sent in batches (at most every FLUSH_MS), not one message per step.
 */
import { DeviceLostError, isDeviceFault, type Backend } from '../model/engine';
import { rungOf, validateRunConfig, type StageConfig } from '../rl/config';
import { DivergenceError } from '../rl/divergence';
import { DEVICE_RECOVERY, lossHeadline, mayRecover, RecoveryFailed, recoveredNotice, reopenWithBackoff } from '../rl/recovery';
import { groupInspector } from '../rl/inspect';
import { MagicTrainer } from '../rl/trainer';
import { browserHostLimits, checkRunResources, engineLimitsOf } from '../rl/resources';
import { fetchBase, openBaseCache, shownUrl, startFailure } from './base-checkpoint';
import { evalProgressText } from './progress-text';
import { CommandQueue } from './command-queue';
import { DrawGate } from './drawgate';
import { acquireWorkerBackend } from './engine';
import { EngineHolder, type OpenedEngine } from './engine-holder';
import { EngineTurn } from './engine-turn';
import { StepOutbox } from './outbox';
import type { FromWorker, ToWorker } from './protocol';
import { ResumePoint, type RunStart } from './resume-point';
import { RunSession } from './run-session';
import { measureStepSeconds } from './rung-bench';
import { answerBench } from './bench';
import { answerTokenProbs } from './token-probs';

const scope = self as unknown as DedicatedWorkerGlobalScope;

const post = (m: FromWorker, transfer: Transferable[] = []) => scope.postMessage(m, transfer);

/** Minimum interval between two batches (metrics + latest samples + state) while training. */
const FLUSH_MS = 400;
/** Longest wait for the page to draw a batch before the next step (software adapters only). */
const DRAW_WAIT_MAX_MS = 2000;

const errMsg = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The live run: its id, state line, stepping wishes and generation (run-session.ts). */
const run = new RunSession<MagicTrainer>();
/** What a lost device resumes the run from (resume-point.ts). */
const resume = new ResumePoint();
/** Step records and samples not yet sent. */
const outbox = new StepOutbox(FLUSH_MS);
/** Training steps and the inspector's forward passes take the engine one at a time. */
const turn = new EngineTurn();
/** "Draw, then step" on a software adapter (see drawgate.ts). */
const drawGate = new DrawGate();
/** Commands from the page, in arrival order; a device loss seen while no step runs is recovered in this order too. */
const commands = new CommandQueue((e) => post({ type: 'error', message: errMsg(e) }));
/**
 * The open engine. A loss of its GPU device while no step runs is recovered at once (a step in
 * flight fails and recovers by itself).
 */
const engines = new EngineHolder(acquireWorkerBackend, (info, lost) => {
  if (run.looping || engines.recovering || engines.backend !== lost) return;
  commands.enqueue(() => recoverDevice(new DeviceLostError(info), lost));
});

function postState(message?: string) {
  post(run.stateMessage(message));
}

/** Whether the last flush sent anything for the page to draw. */
function flush(): boolean {
  const { steps, samples } = outbox.take();
  const runId = run.runId;
  const sent = !!runId && (steps.length > 0 || samples !== null);
  if (runId && steps.length) post({ type: 'metrics', runId, steps });
  if (runId && samples) post({ type: 'samples', runId, ...samples });
  return sent;
}

async function saveAndPost() {
  const { trainer, runId } = run;
  if (!trainer || !runId) return;
  flush(); // the page keeps metrics up to the checkpoint's step before the checkpoint itself
  const bytes = await trainer.saveCheckpoint();
  // A copy goes to the page; the Worker keeps `bytes` to resume from if the device is lost.
  const copy = bytes.slice().buffer as ArrayBuffer;
  resume.saved(trainer.step, bytes);
  post({ type: 'checkpoint', runId, step: trainer.step, bytes: copy }, [copy]);
}

/** Stage edits and checkpoint requests wait for a step boundary. */
async function applyPending() {
  const trainer = run.trainer;
  if (!trainer) return;
  const s = run.takeStages();
  if (s) {
    try {
      // A later stage's larger batch or length must fit the engine too (its plans are built when the stage starts).
      const backend = engines.backend;
      trainer.setStages(s, (next) => {
        if (backend) checkRunResources(next, { engine: engineLimitsOf(backend), host: browserHostLimits() });
      });
    } catch (e) {
      post({ type: 'error', message: `Stage edit rejected: ${errMsg(e)}` });
    }
  }
  if (run.takeSave()) await saveAndPost();
}

const yieldToMessages = () => new Promise<void>((r) => setTimeout(r, 0));

async function loop() {
  if (run.looping) return;
  run.looping = true;
  const gen = run.generation;
  const stepping = engines.backend;
  try {
    while (gen === run.generation && run.trainer && run.wantsSteps) {
      await applyPending();
      const trainer = run.trainer;
      if (trainer.done) break;
      if (run.state !== 'running') {
        run.state = 'running';
        postState();
      }
      if (resume.takeStartEval(trainer.step)) {
        // Same eval seed stream as the CLI's step-0 evaluation; it draws nothing from training's streams.
        // Minutes at the larger rungs: the state line counts the responses (one message per generation batch).
        const ev0 = await turn.exclusive(() => trainer.evaluate((done, total) => gen === run.generation && !!run.runId && post({ type: 'progress', runId: run.runId, message: evalProgressText(done, total) })));
        if (gen !== run.generation || !run.runId) break;
        post({ type: 'eval', runId: run.runId, record: ev0 });
        postState(); // the progress line gives way to the run's note
        resume.startEvalPosted = true;
      }
      const stageBefore = trainer.stage;
      const { record, samples, eval: ev } = await turn.exclusive(() => trainer.trainStep());
      const runId = run.runId;
      if (gen !== run.generation || !runId) break;
      run.stepped();
      outbox.add(record, samples);
      const every = trainer.config.checkpoint.everySteps;
      // One batch per FLUSH_MS (metrics, samples, state), not one message per step.
      let drawn = false;
      if (ev || outbox.due || trainer.done || !run.wantsSteps) {
        drawn = flush();
        postState();
      }
      if (ev) post({ type: 'eval', runId, record: ev });
      // Every N steps and at each stage boundary: a lost device costs at most the steps since.
      if ((every > 0 && trainer.step % every === 0) || trainer.stage !== stageBefore || trainer.done) await saveAndPost();
      // GPU emulated on the CPU: let the page draw this batch before the next step takes the cores.
      if (drawn && run.running && !trainer.done && engines.summary?.cpuBound) {
        post({ type: 'sync', id: drawGate.request() });
        await drawGate.wait(DRAW_WAIT_MAX_MS);
      } else await yieldToMessages();
    }
    if (gen === run.generation && run.trainer) {
      flush();
      await applyPending();
      const trainer = run.trainer;
      run.state = trainer.done ? 'done' : 'paused';
      if (trainer.done && resume.checkpointStep !== trainer.step) await saveAndPost();
      postState();
    }
  } catch (e) {
    // A lost device: open a new one and resume from the last checkpoint (the loop goes on below).
    if (gen === run.generation && isDeviceFault(e)) await recoverDevice(e, stepping);
    else if (gen === run.generation) {
      flush();
      run.state = 'error';
      run.halt();
      // A diverged run saves nothing more: name the checkpoint the page keeps from before it.
      const why = e instanceof DivergenceError ? `${e.message}; stopped — ${resume.lastGoodLine()}` : errMsg(e);
      postState(why);
      post({ type: 'error', message: `Training failed: ${why}` });
    }
  } finally {
    run.looping = false;
  }
  // A command that arrived while the last step finished may need another pass.
  if (gen === run.generation && run.trainer && !run.trainer.done && run.state !== 'error' && run.wantsSteps) void loop();
}

/**
 * The GPU device of `lost` failed: drop it and the run's buffers, open a new engine
 * (bounded retries with back-off), and resume the live run from its last checkpoint — or from
 * what it started from, before its first checkpoint — re-sending the steps since. Returns whether
 * the run can go on; after the last attempt fails the run stops in `error` with one line saying
 * what to do, and the next start opens an engine afresh (no dead runtime is kept).
 */
function recoverDevice(fault: unknown, lost: Backend | null): Promise<boolean> {
  if (engines.recovering) return engines.recovering;
  if (!lost || engines.backend !== lost) return Promise.resolve(engines.backend !== null);
  return engines.recoverWith(() => recoverFrom(fault));
}

/** One device loss, as recoverFrom's steps see it (taken when the loss is handled). */
interface Loss {
  fault: unknown;
  gen: number;
  /** A run was live (it has a start to resume from). */
  hadRun: boolean;
  lostAt: number;
  /** The live stage schedule (edits made after the checkpoint still apply). */
  stages: StageConfig[] | undefined;
  start: RunStart | null;
  /** What the page keeps if the run stops here (the checkpoint when the loss was handled). */
  kept: string;
}

async function recoverFrom(fault: unknown): Promise<boolean> {
  const loss: Loss = { fault, gen: run.generation, hadRun: run.runId !== null && resume.start !== null, lostAt: run.trainer?.step ?? 0, stages: run.trainer?.config.stages, start: resume.start, kept: resume.keptLine() };
  const losses = resume.countLoss();
  dropLostRun();
  if (!mayRecover(fault, losses)) return failRecovery(loss, `it failed ${losses} times since the last checkpoint`);
  const trying = `${lossHeadline(fault, loss.hadRun ? loss.lostAt : undefined)}; opening a new device…`;
  if (loss.hadRun) run.state = 'starting';
  post({ type: 'device-lost', runId: run.runId, phase: 'recovering', lostAtStep: loss.lostAt, resumedFromStep: null, message: trying });
  postState(trying);
  let opened: OpenedEngine | null;
  try {
    opened = await reopenWithBackoff(() => engines.acquireAgain(), {
      policy: DEVICE_RECOVERY,
      cancelled: () => loss.gen !== run.generation || engines.backend !== null,
      onAttempt: (n, of) => postState(`${trying} (attempt ${n} of ${of})`),
    });
  } catch (e) {
    return failRecovery(loss, e instanceof RecoveryFailed ? e.message : errMsg(e));
  }
  // Stopped, restarted or switched meanwhile: that command opens (or has opened) what it needs.
  if (!opened) return false;
  if (engines.backend !== null) {
    opened.backend.destroy();
    return false;
  }
  engines.use(opened);
  post({ type: 'ready', engine: opened.summary });
  if (loss.gen !== run.generation) return false;
  if (!loss.hadRun || !loss.start) {
    const message = `${lossHeadline(fault)}; a new device is open.`;
    post({ type: 'device-lost', runId: null, phase: 'recovered', lostAtStep: loss.lostAt, resumedFromStep: null, message });
    return true;
  }
  return reopenRun(loss, loss.start);
}

/** Nothing from the failed step reaches the page (what was sent after the checkpoint is sent again); the run's buffers and the engine go. */
function dropLostRun() {
  outbox.clear();
  try {
    run.trainer?.destroy();
  } catch {
    // the lost device's buffers may be gone already
  }
  run.trainer = null;
  engines.close();
}

/** No new device, or the run does not reopen on it: the run stops in `error` with one line saying what to do. */
function failRecovery(loss: Loss, why: string): false {
  const message = `${lossHeadline(loss.fault, loss.hadRun ? loss.lostAt : undefined)}, and ${why}. ${loss.hadRun ? `The run stopped; ${loss.kept}` : 'The next run opens a new device'}.`;
  run.dropTrainer();
  run.halt();
  if (loss.hadRun) run.state = 'error';
  post({ type: 'device-lost', runId: run.runId, phase: 'failed', lostAtStep: loss.lostAt, resumedFromStep: null, message });
  postState(message);
  return false;
}

/** Sets the live run up again on the new engine from its last checkpoint (or its start), paused. */
async function reopenRun(loss: Loss, start: RunStart): Promise<boolean> {
  try {
    const t = await MagicTrainer.create(engines.backend!, start.config, { checkpoint: resume.checkpoint ?? start.checkpoint, onProgress: (m) => postState(m), inspector: groupInspector() });
    if (loss.gen !== run.generation) {
      t.destroy();
      return false;
    }
    // Stage edits made after the checkpoint still apply.
    if (loss.stages && JSON.stringify(loss.stages) !== JSON.stringify(t.config.stages)) {
      try {
        t.setStages(loss.stages);
      } catch {
        // an edit the resumed step no longer allows: the checkpoint's stages stand
      }
    }
    run.trainer = t;
    if (JSON.stringify(t.config) !== JSON.stringify(start.config)) post({ type: 'run-config', runId: run.runId!, config: t.config });
    const resumedFrom = resume.resumed(t.step, start.fresh);
    run.note = recoveredNotice(loss.fault, loss.lostAt, resumedFrom);
    post({ type: 'device-lost', runId: run.runId, phase: 'recovered', lostAtStep: loss.lostAt, resumedFromStep: resumedFrom ?? 0, message: run.note });
    run.state = t.done ? 'done' : 'paused';
    postState();
    return true;
  } catch (e) {
    return failRecovery(loss, `the run could not be reopened on the new device (${errMsg(e)})`);
  }
}

async function stopRun() {
  run.supersede();
  drawGate.cancel();
  flush();
  // Let an in-flight trainStep finish before freeing its buffers.
  while (run.looping) await new Promise((r) => setTimeout(r, 5));
  run.dropTrainer();
  resume.forget();
}

async function start(msg: Extract<ToWorker, { type: 'start' }>) {
  await stopRun();
  const gen = run.generation;
  run.begin(msg.runId, !!msg.paused);
  outbox.clear();
  resume.checkpointStep = -1;
  // Set-up work reports each phase in the state line (the page shows it under the controls); the
  // page ends a set-up it no longer wants by terminating this Worker (src/ui/lab.ts: Reset).
  const progress = (m: string) => {
    if (gen === run.generation) postState(m);
  };
  postState();
  let baseMissing: string | undefined;
  try {
    if (!engines.backend) {
      progress('opening the engine…');
      await engines.open(engines.choice);
    }
    const config = validateRunConfig(msg.config);
    // Too big for this engine or device: refused before anything is allocated, naming the field, the size and the limit.
    checkRunResources(config, { engine: engineLimitsOf(engines.backend!), host: browserHostLimits() });
    let checkpoint: Uint8Array | undefined;
    if (msg.checkpoint) checkpoint = new Uint8Array(msg.checkpoint);
    else if (msg.baseCheckpointUrl) {
      progress(`loading the base checkpoint ${shownUrl(msg.baseCheckpointUrl)}…`);
      const onProgress = (loaded: number, total: number) => gen === run.generation && post({ type: 'base-progress', runId: msg.runId, loaded, total });
      const base = await fetchBase(msg.baseCheckpointUrl, config, undefined, { rung: rungOf(config), onProgress, openCache: openBaseCache });
      // A rung's missing base ends the start here, before any sampling, naming the server's answer.
      if (base.required) throw new Error(base.why);
      if (base.bytes) {
        checkpoint = base.bytes;
        run.note = `started from the base checkpoint ${shownUrl(msg.baseCheckpointUrl)}`;
      } else {
        run.note = `started from random init: ${base.why}`;
        baseMissing = base.why;
      }
    } else run.note = 'started from random init';
    resume.began({ config, checkpoint, fresh: !msg.checkpoint });
    // inspector: the samples carry ρ and clip marks for the page's group inspector (read-only; same run).
    const t = await MagicTrainer.create(engines.backend!, config, { checkpoint, onProgress: progress, onSetup: progress, inspector: groupInspector() });
    if (gen !== run.generation) {
      t.destroy();
      return;
    }
    run.trainer = t;
    if (JSON.stringify(t.config) !== JSON.stringify(config)) post({ type: 'run-config', runId: msg.runId, config: t.config });
    resume.checkpointStep = msg.checkpoint ? t.step : -1;
    resume.startEvalPending = !msg.checkpoint && t.step === 0;
    if (msg.checkpoint) run.note = `resumed from a checkpoint at step ${t.step}`;
    run.state = t.done ? 'done' : 'paused';
    postState();
    void loop();
  } catch (e) {
    if (gen !== run.generation) return;
    // The device was lost while the run was set up: set it up again on a new one.
    if (isDeviceFault(e) && resume.start && !run.trainer) {
      if ((await recoverDevice(e, engines.backend)) && gen === run.generation) void loop();
      return;
    }
    run.state = 'error';
    run.running = false;
    // Said once, in the page's error line (an empty state message: not again under the controls).
    postState('');
    post({ type: 'error', message: `Could not start the run: ${startFailure(errMsg(e), baseMissing)}` });
  }
}

async function handle(msg: ToWorker) {
  switch (msg.type) {
    case 'init': {
      const choice = msg.backend ?? 'auto';
      try {
        if (!engines.backend || engines.choice !== choice) {
          await stopRun();
          if (run.runId) {
            run.end();
            postState();
          }
          await engines.open(choice);
        }
        post({ type: 'ready', engine: engines.summary! });
      } catch (e) {
        engines.choice = choice;
        post({ type: 'no-engine', reason: errMsg(e) });
      }
      return;
    }
    case 'start':
      return start(msg);
    case 'pause':
      drawGate.cancel();
      run.halt();
      if (run.trainer && !run.looping && run.state === 'running') {
        run.state = 'paused';
        postState();
      }
      return;
    case 'resume':
      if (!run.trainer || run.trainer.done) return;
      run.running = true;
      void loop();
      return;
    case 'step':
      if (!run.trainer || run.trainer.done) return;
      run.stepOnce();
      void loop();
      return;
    case 'stop':
      await stopRun();
      run.end();
      postState();
      return;
    case 'set-stages':
      if (!run.trainer) return;
      run.pendingStages = msg.stages;
      if (!run.looping) await applyPending();
      return;
    case 'save-checkpoint':
      if (!run.trainer) return post({ type: 'error', message: 'No run to save.' });
      run.pendingSave = true;
      if (!run.looping) await applyPending();
      return;
    case 'token-probs':
      void answerTokenProbs(msg, () => run, turn, post);
      return;
    case 'measure-step': {
      // Between two steps, like the inspector's forward passes; on the engine open then.
      const engine = engines.summary?.description ?? 'no engine';
      void turn
        .exclusive(() => (engines.backend ? measureStepSeconds(engines.backend, validateRunConfig(msg.config)) : Promise.reject(new Error('no engine is open'))))
        .then((seconds) => post({ type: 'step-estimate', key: msg.key, engine, seconds }), (e) => post({ type: 'step-estimate', key: msg.key, engine, error: errMsg(e) }));
      return;
    }
    case 'bench':
      // Between two steps, like measure-step, on the engine open then.
      return answerBench(msg, engines.backend, turn, post);
  }
}

// Commands are handled in arrival order (a `step` sent right after `start` waits for the
// trainer to exist); the training loop itself is not awaited, so pause / step / set-stages
// reach it between two steps.
scope.onmessage = (ev: MessageEvent<ToWorker>) => {
  const msg = ev.data;
  // Not queued: the loop is waiting for it.
  if (msg.type === 'drawn') return drawGate.answer(msg.id);
  commands.enqueue(() => handle(msg));
};
