/**
 * reward.py (run with the system python3) against the lab's TypeScript verifiers: every problem of
 * the exported test.parquet and of other difficulties, each with a corpus of responses — correct,
 * wrong, verbose, truncated and malformed (whitespace the two languages trim differently, Unicode
 * digits, leading zeros, overflow, nesting and length limits, …). Scores must be identical and
 * reward.py must never raise.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildRunDataset, getPreset } from '../../src/rl/config';
import { buildDataset, CONCISE_STYLE, getFamily, type CountdownData, type Problem } from '../../src/tasks';
import { Rng } from '../../src/util/rng';
import { buildExport, writeExport, baseCheckpointSelection } from '../../src/verl/export';
import { groundTruth, DATA_SOURCE_PREFIX } from '../../src/verl/rows';

interface Case {
  data_source: unknown;
  solution_str: unknown;
  ground_truth: unknown;
  extra_info: unknown;
  think_prefilled?: boolean;
  /** The TypeScript verifier's score. */
  expected: number;
  label: string;
}

/** Loads reward.py from a file and scores every case of a JSON file; any exception fails the run. */
const DRIVER = `
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("reward", sys.argv[1])
reward = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reward)
cases = json.load(open(sys.argv[2], encoding="utf-8"))
scores = []
for c in cases:
    kwargs = {"think_prefilled": True} if c.get("think_prefilled") else {}
    s = reward.compute_score(c["data_source"], c["solution_str"], c["ground_truth"], c["extra_info"], **kwargs)
    assert type(s) is float, (c, s)
    scores.append(s)
json.dump(scores, sys.stdout)
`;

function pythonScores(rewardPy: string, cases: Case[]): number[] {
  const file = join(mkdtempSync(join(tmpdir(), 'magic-reward-')), 'cases.json');
  writeFileSync(file, JSON.stringify(cases.map(({ expected: _e, label: _l, ...c }) => c)));
  return JSON.parse(execFileSync('python3', ['-c', DRIVER, rewardPy, file], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] }));
}

function mismatchesOf(cases: Case[], scores: number[]): string[] {
  return cases.flatMap((c, i) => (scores[i] === c.expected ? [] : [`${c.label} → python ${scores[i]}, TypeScript ${c.expected}`]));
}

const answerOf = (response: string) => response.slice(response.indexOf('</think>') + '</think>'.length);
const thinkOf = (response: string) => response.slice('<think>'.length, response.indexOf('</think>'));

/** Answers that probe the integer rule: whitespace JavaScript trims and Python's strip does not (and back), signs, zeros, Unicode digits. */
function integerAnswerVariants(a: string): string[] {
  return [
    a, ` ${a}`, `${a} `, `\n\n${a}`, `${a}\n`, `\t${a}\r\n`, `\u00a0${a}`, `${a}\u3000`, `\ufeff${a}`, `${a}\u2028`, `${a}\u200a`,
    `${a}\u0085`, `${a}\u001c`, `\u001f${a}`, `${a}\u180e`, `${a}\u200b`, `0${a}`, `000${a}`, `+${a}`, `++${a}`, `-${a}`, `--${a}`, `-0`, '+0', '0', '-00',
    `${a}.0`, `${a}=`, `=${a}`, `${a}${a}`, `${a} ${a}`, `${a[0]} ${a.slice(1)}`, `(${a})`, `${a}\u0660`, `\u0664${a}`, `${a}\uff14`, '', ' ', `${a}</think>`,
    '123456789012345678901234567890', `${a}\ud83d\ude00`, `${a}\ud800`,
  ];
}

/** Expressions that probe the countdown parser and checks. */
function countdownAnswerVariants(p: Problem): string[] {
  const { numbers, target } = p.data as CountdownData;
  const a = p.answer;
  const n0 = String(numbers[0]);
  const nest = (depth: number) => `${'('.repeat(depth)}${a}${')'.repeat(depth)}`;
  return [
    a, ` ${a} `, a.split('').join(' '), `(${a})`, nest(15), nest(16), nest(17), `${a}\n`, `\n${a}`, `${a}\t`, `${a}\u00a0`,
    `0${n0}${a.slice(n0.length)}`, `${a}+0`, `${a}*1`, `${a}+${n0}`, `${a}-${n0}+${n0}`, numbers.join('+'), numbers.join('*'), String(target),
    `${target}+0`, `-${a}`, `${a}-`, `(${a}`, `${a})`, `${a}=${target}`, `${a}==`, '', '()', `${a}/1`, `${a}^1`, `${a}x`,
    `${n0}${'0'.repeat(15)}`, '9'.repeat(16), `${'9'.repeat(15)}*${'9'.repeat(15)}`, `99999999*99999999*${n0}`, `${a}${' '.repeat(200)}`,
    `${'1+'.repeat(100)}1`, `${a}\u0660`, `\uff11+${a}`, `${a}\ud83d\ude00`, `${a}\ud800`,
  ];
}

