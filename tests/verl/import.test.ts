/**
 * Cluster runs into the lab (src/verl/import.ts, and its use by the page's run import):
 * fixtures written from verl's documented console format (aggregate_logger.concat_dict_to_str),
 * W&B / TensorBoard CSV exports and the lab's own metrics.jsonl.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STEP_METRIC_KEY_LIST } from '../../src/rl/metrics';
import { extraMetricKeys, chartSpecs } from '../../src/ui/lib/chartdata';
import { importRunFiles, parseRunFile, RunFileError, runToCsv, runToJsonl } from '../../src/io/runfile';
import { tagFromFileName } from '../../src/verl/csv-log';
import { detectVerlFormat, importVerlRun, VerlImportError, warningLines, warningText } from '../../src/verl/import';
import { isFractionKey, parseValue } from '../../src/verl/log-records';
import { fakeRun } from '../ui/helpers';

const FIX = join(__dirname, 'fixtures');
const fixture = (name: string) => ({ name, text: readFileSync(join(FIX, name), 'utf8') });
const one = (name: string, text: string, opts = {}) => importVerlRun([{ name, text }], opts);
const warnings = (r: { warnings: Parameters<typeof warningText>[0][] }) => r.warnings.map(warningText);

/** A console line as verl prints it: `step:N - key:value - …`, numbers with 3 decimals. */
const line = (step: number, kv: Record<string, number | string>) => [`step:${step}`, ...Object.entries(kv).map(([k, v]) => `${k}:${typeof v === 'number' ? v.toFixed(3) : v}`)].join(' - ');

