/**
 * The merged points of an import, by step, in columns: one Float64Array per key (train and
 * validation side), so a million rows cost a few bytes each instead of a Map per row. Merging
 * follows src/verl/import.ts's rules: a later value of a key at a step overrides the earlier one
 * (and is reported once per line); a record's keys keep the order they were first logged in at
 * that step (each step's key order is an interned list of key ids, `Sig`, shared by all steps
 * logged alike), so the written record is the same as a Map per step would give.
 */
import { isValKey, MAX_KEYS, type ImportWarning, type RawLine } from './log-records';

/** One key's values and where each came from (the source's file index + 1, 0 for none, and line). */
interface Column {
  key: string;
  train: Float64Array;
  val: Float64Array | null;
  srcFile: Uint32Array;
  srcLine: Float64Array;
}

export class StepTable {
  /** Keys in the order first seen (the import's allKeys). */
  readonly keyIds = new Map<string, number>();
  readonly cols: Column[] = [];
  /** Per slot: its step, clock (NaN: none) and the key-order lists of its train and val sides. */
  steps = new Float64Array(1024);
  runtimeS = new Float64Array(1024);
  wallS = new Float64Array(1024);
  trainSig = new Uint32Array(1024);
  valSig = new Uint32Array(1024);
  size = 0;
  /** Interned key-id lists: sigKeys[s] in order, sigHas[s] as a set; 0 is the empty list. */
  readonly sigKeys: number[][] = [[]];
  private readonly sigHas: Set<number>[] = [new Set()];
  private readonly sigNext = new Map<string, number>();
  private readonly slotOf = new Map<number, number>();
  droppedKeys = 0;
  readonly warnings: ImportWarning[] = [];

  constructor(private readonly files: string[]) {}

  private grow() {
    const cap = this.steps.length * 2;
    const more = <T extends Float64Array | Uint32Array>(a: T, fill?: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap);
      b.set(a);
      if (fill !== undefined) b.fill(fill, a.length);
      return b;
    };
    this.steps = more(this.steps);
    this.runtimeS = more(this.runtimeS, NaN);
    this.wallS = more(this.wallS, NaN);
    this.trainSig = more(this.trainSig);
    this.valSig = more(this.valSig);
    for (const c of this.cols) {
      c.train = more(c.train);
      if (c.val) c.val = more(c.val);
      c.srcFile = more(c.srcFile);
      c.srcLine = more(c.srcLine);
    }
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

  private slot(step: number): number {
    let s = this.find(step);
    if (s === undefined) {
      if (this.size === 0) {
        this.runtimeS.fill(NaN);
        this.wallS.fill(NaN);
      }
      if (this.size === this.steps.length) this.grow();
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

  /** Merges one raw point from file number `fileIdx` (an index into the files named at construction). */
  add(l: RawLine, fileIdx: number) {
    const s = this.slot(l.step);
    let overwritten = 0;
    let firstFrom = '';
    for (const [k, v] of l.values) {
      let id = this.keyIds.get(k);
      if (id === undefined) {
        if (this.keyIds.size >= MAX_KEYS) {
          this.droppedKeys++;
          continue;
        }
        id = this.cols.length;
        this.keyIds.set(k, id);
        const n = this.steps.length;
        this.cols.push({ key: k, train: new Float64Array(n), val: null, srcFile: new Uint32Array(n), srcLine: new Float64Array(n) });
      }
      const c = this.cols[id];
      const toVal = l.kind === 'eval' || (l.kind === 'auto' && isValKey(k));
      const sigs = toVal ? this.valSig : this.trainSig;
      // Present on this side means a source is recorded (the source is per key, either side).
      if (this.sigHas[sigs[s]].has(id)) {
        overwritten++;
        firstFrom ||= `${this.files[c.srcFile[s] - 1]}:${c.srcLine[s]}`;
      } else sigs[s] = this.extend(sigs[s], id);
      if (toVal) (c.val ??= new Float64Array(this.steps.length))[s] = v;
      else c.train[s] = v;
      c.srcFile[s] = fileIdx + 1;
      c.srcLine[s] = l.line;
    }
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
    return side === 'train' ? this.cols[id].train[slot] : this.cols[id].val![slot];
  }
}