function corpus(problems: readonly Problem[], source: 'rows' | 'generated'): Case[] {
  const cases: Case[] = [];
  const rng = new Rng(20240601);
  for (const p of problems) {
    const family = getFamily(p.family);
    const data_source = `${DATA_SOURCE_PREFIX}${p.family}`;
    const ground_truth = groundTruth(p);
    const add = (label: string, response: unknown, opts: { truncated?: boolean; prefilled?: boolean; extra?: unknown; dataSource?: unknown; groundTruth?: unknown; expected?: number; pin?: number } = {}) => {
      const full = opts.prefilled && typeof response === 'string' && !response.startsWith('<think>') ? `<think>${response}` : response;
      const expected = opts.expected ?? family.verify(p, full as string, { truncated: opts.truncated });
      // A pinned score is what the TypeScript verifier must give too (python must then match it).
      if (opts.pin !== undefined && expected !== opts.pin) throw new Error(`TypeScript verifier: ${p.family} ${JSON.stringify(full)} scored ${expected}, pinned ${opts.pin}`);
      cases.push({
        data_source: opts.dataSource !== undefined ? opts.dataSource : data_source,
        solution_str: response,
        ground_truth: opts.groundTruth !== undefined ? opts.groundTruth : ground_truth,
        extra_info: opts.extra !== undefined ? opts.extra : (opts.truncated ? { split: 'test', index: 0, truncated: true } : { split: 'test', index: 0 }),
        think_prefilled: opts.prefilled,
        expected,
        label: `${source} ${p.family} ${p.prompt}: ${label}`,
      });
    };
    const correct = family.trace(p, rng, CONCISE_STYLE);
    add('correct', correct);
    add('wrong', family.trace(p, rng, { wrongStepRate: 1, verboseRate: 0 }));
    add('imperfect', family.trace(p, rng, { wrongStepRate: 0.3, verboseRate: 0.5 }));
    add('correct, truncated', correct, { truncated: true });
    for (const cut of [1, 7, 8, correct.indexOf('</think>'), correct.indexOf('</think>') + 8, correct.length - 1]) add(`cut at ${cut}`, correct.slice(0, cut), { truncated: true });
    add('cut after the answer, not marked truncated', correct.slice(0, correct.length - 1));
    add('no opener', correct.slice('<think>'.length));
    add('no closer', correct.replace('</think>', ''));
    add('leading space', ` ${correct}`);
    add('opener twice', `<think>${correct}`);
    add('closer twice', `${correct}</think>${answerOf(correct)}`);
    add('empty think', `<think></think>${answerOf(correct)}`);
    add('prefilled template, opener put back', correct.slice('<think>'.length), { prefilled: true });
    add('prefilled template, model wrote the opener too', correct, { prefilled: true });
    add('not a string', null, { expected: 0 });
    add('a number', 42, { expected: 0 });
    add('unknown data source', correct, { dataSource: 'openai/gsm8k', expected: 0 });
    add('no data source', correct, { dataSource: null, expected: 0 });
    add('extra_info missing', correct, { extra: null });
    add('truncated flag not a bool', correct, { extra: { truncated: 'yes' } });
    // R1-style layouts: whitespace around the answer is accepted (score 1 pinned), whitespace
    // inside it, a second answer, an empty answer or a missing </think> are not (0 pinned).
    const a = p.family === 'countdown' ? p.answer : answerOf(correct);
    const think = thinkOf(correct);
    for (const layout of ['\n', '\n\n', '\r\n', ' \n ', '\n\n %\n', '%\r\n', '%  ', '%\t \n\n', '\r\n\r\n%\r\n']) {
      const ans = layout.includes('%') ? layout.replace('%', a) : `${layout}${a}`;
      add(`layout ${JSON.stringify(ans)}`, `<think>${think}</think>${ans}`, { pin: 1 });
      add(`layout ${JSON.stringify(ans)}, prefilled`, `${think}</think>${ans}`, { prefilled: true, pin: 1 });
    }
    for (const ans of [`\n${a}\n${a}`, `${a}\r\n${a}\r\n`, '\n', ' \r\n\t ', '']) add(`layout ${JSON.stringify(ans)}`, `<think>${think}</think>${ans}`, { pin: 0 });
    add('no </think>, answer on its own line', `<think>${think}\n\n${a}\n`, { pin: 0 });
    const answers = p.family === 'countdown' ? countdownAnswerVariants(p) : integerAnswerVariants(answerOf(correct));
    for (const a of answers) add(`answer ${JSON.stringify(a)}`, `<think>${thinkOf(correct)}</think>${a}`);
    if (p.family === 'countdown') {
      add('ground truth not JSON', correct, { groundTruth: 'not json', expected: 0 });
      add('ground truth without target', correct, { groundTruth: JSON.stringify({ numbers: (p.data as CountdownData).numbers }), expected: 0 });
    } else {
      add('ground truth not a string', correct, { groundTruth: 7, expected: getFamily(p.family).verify({ ...p, answer: 7 as unknown as string }, correct) });
    }
  }
  return cases;
}