describe('verl console log', () => {
  const r = importVerlRun([fixture('verl-console.txt')]);

  it('reads every step line among Ray prefixes, ANSI colours, progress bars and other output', () => {
    expect(r.formats).toEqual(['verl-console']);
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(r.steps.map((s) => s['actor/entropy'])).toEqual([0.612, 0.598, 0.571, 0.55, 0.531, 0.515]);
    expect(r.steps[2]['critic/score/mean']).toBe(0.312);
    // Every lab step key exists (NaN where verl has no such metric), so the run file is valid.
    for (const k of STEP_METRIC_KEY_LIST) expect(k in r.steps[0], k).toBe(true);
    expect(Number.isNaN(r.steps[0]['actor/entropy_coeff'])).toBe(true);
    expect(Number.isNaN(r.steps[0].stage)).toBe(true);
  });

  it('reports malformed step lines as file:line and skips them, nothing else', () => {
    expect(warnings(r)).toEqual(['verl-console.txt:22: "actor/entropy": not a number: "abc"', 'verl-console.txt:25: expected key:value, got "critic/score/me"']);
    // The skipped step-4 line's score (0.330) never lands: the good line's does.
    expect(r.steps[3]['critic/score/mean']).toBe(0.344);
  });

  it('keeps unknown keys, renames timing_s/step to perf/step_s and runs the clock on it', () => {
    expect(r.steps[0]['critic/advantages/mean' as never]).toBe(0);
    expect(r.steps[0]['perf/throughput' as never]).toBe(1523.118);
    expect(r.steps[0]['timing_s/gen' as never]).toBe(21.402);
    expect(r.steps[0]['perf/step_s']).toBe(30);
    expect('timing_s/step' in r.steps[0]).toBe(false);
    expect(r.steps.map((s) => s.time_ms)).toEqual([30000, 60000, 90000, 120000, 150000, 180000]);
  });

  it("maps val-core/…/acc/mean@N to val/avg@N/t<τ> with τ from verl's printed config; keeps the rest under verl's names", () => {
    expect(r.val).toEqual({ from: 'log', temperature: 0.6, n: 8 });
    expect(r.evals.map((e) => e.step)).toEqual([0, 3, 6]);
    expect(r.evals.map((e) => e['val/avg@8/t0.6'])).toEqual([0.21, 0.305, 0.352]);
    expect(r.evals[1]['val-core/countdown/acc/best@8/mean']).toBe(0.6);
    expect(r.evals[1]['val-aux/countdown/reward/mean@8']).toBe(0.305);
    expect('val-core/countdown/acc/mean@8' in r.evals[0]).toBe(false);
    expect(r.mappedEvalKeys).toEqual(['val/avg@8/t0.6']);
    expect(r.notes).toContain('val-core/countdown/acc/mean@8 → val/avg@8/t0.6');
    // Validation keys never land in step records.
    expect(Object.keys(r.steps[2]).some((k) => k.startsWith('val'))).toBe(false);
  });

  it('options override the log; an unknown temperature keeps verl names; Hydra overrides and do_sample=False are read', () => {
    const text = readFileSync(join(FIX, 'verl-console.txt'), 'utf8');
    expect(one('c.log', text, { val: { temperature: 1 } }).evals[0]['val/avg@8/t1.0']).toBe(0.21);
    const bare = [line(0, { 'val-core/gsm8k/acc/mean@4': 0.5 }), line(1, { 'actor/entropy': 0.4 })].join('\n');
    const unknown = one('b.log', bare);
    expect(unknown.evals[0]['val-core/gsm8k/acc/mean@4']).toBe(0.5);
    expect(unknown.notes.join('\n')).toMatch(/temperature unknown: val-core\/gsm8k\/acc\/mean@4 kept under verl's name/);
    const hydra = one('h.log', `+ python3 -m verl.trainer.main_ppo actor_rollout_ref.rollout.val_kwargs.temperature=0.7 x=1\n${bare}`);
    expect(hydra.evals[0]['val/avg@4/t0.7']).toBe(0.5);
    const greedy = one('g.log', `{'val_kwargs': {'do_sample': False, 'n': 1, 'temperature': 0}}\n${bare}`);
    expect(greedy.evals[0]['val/avg@4/t0.0']).toBe(0.5);
  });

  it('maps val/test_score/<source> only when τ and n are both known; several data sources stay under their names', () => {
    const text = [line(0, { 'val/test_score/gsm8k': 0.25 }), line(1, { 'actor/entropy': 0.4 })].join('\n');
    expect(one('t.log', text, { val: { temperature: 1 } }).evals[0]['val/test_score/gsm8k']).toBe(0.25);
    expect(one('t.log', text, { val: { temperature: 1, n: 4 } }).evals[0]['val/avg@4/t1.0']).toBe(0.25);
    const two = one('two.log', [line(0, { 'val-core/a/acc/mean@4': 0.1, 'val-core/b/acc/mean@4': 0.2 }), line(1, { 'actor/entropy': 0.4 })].join('\n'), { val: { temperature: 1 } });
    expect(two.evals[0]).toEqual({ step: 0, 'val-core/a/acc/mean@4': 0.1, 'val-core/b/acc/mean@4': 0.2 });
    expect(two.notes.join('\n')).toMatch(/one per data source/);
    // reward stands for accuracy only where the source has no acc (verl's own core-metric rule).
    const reward = one('r.log', [line(0, { 'val-core/a/reward/mean@2': 0.5 }), line(1, { 'actor/entropy': 0.4 })].join('\n'), { val: { temperature: 0.6 } });
    expect(reward.evals[0]['val/avg@2/t0.6']).toBe(0.5);
  });

  it('a step logged again (a resumed run) keeps the later values and says where the first was', () => {
    const text = [line(1, { 'actor/entropy': 0.5 }), line(2, { 'actor/entropy': 0.45 }), 'resumed', line(2, { 'actor/entropy': 0.44 }), line(3, { 'actor/entropy': 0.4 })].join('\n');
    const res = one('resume.log', text);
    expect(res.steps.map((s) => s['actor/entropy'])).toEqual([0.5, 0.44, 0.4]);
    expect(warnings(res)).toEqual(['resume.log:4: step 2 logged again (1 value first at resume.log:2); the later values are kept']);
  });

  it('steps out of order are sorted; nan / inf are missing points; bad steps are reported', () => {
    const text = [line(3, { a: 1 }), line(1, { a: 'nan' }), line(2, { a: 'inf' }), 'step:-1 - a:1.000', 'step:1.5 - a:1.000', 'step:x - a:1.000', 'step:4 - a:1.0 - b', 'Saving step:5'].join('\n');
    const res = one('o.log', text);
    expect(res.steps.map((s) => s.step)).toEqual([1, 2, 3]);
    expect(res.steps.map((s) => s['a' as never])).toEqual([NaN, NaN, 1]);
    expect(warnings(res)).toEqual([
      'o.log:4: step must be a non-negative integer, got -1',
      'o.log:5: step must be a non-negative integer, got "1.5"',
      'o.log:6: step must be a non-negative integer, got "x"',
      'o.log:7: expected key:value, got "b"',
      'o.log:8: no key:value pairs after step:5',
    ]);
  });
});

describe('CSV exports', () => {
  it('W&B: Step column, RUN - key columns, __MIN/__MAX ignored, quoted names, percent read as fractions, _runtime as the clock', () => {
    const r = importVerlRun([fixture('wandb.csv')]);
    expect(r.formats).toEqual(['wandb-csv']);
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 6]);
    expect(r.steps.map((s) => s['actor/entropy'])).toEqual([0.701, 0.688, 0.652, 0.6]);
    expect(r.steps[0]['custom/my, metric' as never]).toBe(7);
    expect(r.steps.map((s) => s.time_ms)).toEqual([35200, 70900, 106000, 211900]);
    expect(r.steps[0]['response_length/clip_ratio']).toBeCloseTo(0.031, 12);
    expect(r.evals.map((e) => e['val-core/gsm8k/acc/mean@4'])).toEqual([0.415, 0.5525, 0.61]);
    expect(r.notes).toContain('val-core/gsm8k/acc/mean@4: values up to 61 read as percent, divided by 100');
    expect(warnings(r)).toEqual(['wandb.csv:6: column "grpo-qwen-7 - actor/entropy": not a number: "oops"', 'wandb.csv:7: expected 9 cells, got 8']);
    expect(Object.keys(r.steps[0]).some((k) => k.includes('__M') || k.includes('_runtime'))).toBe(false);
    // With τ given, the percent series maps too.
    expect(importVerlRun([fixture('wandb.csv')], { val: { temperature: 1 } }).evals[2]['val/avg@4/t1.0']).toBe(0.61);
  });

  it('TensorBoard per-tag download: the tag from the file name (/ written as _), wall time from the first point', () => {
    const r = importVerlRun([fixture('run-grpo-qwen-7-tag-actor_entropy.csv')]);
    expect(r.formats).toEqual(['tensorboard-csv']);
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 5, 6]);
    expect(r.steps.map((s) => s['actor/entropy'])).toEqual([0.701, 0.688, 0.652, NaN, 0.6]);
    expect(r.steps[1].time_ms).toBeCloseTo(35200, 2);
    expect(warnings(r)).toEqual(['run-grpo-qwen-7-tag-actor_entropy.csv:5: step must be a non-negative integer, got "x"']);
    expect(tagFromFileName('run-x-tag-response_length_clip_ratio.csv')).toBe('response_length/clip_ratio');
    expect(tagFromFileName('dir/run-x-tag-my_own_tag.csv')).toBe('my_own_tag');
    expect(importVerlRun([{ name: 'entropy.csv', text: 'Wall time,Step,Value\n1,1,0.5\n' }], { tag: 'actor/entropy' }).steps[0]['actor/entropy']).toBe(0.5);
  });

  it('several TensorBoard tags merge by step into one run', () => {
    const clip = { name: 'run-grpo-qwen-7-tag-actor_pg_clipfrac.csv', text: 'Wall time,Step,Value\n1717236000.5,1,0.02\n1717236035.7,2,0.03\n' };
    const r = importVerlRun([fixture('run-grpo-qwen-7-tag-actor_entropy.csv'), clip]);
    expect(r.steps[0]['actor/pg_clipfrac']).toBe(0.02);
    expect(r.steps[0]['actor/entropy']).toBe(0.701);
    expect(r.steps.map((s) => s.step)).toEqual([1, 2, 3, 5, 6]);
  });

  it('long CSV (run, tag, step, value): the first run only, the others named in a warning', () => {
    const r = importVerlRun([fixture('long.csv')]);
    expect(r.formats).toEqual(['long-csv']);
    expect(r.steps.map((s) => [s.step, s['actor/entropy'], s['actor/pg_clipfrac']])).toEqual([
      [1, 0.5, 0.01],
      [2, 0.45, 0.02],
      [4, 0.35, NaN],
    ]);
    expect(r.evals).toEqual([{ step: 0, 'val-core/math/acc/mean@16': 0.3 }]);
    expect(warnings(r)).toEqual(['long.csv:8: expected 5 cells, got 4', 'long.csv: several runs in one file: imported run "a", ignored "b"']);
  });
});

