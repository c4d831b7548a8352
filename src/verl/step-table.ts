/**
 * The merged points of an import, by step, in columns. Memory is bounded by design: a key's values
 * are the only thing kept per (key, step) cell — 8 bytes, in chunks of CHUNK steps allocated when a
 * value lands in them — and everything else is per step (STEP_BYTES at most, arrays grown by
 * doubling) or per logged record (RECORD_BYTES): where a value came from is found through the
 * step's list of records, not stored per cell. With `maxBytes` the table refuses (VerlImportError)
 * to grow past it instead of growing until the process dies.
 *
 * Merging follows src/verl/import.ts's rules: a later value of a key at a step overrides the earlier
 * one (and is reported once per line, naming the line the first value came from); a record's keys
 * keep the order they were first logged in at that step (each step's key order is an interned list
 * of key ids, `Sig`, shared by all steps logged alike), so the written record is the same as a Map
 * per step would give.
 */
import { isValKey, MAX_KEYS, VerlImportError, type ImportWarning, type RawLine } from './log-records';

/** Steps per value chunk (512 KiB of float64). */
export const CHUNK = 1 << 16;
/** Bytes a step slot takes at most: step, two clocks, two sigs, two record heads (×2 for doubling) and its place in the sorted order. */
export const STEP_BYTES = 2 * (8 + 8 + 8 + 4 + 4 + 4 + 4) + 4;
/** Bytes a logged record (one line, one side) takes at most: its source file, line, key list and the step's previous record (×2 for doubling). */
export const RECORD_BYTES = 2 * (4 + 8 + 4 + 4);

/** One key's values: train and validation side, each in chunks of CHUNK steps (absent: nothing logged there). */
interface Column {
  key: string;
  train: (Float64Array | undefined)[];
  val: (Float64Array | undefined)[];
}

function grown<T extends Float64Array | Uint32Array>(a: T, cap: number, fill?: number): T {
  const b = new (a.constructor as new (n: number) => T)(cap);
  b.set(a);
  if (fill !== undefined) b.fill(fill, a.length);
  return b;
}

export class StepTable {
  /** Keys in the order first seen (the import's allKeys). */
  readonly keyIds = new Map<string, number>();
  readonly cols: Column[] = [];
  /** Per slot: its step, clock (NaN: none) and the key-order lists of its train and val sides. */
  steps = new Float64Array(1024);
  runtimeS = new Float64Array(1024).fill(NaN);
  wallS = new Float64Array(1024).fill(NaN);
  trainSig = new Uint32Array(1024);
  valSig = new Uint32Array(1024);
  /** Per slot and side: the newest record (1-based; 0: none) that wrote to it. */
  private trainHead = new Uint32Array(1024);
  private valHead = new Uint32Array(1024);
  size = 0;
  /** Records (one per line and side it wrote to), 1-based: source file index, line, the keys it wrote, the slot's previous record on that side. */
  private recFile = new Uint32Array(1024);
  private recLine = new Float64Array(1024);
  private recSig = new Uint32Array(1024);
  private recPrev = new Uint32Array(1024);
  private records = 0;
  /** Interned key-id lists: sigKeys[s] in order, sigHas[s] as a set; 0 is the empty list. */
  readonly sigKeys: number[][] = [[]];
  private readonly sigHas: Set<number>[] = [new Set()];
  private readonly sigNext = new Map<string, number>();
  private readonly slotOf = new Map<number, number>();
  /** Value chunks allocated so far. */
  private chunks = 0;
  droppedKeys = 0;
  readonly warnings: ImportWarning[] = [];

  /** `maxBytes`: the most the table may hold (values, steps and records); past it add() throws a VerlImportError naming the file. */
  constructor(
    private readonly files: string[],
    private readonly maxBytes = Infinity,
  ) {}

  /** What the table holds now, in bytes (its typed arrays and value chunks). */
  bytes(): number {
    return this.chunks * CHUNK * 8 + this.steps.length * (STEP_BYTES - 4) / 2 + this.recFile.length * RECORD_BYTES / 2;
  }

  private check(file: string, more: number) {
    if (this.bytes() + more <= this.maxBytes) return;
    const mib = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
    throw new VerlImportError(
      file,
      `the import would hold more than ${mib(this.maxBytes)} (${this.cols.length} columns × ${this.size} steps so far: 8 bytes a value, ${STEP_BYTES} a step, ${RECORD_BYTES} a record); import fewer keys or files at once`,
    );
  }

  private growSlots(file: string) {
    const cap = this.steps.length * 2;
    this.check(file, (cap - this.steps.length) * (STEP_BYTES - 4) / 2);
    this.steps = grown(this.steps, cap);
    this.runtimeS = grown(this.runtimeS, cap, NaN);
    this.wallS = grown(this.wallS, cap, NaN);
    this.trainSig = grown(this.trainSig, cap);
    this.valSig = grown(this.valSig, cap);
    this.trainHead = grown(this.trainHead, cap);
    this.valHead = grown(this.valHead, cap);
  }

  private record(file: string, fileIdx: number, line: number, sig: number, prev: number): number {
    const r = ++this.records;
    if (r === this.recFile.length) {
      const cap = this.recFile.length * 2;
      this.check(file, (cap - this.recFile.length) * RECORD_BYTES / 2);
      this.recFile = grown(this.recFile, cap);
      this.recLine = grown(this.recLine, cap);
      this.recSig = grown(this.recSig, cap);
      this.recPrev = grown(this.recPrev, cap);
    }
    this.recFile[r] = fileIdx;
    this.recLine[r] = line;
    this.recSig[r] = sig;
    this.recPrev[r] = prev;
    return r;
  }

