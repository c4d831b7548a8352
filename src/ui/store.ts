/**
 * The one zustand store of the page. Slices:
 *  - device: the engine the Worker trains on (WebGPU or the CPU engine), or why none works;
 *  - config: the preset and rung, the draft RunConfig being edited and its validation error,
 *    the rungs' measured speeds and an on-demand base's download;
 *  - runs: every run (config + metrics), the active run, the overlay selection;
 *  - live: the Worker's run state, the latest rollout samples;
 *  - ui: smoothing, log scales, token colouring, messages;
 *  - references: the reference runs' index and files, the one overlaid on the charts, the
 *    Findings view, and the run queue of "Run this finding here".
 *  - teach: teacher mode's hidden controls, the Try-this setup loaded, the field an equation
 *    link in "How MAGIC works" points at.
 * The store is pure (no Worker, no IndexedDB): lab.ts wires those to it.
 */
import { create } from 'zustand';
import { DEFAULT_RUNG, getPreset, rungOf, validateRunConfig, type RunConfig, type RungName, type StageConfig } from '../rl/config';
import { browserHostLimits, checkRunResources, type EngineLimits } from '../rl/resources';
import type { EvalRecord, SampleRecord, StepRecord } from '../rl/trainer-types';
import type { BackendChoice, EngineSummary, RunState } from '../worker/protocol';
import { setPath } from './lib/fields';
import { addSamples, emptyHistory, type InspectorHistory } from './lib/inspector';
import { presetAtRung, type StepEstimate } from './lib/rungs';
import type { RunQueue } from './lib/queue';
import type { BenchState } from './lib/bench';
import type { Lesson } from './lib/lesson';

/** A played Try-this card: its arms' runs (mode 'runs') or their reference curves ('reference'); `keys`: a lesson's subset of arms. */
export interface TryPlay {
  cardId: string;
  mode: 'runs' | 'reference';
  keys?: readonly string[];
}
import type { ReferenceFile, ReferenceIndex } from './lib/reference';
import type { RunData } from '../io/runfile';

export type DeviceState =
  | { status: 'starting' }
  | { status: 'ready'; engine: EngineSummary }
  | { status: 'no-engine'; reason: string }
  | { status: 'error'; message: string };

/** What the group inspector colours tokens by (lib/colour.ts): entropy H_t, the sampled token's probability, ρ after the update, the advantage. */
export type TokenColour = 'none' | 'entropy' | 'logp' | 'ratio' | 'advantage';

/** The page's banner about a lost GPU device (from the Worker's `device-lost` messages). */
export interface DeviceLossNotice {
  phase: 'recovering' | 'recovered' | 'failed';
  message: string;
}

export interface ConfigSlice {
  preset: string;
  /** The config being edited (may be invalid while the user types: see configError). */
  draft: RunConfig;
  /** First validation error of the draft, or null. */
  configError: string | null;
  /** The link the page was opened with was invalid (shown once, until dismissed). */
  urlError: string | null;
  /** The model-ladder rung the preset is taken at (rung= in the URL; tiny when absent). */
  rung: RungName;
  /** Measured seconds per step, by lib/rungs.ts stepEstimateKey (engine and rung), for the session. */
  stepEstimates: Record<string, StepEstimate>;
  /** An on-demand base checkpoint being downloaded for the starting run (bytes; total 0 when unknown), or null. */
  baseDownload: { loaded: number; total: number } | null;
  setPreset(name: string): void;
  /** Loads the current preset at `rung` as the draft (checked against the open engine's limits: configError says when it does not fit). */
  setRung(rung: RungName): void;
  setStepEstimate(key: string, e: StepEstimate): void;
  setBaseDownload(d: { loaded: number; total: number } | null): void;
  setField(path: string, value: unknown): void;
  setDraftStages(stages: StageConfig[]): void;
  /** `rung`: the one the setup names (the URL's); by default the rung of the config's model (tiny for a hand-made one). */
  loadSetup(preset: string, config: RunConfig, urlError?: string | null, rung?: RungName): void;
  dismissUrlError(): void;
}

export interface RunsSlice {
  runs: Record<string, RunData>;
  /** Ids, oldest first. */
  order: string[];
  activeRunId: string | null;
  /** Runs overlaid on the charts besides the active one. */
  overlay: string[];
  addRun(run: RunData, opts?: { activate?: boolean }): void;
  appendSteps(runId: string, steps: StepRecord[]): void;
  addEval(runId: string, record: EvalRecord): void;
  /** Drop records after `step` (resuming from a checkpoint taken at `step`). */
  truncateRun(runId: string, step: number): void;
  patchRun(runId: string, patch: Partial<Omit<RunData, 'id' | 'steps' | 'evals'>>): void;
  renameRun(runId: string, name: string): void;
  deleteRun(runId: string): void;
  setActiveRun(runId: string | null): void;
  toggleOverlay(runId: string): void;
  setRunStages(runId: string, stages: StageConfig[]): void;
}

