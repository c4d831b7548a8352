/**
 * Which WebGPU matmul variant a new run uses: the fastest on this adapter, timed on the train step's
 * shapes and cached per adapter and kernel version. The variants sum in different orders, so the
 * choice is made once per run and recorded in its checkpoint (src/rl/run-checkpoint.ts); a resumed
 * run builds with the recorded one, never a new timing. The cache's storage is injected: a JSON file
 * in Node (src/run/variant-cache.ts), IndexedDB in the page's Worker (src/worker/variant-cache.ts).
 */
import { MATMUL_SHADER, MATMUL_VARIANTS, timeMatmulVariants, type MatmulShape, type MatmulVariant } from '../gpu/kernels/matmul';
import type { AdapterSummary, GpuRuntime } from '../gpu/runtime';
import type { ModelConfig } from './config';
import { trainMatmulShapes } from './policy';

/** Where chosen variants are kept between sessions: key → variant name (anything else read back is a miss). */
export interface VariantCache {
  get(key: string): Promise<string | undefined> | string | undefined;
  put(key: string, variant: MatmulVariant): Promise<void> | void;
}

/** What a backend uses when no variant is given: a fixed one, or `auto` (timed, cached). */
export type MatmulVariantChoice = MatmulVariant | 'auto';
export const MATMUL_VARIANT_CHOICES: readonly MatmulVariantChoice[] = ['auto', ...MATMUL_VARIANTS];

/** The rule before variants were timed (and for checkpoints that predate the record): software → blocked4x4, else tiled64. */
export const variantByAdapterKind = (adapter: { isSoftware: boolean }): MatmulVariant => (adapter.isSoftware ? 'blocked4x4' : 'tiled64');

export const isMatmulVariant = (v: unknown): v is MatmulVariant => typeof v === 'string' && (MATMUL_VARIANTS as readonly string[]).includes(v);

/** FNV-1a (32-bit) of a string's UTF-16 code units, 8 hex digits: a kernel version, not a checksum against tampering. */
export function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16).padStart(8, '0');
}

/** The cache key: the adapter (vendor / architecture / device / description) and the matmul shader's hash, so a changed shader re-times. */
export function variantCacheKey(adapter: Pick<AdapterSummary, 'description'>, shaderText: string): string {
  return `${adapter.description} | ${MATMUL_SHADER} fnv1a:${fnv1a(shaderText)}`;
}

/** The fastest variant by total milliseconds; a tie (or a non-finite time) keeps the earlier in MATMUL_VARIANTS. */
export function fastestVariant(ms: Record<MatmulVariant, number>): MatmulVariant {
  let best = MATMUL_VARIANTS[0];
  for (const v of MATMUL_VARIANTS) if (Number.isFinite(ms[v]) && !(ms[best] <= ms[v])) best = v;
  return best;
}

/**
 * Rows of the timed shapes: the train step's micro-batch (16 sequences) where its matmuls fit the
 * FLOP budget, else the largest power of two that does (at least 16). SwiftShader runs ~0.3–1 GFLOP/s
 * and pays per workgroup even on narrow models, so it also stops at 256 rows: about half a second
 * (BENCHMARKS.md); a hardware GPU times the real size.
 */
export function timingRows(cfg: ModelConfig, software: boolean): number {
  const budget = software ? 3e7 : 2e9;
  const perRow = trainMatmulShapes(cfg, 1).reduce((s, x) => s + 2 * x.M * x.N * x.K, 0); // every shape is linear in rows
  let rows = software ? Math.min(256, 16 * cfg.contextLength) : 16 * cfg.contextLength;
  while (rows > 16 && perRow * rows > budget) rows >>= 1;
  return rows;
}

export interface VariantTiming {
  variant: MatmulVariant;
  /** given: the backend's fixed --matmul-variant. */
  from: 'cache' | 'timing' | 'given';
  /** Total milliseconds per variant over the timed shapes (from: 'timing' only). */
  ms?: Record<MatmulVariant, number>;
}

/** Times the variants at `shapes`; a test double replaces it. */
export type VariantTimer = (rt: GpuRuntime, shapes: MatmulShape[], repeats: number) => Promise<Record<MatmulVariant, number>>;

/**
 * The variant for a new run on `rt`: the cached one for this adapter and kernel version, else the
 * fastest by timing at cfg's train-step shapes (then cached). A cache that fails to read or write
 * costs a re-timing, never the run.
 */
export async function chooseVariantByTiming(rt: GpuRuntime, cfg: ModelConfig, cache: VariantCache | null, time: VariantTimer = timeMatmulVariants): Promise<VariantTiming> {
  const key = variantCacheKey(rt.adapter, rt.shaderText(MATMUL_SHADER));
  let hit: unknown;
  try {
    hit = await cache?.get(key);
  } catch {
    hit = undefined;
  }
  if (isMatmulVariant(hit)) return { variant: hit, from: 'cache' };
  const shapes = trainMatmulShapes(cfg, timingRows(cfg, rt.adapter.isSoftware));
  const ms = await time(rt, shapes, rt.adapter.isSoftware ? 2 : 3);
  const variant = fastestVariant(ms);
  try {
    await cache?.put(key, variant);
  } catch {
    // an unwritable cache only means the next session times again
  }
  return { variant, from: 'timing', ms };
}
