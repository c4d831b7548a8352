/**
 * The resource check in Node (src/rl/resources.ts): this process's limits — half of V8's heap
 * limit (node --max-old-space-size raises it), half of the machine's memory (os.totalmem), the
 * largest file readFileSync reads back — and the open engine's.
 */
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { Backend, BackendChoice } from '../model/engine';
import { formatBytes } from '../model/resources';
import type { RunConfig } from '../rl/config';
import { checkEvalResources, checkRunResources, engineLimitsOf, HEAP_FRACTION, MEMORY_FRACTION, NODE_MAX_FILE, ResourceError, V8_MAX_STRING, type HostLimits } from '../rl/resources';
import type { SweepOptions } from '../sweep/runner';
import { acquireBackend } from './backend';

export function nodeHostLimits(): HostLimits {
  const heap = getHeapStatistics().heap_size_limit;
  const mem = totalmem();
  return {
    heapBytes: heap * HEAP_FRACTION,
    heapSource: `half of V8's heap limit ${formatBytes(heap)}; node --max-old-space-size=MB raises it`,
    memoryBytes: mem * MEMORY_FRACTION,
    memorySource: `half of this machine's ${formatBytes(mem)}`,
    fileBytes: NODE_MAX_FILE,
    stringChars: V8_MAX_STRING,
  };
}

/**
 * Refuses (ResourceError, exit 2) a run that does not fit this process: without `backend` the data
 * and the JS side only (before an engine opens), with it everything, the engine's limits included.
 */
export function checkRunFits(config: RunConfig, backend: Backend | null = null): void {
  checkRunResources(config, { host: nodeHostLimits(), engine: backend ? engineLimitsOf(backend) : null }, { engineKnown: backend !== null });
}

/**
 * A sweep's runs (and their precise evaluations, 128 sequences a batch as `eval`), checked before
 * it writes anything: the data and JS side of each distinct config, then the engine train would
 * open (`--backend`, default auto), opened once and closed again.
 */
export async function checkSweepFits(runs: { preset: string; config: RunConfig }[], o: Pick<SweepOptions, 'backend' | 'threads' | 'evalProblems' | 'evalK'>): Promise<void> {
  // The seed changes no size: one check per preset or variant.
  const distinct = new Map<string, { preset: string; config: RunConfig }>();
  for (const r of runs) distinct.set(JSON.stringify({ ...r.config, seed: 0 }), r);
  const evalOpts = { problems: o.evalProblems, k: o.evalK, batch: 128 };
  const each = (check: (c: RunConfig) => void) => {
    for (const { preset, config } of distinct.values()) {
      try {
        check(config);
      } catch (e) {
        // Several presets share a sweep: say whose config it is; eval's --k is the sweep's --eval-k.
        if (e instanceof ResourceError) throw new ResourceError(e.field === '--k' ? '--eval-k' : e.field, `${e.message.slice(e.field.length + 2)} (run ${preset})`);
        throw e;
      }
    }
  };
  each((c) => {
    checkRunFits(c);
    checkEvalResources(c, evalOpts, { host: nodeHostLimits() });
  });
  const backend = await acquireBackend((o.backend ?? 'auto') as BackendChoice, { threads: o.threads ?? undefined });
  try {
    each((c) => {
      checkRunFits(c, backend);
      checkEvalResources(c, evalOpts, { host: nodeHostLimits(), engine: engineLimitsOf(backend) });
    });
  } finally {
    backend.destroy();
  }
}