describe("the lab's own metrics.jsonl", () => {
  it('reads step and eval records as they are, skipping a broken line', () => {
    const r = importVerlRun([fixture('metrics.jsonl')]);
    expect(r.formats).toEqual(['metrics-jsonl']);
    expect(r.steps.map((s) => [s.step, s.time_ms, s.stage])).toEqual([
      [1, 812, 0],
      [2, 1650, 1],
    ]);
    expect(Number.isNaN(r.steps[0]['actor/pg_clipfrac_lower'])).toBe(true);
    expect(r.evals.map((e) => e['val/avg@2/t1.0'])).toEqual([0.25, 0.375]);
    expect(warnings(r)).toEqual(['metrics.jsonl:4: not valid JSON']);
    expect(r.notes).toEqual([]);
  });

  it("accepts W&B's run history (_step, _runtime; its other _ keys ignored)", () => {
    const r = one('history.jsonl', '{"_step": 1, "_runtime": 30.5, "_timestamp": 1717236000, "_wandb": {"runtime": 30}, "actor/entropy": 0.5}\n{"_step": 2, "_runtime": 61, "actor/entropy": 0.45, "val-core/a/acc/mean@4": 0.25}\n');
    expect(r.steps.map((s) => [s.step, s.time_ms, s['actor/entropy']])).toEqual([
      [1, 30500, 0.5],
      [2, 61000, 0.45],
    ]);
    expect(r.evals).toEqual([{ step: 2, 'val-core/a/acc/mean@4': 0.25 }]);
    expect(Object.keys(r.steps[0]).some((k) => k.startsWith('_'))).toBe(false);
    expect(r.warnings).toEqual([]);
  });

  it('accepts {"step", "data": {…}} records and names non-numeric keys once', () => {
    const r = one('f.jsonl', '{"step": 1, "data": {"actor/entropy": 0.5, "note": "x"}}\n{"step": 2, "data": {"actor/entropy": 0.4, "note": "y"}}\n');
    expect(r.steps.map((s) => s['actor/entropy'])).toEqual([0.5, 0.4]);
    expect(r.notes).toEqual(['f.jsonl: "note" is not numeric (first at line 1); ignored']);
  });
});