export interface LiveSlice {
  runState: RunState;
  /** Run the Worker is training (null when none). */
  liveRunId: string | null;
  step: number;
  stage: number;
  statusMessage: string | null;
  samples: SampleRecord[];
  samplesStep: number | null;
  /** The group inspector's bounded history of recorded groups by step (lib/inspector.ts). */
  inspector: InspectorHistory;
  setLiveState(s: { runId: string | null; state: RunState; step: number; stage: number; message?: string }): void;
  setSamples(runId: string, step: number, samples: SampleRecord[]): void;
}

export interface UiSlice {
  /** EMA weight in [0, 0.99]. */
  smoothing: number;
  logScale: Record<string, boolean>;
  tokenColour: TokenColour;
  error: string | null;
  notice: string | null;
  /** The notice offers Undo (of the last delete). */
  noticeUndo: boolean;
  /** The GPU device was lost: what the Worker did about it (recovering, recovered, failed), until dismissed. */
  deviceLoss: DeviceLossNotice | null;
  /** Why runs are not being saved in this browser (no storage, quota full), or null while they are. */
  storageWarning: string | null;
  /** Whether the browser granted persistent storage (navigator.storage.persist()); null until asked. */
  storagePersisted: boolean | null;
  setSmoothing(w: number): void;
  toggleLog(chartId: string): void;
  setTokenColour(c: TokenColour): void;
  setError(e: string | null): void;
  setNotice(n: string | null, undo?: boolean): void;
  setDeviceLoss(d: DeviceLossNotice | null): void;
  setStorageWarning(w: string | null): void;
  setStoragePersisted(p: boolean): void;
}

export type ReferenceIndexState = { status: 'loading' } | { status: 'ready'; index: ReferenceIndex } | { status: 'error'; message: string };
export type ReferenceFileState = { status: 'loading' } | { status: 'ready'; file: ReferenceFile } | { status: 'error'; message: string };
export type LabView = 'training' | 'findings' | 'bench';

export interface ReferenceSlice {
  referenceIndex: ReferenceIndexState;
  /** Files by reference name, fetched on demand. */
  referenceFiles: Record<string, ReferenceFileState>;
  /** The reference overlaid on the training charts (bands per preset), or null. */
  overlayReference: string | null;
  /** Draw every seed's curve of the reference too. */
  referenceSeeds: boolean;
  /** The centre column: training curves, the Findings view or the Benchmark view. */
  view: LabView;
  /** view=projector (lib/view.ts): the charts draw taller, with room for their larger tick text. */
  projector: boolean;
  /** The finding (or sweep) the Findings view shows. */
  selectedFinding: string | null;
  /** The queue of "Run this finding here" (the last one, kept after it ends). */
  queue: RunQueue | null;
  /** The Benchmark view's measurement (controller/bench.ts). */
  bench: BenchState;
  setReferenceIndex(s: ReferenceIndexState): void;
  setReferenceFile(name: string, s: ReferenceFileState): void;
  setOverlayReference(name: string | null): void;
  toggleReferenceSeeds(): void;
  setView(v: LabView): void;
  setProjector(on: boolean): void;
  selectFinding(name: string | null): void;
  setQueue(q: RunQueue | null): void;
  setBench(b: BenchState): void;
}

/** Teaching: teacher mode (lib/teach.ts), the Try-this setup loaded, and the field an equation link points at. */
export interface TeachSlice {
  /** teacher=1: the bar that picks what to hide. */
  teacher: boolean;
  /** Controls left out of the page (hide=…; ids in lib/teach.ts HIDEABLE). */
  hidden: readonly string[];
  /** The Try-this setup loaded ("<card>.<setup>", try= in the URL), or null. */
  tryId: string | null;
  /** The config field (dotted path, or 'stages') an equation link asked to show; seq re-triggers a repeated click. */
  focusTarget: { target: string; seq: number } | null;
  /** The Try-this card played with "Run both" or "reference runs" (its arms overlaid), or null. */
  tryPlay: TryPlay | null;
  /** The lesson opened with lesson= (lib/lesson.ts) and the card it stands at, or null. */
  lesson: { lesson: Lesson; at: number } | null;
  setTeaching(t: Partial<Pick<TeachSlice, 'teacher' | 'hidden' | 'tryId' | 'tryPlay' | 'lesson'>>): void;
  focusField(target: string): void;
}

