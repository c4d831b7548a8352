// The layer rule of docs/architecture.md, checked over the TypeScript import graph of src/.
// Dependencies point down only (ui → worker → rl → model → gpu/cpu), tasks and util stay pure, side rooms
// (cli, sweep, verl, io) sit above rl and never below it, and no two files import each other in a cycle.
// `node scripts/layers.mjs` prints every violation and exits 1 when there is one; tests/architecture runs it too.
import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';

/** Which top-level rooms of src/ each room may import (besides itself). */
export const ALLOWED = {
  util: [],
  tasks: ['util'],
  gpu: ['util'],
  cpu: ['util'],
  model: ['gpu', 'cpu', 'tasks', 'util'],
  rl: ['model', 'tasks', 'util'],
  run: ['rl', 'model', 'gpu', 'cpu', 'tasks', 'util', 'io'],
  io: ['rl', 'model', 'tasks', 'util', 'verl'],
  verl: ['rl', 'model', 'tasks', 'util', 'io'],
  sweep: ['run', 'rl', 'model', 'tasks', 'util', 'io'],
  worker: ['rl', 'model', 'gpu', 'cpu', 'tasks', 'util', 'io'],
  ui: ['worker', 'rl', 'model', 'sweep', 'verl', 'tasks', 'util', 'io'],
  cli: ['run', 'rl', 'model', 'gpu', 'cpu', 'sweep', 'verl', 'tasks', 'util', 'io'],
};

/**
 * Finer rules inside the allowed rooms, each a reason a maintainer can read.
 * `from` and `to` match paths relative to src/ (a string is a prefix, a RegExp is tested).
 */
export const DENIED = [
  // gpu/faults.ts is pure typed errors (no WebGPU globals) that the interface re-exports for the layers that recover.
  { from: /^model\/engine(-[a-z-]+)?\.ts$/, to: /^(gpu\/(?!faults\.ts$)|cpu\/)/, why: 'the engine interface (model/engine*.ts) is engine-neutral: it imports neither engine' },
  { from: 'rl/', to: /^model\/(gpu-engine|cpu-engine|cpu-policy|cpu\/|hf-cpu\/|policy\.ts|step\.ts|generate\.ts)/, why: 'rl uses an engine only through the PolicyEngine interface (model/engine.ts) or, for real models, HfPolicyEngine (model/hf-policy.ts), never a concrete engine' },
  { from: 'ui/', to: /^model\/(?!config\.ts$|checkpoint\.ts$)/, why: 'the page reaches the device only through the Worker (worker/protocol.ts); of model it may read the config and checkpoint formats' },
];

const SOURCE = /\.(ts|tsx)$/;

/** Every .ts/.tsx file under root/src (without src/cpu/assembly, AssemblyScript built separately) → its text. */
export function readSources(root) {
  const src = path.join(root, 'src');
  const files = new Map();
  (function walk(dir) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) { if (path.relative(src, p) !== 'cpu/assembly') walk(p); }
      else if (SOURCE.test(e.name)) files.set(path.relative(src, p).split(path.sep).join('/'), fs.readFileSync(p, 'utf8'));
    }
  })(src);
  return files;
}

/** Resolves a relative specifier the way moduleResolution Bundler does for our files (ext, /index). */
function resolve(files, from, spec) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  if (base.startsWith('../')) return null; // outside src/ (shaders, public data): not a room of the table
  for (const c of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) if (files.has(c)) return c;
  return /\.[a-z]+(\?\w+)?$/.test(base) ? base : `${base}.ts`; // a file not (yet) there still names its room
}

/** The import graph: file → files it imports (value and type imports, re-exports, dynamic imports). */
export function importGraph(files) {
  const graph = new Map();
  for (const [file, text] of files) {
    const targets = new Set();
    for (const imp of ts.preProcessFile(text, true, true).importedFiles) {
      if (!imp.fileName.startsWith('.')) continue;
      const target = resolve(files, file, imp.fileName);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

const room = (file) => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(SOURCE, ''));
const matches = (pattern, file) => (typeof pattern === 'string' ? file.startsWith(pattern) : pattern.test(file));

/** Every wrong-way import and every import cycle, one line each; empty when the layers hold. */
export function layerViolations(files) {
  const graph = importGraph(files);
  const out = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = room(from), b = room(to);
      if (a !== b) {
        const allowed = ALLOWED[a];
        if (!allowed) out.push(`${from}: room '${a}' is not in the layer table (scripts/layers.mjs ALLOWED)`);
        else if (!allowed.includes(b)) out.push(`${from} → ${to}: '${a}' may not import '${b}' (allowed: ${allowed.join(', ') || 'nothing'})`);
      }
      for (const rule of DENIED) if (matches(rule.from, from) && matches(rule.to, to)) out.push(`${from} → ${to}: ${rule.why}`);
    }
  }
  for (const cycle of cycles(graph)) out.push(`import cycle: ${cycle.join(' → ')}`);
  return out;
}

/** Elementary cycles found by depth-first search (each reported once, from its smallest file). */
function cycles(graph) {
  const found = new Map();
  const state = new Map();
  const stack = [];
  const visit = (f) => {
    state.set(f, 1);
    stack.push(f);
    for (const t of graph.get(f) ?? []) {
      if (state.get(t) === 1) {
        const c = stack.slice(stack.indexOf(t));
        const i = c.indexOf([...c].sort()[0]);
        const norm = [...c.slice(i), ...c.slice(0, i)];
        found.set(norm.join('|'), [...norm, norm[0]]);
      } else if (!state.has(t)) visit(t);
    }
    stack.pop();
    state.set(f, 2);
  };
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f);
  return [...found.values()];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const v = layerViolations(readSources(process.argv[2] ?? process.cwd()));
  for (const line of v) console.log(line);
  console.log(v.length ? `${v.length} layer violation(s)` : 'layers hold: no wrong-way import, no cycle');
  process.exitCode = v.length ? 1 : 0;
}