describe('scale', () => {
  it('only fraction keys are rescaled, and only when every value fits 0–100', () => {
    expect(['val/avg@8/t1.0', 'val-core/x/acc/mean@4', 'val-core/x/acc/best@4/mean', 'response_length/clip_ratio', 'actor/pg_clipfrac', 'eval/accuracy', 'val/response_length/clip_ratio/t1.0'].every(isFractionKey)).toBe(true);
    expect(['critic/score/mean', 'response_length/mean', 'val-core/x/acc/std@4', 'batch/solve_none', 'actor/entropy'].some(isFractionKey)).toBe(false);
    const text = [line(1, { 'critic/score/mean': 55, 'eval/accuracy': 45, 'actor/pg_clipfrac': 250 }), line(2, { 'critic/score/mean': 60, 'eval/accuracy': 50.5, 'actor/pg_clipfrac': 3 })].join('\n');
    const r = one('s.log', text);
    expect(r.steps.map((s) => s['critic/score/mean'])).toEqual([55, 60]);
    expect(r.steps.map((s) => s['eval/accuracy' as never])).toEqual([0.45, 0.505]);
    expect(r.steps.map((s) => s['actor/pg_clipfrac'])).toEqual([250, 3]);
    expect(r.notes).toEqual(['eval/accuracy: values up to 50.5 read as percent, divided by 100', 'actor/pg_clipfrac: values from 3 to 250 are neither fractions nor percent; kept unscaled']);
  });

  it('a validation series outside [0, 1] and 0–100 is not mapped to a lab accuracy', () => {
    const r = one('v.log', [line(0, { 'val-core/a/acc/mean@4': 250 }), line(1, { 'actor/entropy': 1 })].join('\n'), { val: { temperature: 1 } });
    expect(r.evals[0]).toEqual({ step: 0, 'val-core/a/acc/mean@4': 250 });
    expect(r.mappedEvalKeys).toEqual([]);
  });
});