  /** While steps arrive in increasing order (the usual log) slots are found by binary search; the Map is built only once they do not. */
  private sorted = true;

  private find(step: number): number | undefined {
    if (!this.sorted) return this.slotOf.get(step);
    let lo = 0;
    let hi = this.size - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.steps[mid];
      if (v === step) return mid;
      if (v < step) lo = mid + 1;
      else hi = mid - 1;
    }
    return undefined;
  }

  private slot(step: number, file: string): number {
    let s = this.find(step);
    if (s === undefined) {
      if (this.size === this.steps.length) this.growSlots(file);
      if (this.sorted && this.size > 0 && step < this.steps[this.size - 1]) {
        this.sorted = false;
        for (let i = 0; i < this.size; i++) this.slotOf.set(this.steps[i], i);
      }
      s = this.size++;
      if (!this.sorted) this.slotOf.set(step, s);
      this.steps[s] = step;
    }
    return s;
  }

  private extend(sig: number, id: number): number {
    const k = `${sig},${id}`;
    let next = this.sigNext.get(k);
    if (next === undefined) {
      next = this.sigKeys.length;
      this.sigKeys.push([...this.sigKeys[sig], id]);
      this.sigHas.push(new Set([...this.sigHas[sig], id]));
      this.sigNext.set(k, next);
    }
    return next;
  }

  has(sig: number, id: number): boolean {
    return this.sigHas[sig].has(id);
  }

  /** The chunk a value at `slot` goes into, allocated (and counted against maxBytes) when it is the first there. */
  private chunkFor(chunks: (Float64Array | undefined)[], slot: number, file: string): Float64Array {
    const i = slot >>> 16;
    let c = chunks[i];
    if (c === undefined) {
      this.check(file, CHUNK * 8);
      c = chunks[i] = new Float64Array(CHUNK);
      this.chunks++;
    }
    return c;
  }

  /** Where the value of key `id` at `slot` on one side came from: the newest record of that slot and side that wrote the key. */
  private sourceOf(head: number, id: number): string {
    for (let r = head; r !== 0; r = this.recPrev[r]) if (this.sigHas[this.recSig[r]].has(id)) return `${this.files[this.recFile[r]]}:${this.recLine[r]}`;
    return '?';
  }

  /** Merges one raw point from file number `fileIdx` (an index into the files named at construction). */
  add(l: RawLine, fileIdx: number) {
    const s = this.slot(l.step, l.file);
    let overwritten = 0;
    let firstFrom = '';
    // The keys this line writes, per side, in its order (interned like a step's key order).
    let lineTrain = 0;
    let lineVal = 0;
    for (const [k, v] of l.values) {
      let id = this.keyIds.get(k);
      if (id === undefined) {
        if (this.keyIds.size >= MAX_KEYS) {
          this.droppedKeys++;
          continue;
        }
        id = this.cols.length;
        this.keyIds.set(k, id);
        this.cols.push({ key: k, train: [], val: [] });
      }
      const c = this.cols[id];
      const toVal = l.kind === 'eval' || (l.kind === 'auto' && isValKey(k));
      const sigs = toVal ? this.valSig : this.trainSig;
      if (this.sigHas[sigs[s]].has(id)) {
        overwritten++;
        firstFrom ||= this.sourceOf(toVal ? this.valHead[s] : this.trainHead[s], id);
      } else sigs[s] = this.extend(sigs[s], id);
      this.chunkFor(toVal ? c.val : c.train, s, l.file)[s & (CHUNK - 1)] = v;
      if (toVal) lineVal = this.sigHas[lineVal].has(id) ? lineVal : this.extend(lineVal, id);
      else lineTrain = this.sigHas[lineTrain].has(id) ? lineTrain : this.extend(lineTrain, id);
    }
    if (lineTrain !== 0) this.trainHead[s] = this.record(l.file, fileIdx, l.line, lineTrain, this.trainHead[s]);
    if (lineVal !== 0) this.valHead[s] = this.record(l.file, fileIdx, l.line, lineVal, this.valHead[s]);
    if (overwritten) this.warnings.push({ file: l.file, line: l.line, reason: `step ${l.step} logged again (${overwritten} value${overwritten > 1 ? 's' : ''} first at ${firstFrom}); the later values are kept` });
    if (l.runtimeS !== undefined) this.runtimeS[s] = l.runtimeS;
    if (l.wallS !== undefined && !(l.wallS >= this.wallS[s])) this.wallS[s] = l.wallS;
  }

  /** Slots in step order. */
  order(): Uint32Array {
    const o = new Uint32Array(this.size);
    let sorted = true;
    for (let i = 0; i < this.size; i++) {
      o[i] = i;
      if (i > 0 && this.steps[i] < this.steps[i - 1]) sorted = false;
    }
    return sorted ? o : o.sort((a, b) => this.steps[a] - this.steps[b]);
  }

  /** A key's value at a slot on one side, or undefined when that side does not have it. */
  get(id: number, slot: number, side: 'train' | 'val'): number | undefined {
    const sig = side === 'train' ? this.trainSig[slot] : this.valSig[slot];
    if (!this.sigHas[sig].has(id)) return undefined;
    return this.cols[id][side][slot >>> 16]![slot & (CHUNK - 1)];
  }

  /** Divides a key's values (both sides) by `by`, in place. */
  scale(id: number, by: number) {
    for (const chunks of [this.cols[id].train, this.cols[id].val]) for (const c of chunks) if (c) for (let i = 0; i < c.length; i++) c[i] /= by;
  }
}