describe('reward.py scores exactly as the TypeScript verifiers', () => {
  let dir: string;
  let rewardPy: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'magic-verl-parity-'));
    const cfg = getPreset('magic');
    const { files } = buildExport(cfg, baseCheckpointSelection(cfg, null, 'not needed here'), { name: 'magic', source: 'test' });
    writeExport(dir, files);
    rewardPy = join(dir, 'reward.py');
  });

  it('on every exported test problem and its corpus of responses: identical scores, no exception', async () => {
    const bytes = readFileSync(join(dir, 'test.parquet'));
    const rows = (await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) })) as {
      data_source: string;
      reward_model: { ground_truth: string };
      extra_info: { prompt: string; answer: string; family: string };
    }[];
    const test = buildRunDataset(getPreset('magic')).test;
    expect(rows.length).toBe(256);
    // The rows carry the problems: rebuild each from its row, so the corpus is built from what verl reads.
    const problems = rows.map((r, i) => {
      expect(r.extra_info.prompt).toBe(test[i].prompt);
      expect(r.reward_model.ground_truth).toBe(groundTruth(test[i]));
      expect(r.data_source).toBe(`${DATA_SOURCE_PREFIX}${test[i].family}`);
      return test[i];
    });
    const cases = corpus(problems, 'rows');
    const scores = pythonScores(rewardPy, cases);
    expect(scores.length).toBe(cases.length);
    const mismatches = mismatchesOf(cases, scores);
    expect(mismatches.slice(0, 10)).toEqual([]);
    // The corpus exercises both outcomes: every correct response scores 1 and every wrong one 0.
    const scoresOf = (suffix: string) => cases.flatMap((c, i) => (c.label.endsWith(suffix) ? [scores[i]] : []));
    expect(scoresOf(': correct')).toEqual(new Array(256).fill(1));
    expect(scoresOf(': wrong')).toEqual(new Array(256).fill(0));
    expect(scores.filter((s) => s === 1).length).toBeGreaterThan(1000);
    expect(scores.filter((s) => s === 0).length).toBeGreaterThan(1000);
  });

  it('on problems of every difficulty and family (longer countdowns, deeper expressions)', () => {
    const problems: Problem[] = [];
    for (let difficulty = 1; difficulty <= 5; difficulty++) {
      problems.push(...buildDataset({ seed: 100 + difficulty, families: ['addition', 'countdown', 'arith'], difficulty, trainSize: 0, testSize: 30 }).test);
    }
    const cases = corpus(problems, 'generated');
    const scores = pythonScores(rewardPy, cases);
    const mismatches = mismatchesOf(cases, scores);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it('on multiply problems of every difficulty', () => {
    const problems: Problem[] = [];
    for (let difficulty = 1; difficulty <= 6; difficulty++) {
      problems.push(...buildDataset({ seed: 200 + difficulty, families: ['multiply'], difficulty, trainSize: 0, testSize: 20 }).test);
    }
    const cases = corpus(problems, 'generated');
    const scores = pythonScores(rewardPy, cases);
    expect(mismatchesOf(cases, scores).slice(0, 10)).toEqual([]);
    expect(scores.filter((s) => s === 1).length).toBeGreaterThan(100);
  });

  it('on sort problems of every difficulty', () => {
    const problems: Problem[] = [];
    for (let difficulty = 1; difficulty <= 6; difficulty++) {
      problems.push(...buildDataset({ seed: 300 + difficulty, families: ['sort'], difficulty, trainSize: 0, testSize: 20 }).test);
    }
    const cases = corpus(problems, 'generated');
    const scores = pythonScores(rewardPy, cases);
    expect(mismatchesOf(cases, scores).slice(0, 10)).toEqual([]);
    expect(scores.filter((s) => s === 1).length).toBeGreaterThan(100);
  });

  it('a deliberately different verifier is caught (the comparison can fail)', () => {
    // Python's own str.strip() trims U+0085, which JavaScript keeps: swapping it in must break parity.
    const broken = join(dir, 'reward_broken.py');
    writeFileSync(broken, readFileSync(rewardPy, 'utf8').replace('text.strip(JS_WHITESPACE)', 'text.strip()'));
    const p = buildDataset({ seed: 1, families: ['addition'], difficulty: 2, trainSize: 0, testSize: 1 }).test[0];
    const cases = corpus([p], 'generated');
    const scores = pythonScores(broken, cases);
    expect(cases.some((c, i) => scores[i] !== c.expected)).toBe(true);
  });

  it('a reward.py that no longer trims around a countdown answer is caught', () => {
    const broken = join(dir, 'reward_no_trim.py');
    const text = readFileSync(rewardPy, 'utf8');
    expect(text).toContain('_parse(answer.strip(JS_WHITESPACE))');
    writeFileSync(broken, text.replace('_parse(answer.strip(JS_WHITESPACE))', '_parse(answer)'));
    const p = buildDataset({ seed: 1, families: ['countdown'], difficulty: 2, trainSize: 0, testSize: 1 }).test[0];
    const cases = corpus([p], 'generated');
    const scores = pythonScores(broken, cases);
    expect(cases.filter((c, i) => scores[i] !== c.expected && c.label.includes('layout')).length).toBeGreaterThan(5);
  });
});