describe('hostile input', () => {
  it('huge numbers, NaN and overflow stay numbers (or missing points), never strings', () => {
    expect(parseValue('1e308')).toBe(1e308);
    expect(parseValue('1e999')).toBeNaN();
    expect(parseValue('-inf')).toBeNaN();
    expect(parseValue('NaN')).toBeNaN();
    expect(parseValue('0x10')).toBeNull();
    expect(parseValue('1,5')).toBeNull();
    expect(parseValue('')).toBeNull();
    const r = one('h.log', [line(1, { 'actor/entropy': '1e308', 'actor/grad_norm': '1e999' }), line(99999999, { 'actor/entropy': 1 }), 'step:99999999999999999999 - a:1.000'].join('\n'));
    expect(r.steps[0]['actor/entropy']).toBe(1e308);
    expect(r.steps[0]['actor/grad_norm']).toBeNaN();
    expect(r.steps.map((s) => s.step)).toEqual([1, 99999999]);
    expect(warnings(r)).toEqual(['h.log:3: step 99999999999999999999 is too large']);
  });

  it('keys named __proto__ / constructor / prototype are refused with file:line; no prototype is touched', () => {
    const text = [line(1, { __proto__x: 1, 'actor/entropy': 0.5 }), 'step:2 - __proto__:1.000 - actor/entropy:0.4', 'step:3 - constructor:1.000', line(4, { 'actor/entropy': 0.3 })].join('\n');
    const r = one('p.log', text);
    expect(r.steps.map((s) => s.step)).toEqual([1, 4]);
    expect(warnings(r)).toEqual(['p.log:2: key "__proto__" is not allowed', 'p.log:3: key "constructor" is not allowed']);
    expect(Object.getPrototypeOf(r.steps[0])).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const j = one('p.jsonl', '{"step":1,"__proto__":{"polluted":1},"constructor":2,"actor/entropy":0.5}\n');
    expect(j.steps[0]['actor/entropy']).toBe(0.5);
    expect(Object.keys(j.steps[0])).not.toContain('constructor');
    expect(warnings(j)).toEqual(['p.jsonl:1: key "__proto__" is not allowed; key skipped', 'p.jsonl:1: key "constructor" is not allowed; key skipped']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // W&B column named __proto__.
    const c = one('p.csv', 'Step,__proto__,constructor,actor/entropy\n1,1,2,0.5\n');
    expect(c.steps[0]['actor/entropy']).toBe(0.5);
    expect(warnings(c)).toEqual(['p.csv:1: column 3: key "constructor" is not allowed; column skipped']);
  });

  it('a metric named step or time_ms cannot move a record', () => {
    const r = one('s.log', ['step:1 - actor/entropy:0.5 - step:7.000', 'step:2 - actor/entropy:0.4 - time_ms:1.000', line(3, { 'actor/entropy': 0.3 })].join('\n'));
    expect(r.steps.map((s) => [s.step, s.time_ms])).toEqual([[3, NaN]]);
    expect(warnings(r)).toEqual(['s.log:1: key "step" is reserved for the record itself', 's.log:2: key "time_ms" is reserved for the record itself']);
  });

  it('markup in keys stays a plain string; control characters and over-long keys are refused', () => {
    const r = one('x.log', [line(1, { '<img src=x onerror=alert(1)>': 1 }), `step:2 - ${'k'.repeat(300)}:1.000`, 'step:3 - a\u0007b:1.000'].join('\n'));
    expect(r.steps[0]['<img src=x onerror=alert(1)>' as never]).toBe(1);
    expect(warnings(r)).toEqual(['x.log:2: key longer than 200 characters', 'x.log:3: key "a\\u0007b" has control characters']);
  });
});

describe('files with nothing to import', () => {
  it('one clear error naming the file', () => {
    expect(() => one('empty.log', '')).toThrow(VerlImportError);
    expect(() => one('empty.log', '')).toThrow(/^empty\.log: not a run file/);
    expect(() => one('noise.log', 'hello\nworld\n')).toThrow(/^noise\.log: not a run file/);
    expect(() => one('bad.log', 'step:1 - a:x\nstep:2 - b:y\n')).toThrow(/^bad\.log: no usable records \(verl console log; 2 malformed lines skipped, first: bad\.log:1: "a": not a number: "x"\)$/);
    expect(() => one('h.csv', 'Step,actor/entropy\n')).toThrow(/^h\.csv: no usable records/);
    expect(() => one('j.jsonl', '{"nope": 1}\n')).toThrow(/^j\.jsonl: no usable records/);
  });

  it('detects formats by content', () => {
    expect(detectVerlFormat(readFileSync(join(FIX, 'verl-console.txt'), 'utf8'), 'x.txt')).toBe('verl-console');
    expect(detectVerlFormat("{'actor_rollout_ref': {}}\n" + line(1, { a: 1 }), 'x.log')).toBe('verl-console');
    expect(detectVerlFormat('{"step":1}', 'x')).toBe('metrics-jsonl');
    expect(detectVerlFormat('Wall time,Step,Value\n', 'a.csv')).toBe('tensorboard-csv');
    expect(detectVerlFormat('_step,actor/entropy\n', 'a')).toBe('wandb-csv');
    expect(detectVerlFormat('Step,Tag,Value\n', 'a.csv')).toBe('long-csv');
    expect(detectVerlFormat('global_step:4 saved\n', 'a.log')).toBeNull();
  });

  it('warning lines: at most N, then a count', () => {
    const ws = Array.from({ length: 5 }, (_, i) => ({ file: 'f', line: i + 1, reason: 'bad' }));
    expect(warningLines(ws, 2)).toEqual(['f:1: bad', 'f:2: bad', '… and 3 more warnings']);
    expect(warningLines(ws, 10)).toHaveLength(5);
  });
});

describe("the page's run import", () => {
  it('a verl log becomes a run that round-trips through the run file, config aligned with its mapped evals', () => {
    const imp = importRunFiles([fixture('verl-console.txt')]);
    expect(imp.format).toBe('verl console log');
    expect(imp.warnings).toHaveLength(2);
    const run = imp.run;
    expect(run.name).toBe('verl-console (verl console log)');
    expect(run.preset).toBe('imported');
    expect(run.config.eval.k).toBe(8);
    expect(run.config.eval.temperatures).toEqual([0.6]);
    expect(run.note).toMatch(/config is not in the file/);
    const back = parseRunFile(runToJsonl(run), 'back.jsonl');
    expect(back.steps).toEqual(run.steps);
    expect(back.evals).toEqual(run.evals);
    expect(back.note).toBe(run.note);
    // CSV keeps its fixed columns; rows without a clock still count as steps.
    const noClock = importRunFiles([{ name: 'n.log', text: line(1, { 'actor/entropy': 0.5 }) }]).run;
    expect(Number.isNaN(noClock.steps[0].time_ms)).toBe(true);
    expect(parseRunFile(runToCsv(noClock), 'n.csv').steps.map((s) => s['actor/entropy'])).toEqual([0.5]);
  });

  it("the lab's own exports still import as before, and are not merged with logs", () => {
    const run = fakeRun('a', 3);
    expect(importRunFiles([{ name: 'a.jsonl', text: runToJsonl(run) }]).format).toBe('MAGIC Lab run file');
    expect(parseRunFile(runToCsv(run), 'a.csv').steps).toHaveLength(3);
    expect(() => importRunFiles([{ name: 'a.jsonl', text: runToJsonl(run) }, fixture('verl-console.txt')])).toThrow(/^a\.jsonl: a MAGIC Lab run file is imported on its own/);
    expect(() => parseRunFile('hello', 'notes.txt')).toThrow(RunFileError);
  });

  it('an imported run with unknown keys offers them in the "More metrics" chart; lab runs alone do not', () => {
    const lab = fakeRun('a', 3);
    const specs = chartSpecs(lab.config);
    expect(extraMetricKeys([lab], specs)).toEqual([]);
    const verl = importRunFiles([fixture('verl-console.txt')]).run;
    const extra = extraMetricKeys([lab, verl], specs);
    expect(extra).toContainEqual({ key: 'perf/throughput', source: 'step' });
    expect(extra).toContainEqual({ key: 'val-core/countdown/acc/best@8/mean', source: 'eval' });
    // The lab's own undrawn keys are offered too once the chart is there; drawn ones are not.
    expect(extra).toContainEqual({ key: 'actor/pg_loss', source: 'step' });
    expect(extra.some((k) => k.key === 'actor/entropy')).toBe(false);
    const sources = extra.map((k) => k.source).join(',');
    expect(sources).toMatch(/^(step,)+eval(,eval)*$/);
  });
});