export interface LabStore extends ConfigSlice, RunsSlice, LiveSlice, UiSlice, ReferenceSlice, TeachSlice {
  device: DeviceState;
  setDevice(d: DeviceState): void;
  /** The engine the page asks the Worker for (in the URL as backend=, omitted for auto). */
  backendChoice: BackendChoice;
  setBackendChoice(c: BackendChoice): void;
}

function validationError(cfg: RunConfig, engine: EngineLimits | null = null): string | null {
  try {
    // Fields, then what can be judged before an engine: distinct problems and the JS heap (the Worker checks the engine's limits at start).
    checkRunResources(validateRunConfig(cfg), { engine, host: browserHostLimits() }, { engineKnown: false });
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * The open engine's limits, which the config check uses off the tiny rung: a bigger rung's default
 * batch may not fit the engine (the tiny rung's check is as before: the Worker refuses at start).
 */
const rungLimits = (s: Pick<LabStore, 'device'>, rung: RungName): EngineLimits | null =>
  rung !== DEFAULT_RUNG && s.device.status === 'ready' ? (s.device.engine.limits ?? null) : null;

const withRun = (s: LabStore, id: string, f: (r: RunData) => RunData): Partial<LabStore> => {
  const r = s.runs[id];
  return r ? { runs: { ...s.runs, [id]: f(r) } } : {};
};

export const createLabStore = (preset = 'magic') =>
  create<LabStore>((set) => ({
    device: { status: 'starting' },
    // An engine's limits arriving re-check a draft off the tiny rung (a link may open a rung too big for it).
    setDevice: (device) => set((s) => (s.rung === DEFAULT_RUNG || device.status !== 'ready' ? { device } : { device, configError: validationError(s.draft, rungLimits({ device }, s.rung)) })),
    backendChoice: 'auto',
    setBackendChoice: (backendChoice) => set({ backendChoice }),

    // teaching
    teacher: false,
    hidden: [],
    tryId: null,
    focusTarget: null,
    tryPlay: null,
    lesson: null,
    setTeaching: (t) => set(t),
    focusField: (target) => set((s) => ({ focusTarget: { target, seq: (s.focusTarget?.seq ?? 0) + 1 } })),

    // config
    preset,
    draft: getPreset(preset),
    configError: null,
    urlError: null,
    rung: DEFAULT_RUNG,
    stepEstimates: {},
    baseDownload: null,
    // A -tiny test twin exists at the tiny rung only: picking one goes back to it.
    setPreset: (name) =>
      set((s) => {
        const rung = name.endsWith('-tiny') ? DEFAULT_RUNG : s.rung;
        const draft = getPreset(name, rung);
        return { preset: name, rung, draft, configError: rung === DEFAULT_RUNG ? null : validationError(draft, rungLimits(s, rung)) };
      }),
    setRung: (rung) =>
      set((s) => {
        const preset = presetAtRung(s.preset, rung);
        const draft = getPreset(preset, rung);
        return { preset, rung, draft, configError: rung === DEFAULT_RUNG ? null : validationError(draft, rungLimits(s, rung)) };
      }),
    setStepEstimate: (key, e) => set((s) => ({ stepEstimates: { ...s.stepEstimates, [key]: e } })),
    setBaseDownload: (baseDownload) => set({ baseDownload }),
    setField: (path, value) =>
      set((s) => {
        const draft = setPath(s.draft, path, value);
        return { draft, configError: validationError(draft, rungLimits(s, s.rung)) };
      }),
    setDraftStages: (stages) =>
      set((s) => {
        const draft = { ...s.draft, stages };
        return { draft, configError: validationError(draft, rungLimits(s, s.rung)) };
      }),
    loadSetup: (name, config, urlError = null, rung = rungOf(config) ?? DEFAULT_RUNG) =>
      set((s) => ({ preset: name, rung, draft: config, configError: validationError(config, rungLimits(s, rung)), urlError })),
    dismissUrlError: () => set({ urlError: null }),

    // runs
    runs: {},
    order: [],
    activeRunId: null,
    overlay: [],
    addRun: (run, opts = {}) =>
      set((s) => ({
        runs: { ...s.runs, [run.id]: run },
        order: s.order.includes(run.id) ? s.order : [...s.order, run.id],
        ...(opts.activate ? { activeRunId: run.id } : {}),
      })),
    appendSteps: (id, steps) =>
      set((s) =>
        withRun(s, id, (r) => {
          const last = r.steps.length ? r.steps[r.steps.length - 1].step : -Infinity;
          const fresh = steps.filter((x) => x.step > last);
          return fresh.length ? { ...r, steps: [...r.steps, ...fresh] } : r;
        }),
      ),
    addEval: (id, record) => set((s) => withRun(s, id, (r) => ({ ...r, evals: [...r.evals.filter((e) => e.step !== record.step), record].sort((a, b) => a.step - b.step) }))),
    truncateRun: (id, step) =>
      set((s) => withRun(s, id, (r) => ({ ...r, done: false, steps: r.steps.filter((x) => x.step <= step), evals: r.evals.filter((x) => x.step <= step) }))),
    patchRun: (id, patch) => set((s) => withRun(s, id, (r) => ({ ...r, ...patch }))),
    renameRun: (id, name) => set((s) => withRun(s, id, (r) => ({ ...r, name: name.trim() || r.name }))),
    deleteRun: (id) =>
      set((s) => {
        const runs = { ...s.runs };
        delete runs[id];
        return {
          runs,
          order: s.order.filter((x) => x !== id),
          overlay: s.overlay.filter((x) => x !== id),
          activeRunId: s.activeRunId === id ? null : s.activeRunId,
        };
      }),
    setActiveRun: (id) => set((s) => ({ activeRunId: id, overlay: s.overlay.filter((x) => x !== id) })),
    toggleOverlay: (id) => set((s) => ({ overlay: s.overlay.includes(id) ? s.overlay.filter((x) => x !== id) : [...s.overlay, id] })),
    setRunStages: (id, stages) => set((s) => withRun(s, id, (r) => ({ ...r, config: { ...r.config, stages } }))),

    // live
    runState: 'idle',
    liveRunId: null,
    step: 0,
    stage: 0,
    statusMessage: null,
    samples: [],
    samplesStep: null,
    setLiveState: (m) => set({ liveRunId: m.runId, runState: m.state, step: m.step, stage: m.stage, statusMessage: m.message ?? null }),
    inspector: emptyHistory(),
    // A batch may hold several steps' records: the newest step's are `samples`, all go to the inspector's history.
    setSamples: (runId, step, samples) => set((s) => ({ samples: samples.filter((x) => x.step === step), samplesStep: step, inspector: addSamples(s.inspector, runId, samples) })),

    // ui
    smoothing: 0.6,
    logScale: {},
    tokenColour: 'none',
    error: null,
    notice: null,
    noticeUndo: false,
    deviceLoss: null,
    storageWarning: null,
    storagePersisted: null,
    setSmoothing: (w) => set({ smoothing: Math.min(0.99, Math.max(0, w)) }),
    toggleLog: (id) => set((s) => ({ logScale: { ...s.logScale, [id]: !s.logScale[id] } })),
    setTokenColour: (tokenColour) => set({ tokenColour }),
    setError: (error) => set({ error }),
    setNotice: (notice, undo = false) => set({ notice, noticeUndo: notice !== null && undo }),
    setDeviceLoss: (deviceLoss) => set({ deviceLoss }),
    setStorageWarning: (storageWarning) => set({ storageWarning }),
    setStoragePersisted: (storagePersisted) => set({ storagePersisted }),

    // references
    referenceIndex: { status: 'loading' },
    referenceFiles: {},
    overlayReference: null,
    referenceSeeds: false,
    view: 'training',
    projector: false,
    selectedFinding: null,
    queue: null,
    bench: { status: 'idle' },
    setReferenceIndex: (referenceIndex) => set({ referenceIndex }),
    setReferenceFile: (name, st) => set((s) => ({ referenceFiles: { ...s.referenceFiles, [name]: st } })),
    setOverlayReference: (overlayReference) => set({ overlayReference }),
    toggleReferenceSeeds: () => set((s) => ({ referenceSeeds: !s.referenceSeeds })),
    setView: (view) => set({ view }),
    setProjector: (projector) => set({ projector }),
    selectFinding: (selectedFinding) => set({ selectedFinding }),
    setQueue: (queue) => set({ queue }),
    setBench: (bench) => set({ bench }),
  }));

/** The page's store. */
export const useLab = createLabStore();

/** Live runs (a Worker run in progress) accept no new Play; these states have one. */
export const isLive = (s: RunState) => s === 'starting' || s === 'running' || s === 'paused';
