/**
 * fork_reward.py (the export's wiring of reward.py into Skywork-OR1's fork) run with the system
 * python3 against the fork's own call, written from its source at 64e96af:
 *   verl/trainer/main_ppo.py:25-29,128  main() → run_ppo(config, code_compute_score); ray.init(runtime_env=…);
 *                                       reward_manager_cls(tokenizer=…, num_examine=0, compute_score=…,
 *                                       is_long_penalty=…, is_binary_reward=…, is_power4_reward=…)
 *   verl/workers/reward_manager/yr_code.py  YRRewardManager.__init__ binds the flags with partial;
 *                                       parallel_compute_score submits compute_score(response, ground_truth,
 *                                       data_source) to a ProcessPoolExecutor and unpacks (score, metadata)
 *   verl/workers/reward_manager/naive.py:24  __init__(self, tokenizer, num_examine, compute_score=None)
 * The stand-ins keep those signatures and call shapes; no verl, torch or Ray is needed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getPreset } from '../../src/rl/config';
import { buildDataset } from '../../src/tasks';
import { baseCheckpointSelection, buildExport, writeExport } from '../../src/verl/export';
import { DATA_SOURCE_PREFIX, groundTruth } from '../../src/verl/rows';

const DRIVER = `
import json, os, sys, types
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import partial
export_dir, cases_file = sys.argv[1], sys.argv[2]
cases = json.load(open(cases_file, encoding="utf-8"))

# --- the fork's managers, as in its source (torch and DataProto left out) ---
def parallel_compute_score(evaluation_func, response_str, ground_truth, data_sources, timeout=6, max_workers=4):
    with ProcessPoolExecutor(max_workers=max_workers) as executor:
        futures = {executor.submit(evaluation_func, response_str[index], ground_truth[index], data_sources[index]): index for index in range(len(response_str))}
        results, metadata = {}, {}
        for future in as_completed(futures):
            index = futures[future]
            results[index], metadata[index] = future.result()
    return [results[i] for i in range(len(response_str))]

class YRRewardManager:
    def __init__(self, tokenizer, num_examine, compute_score=None, is_long_penalty=False, is_binary_reward=True, is_power4_reward=False):
        self.compute_score = partial(compute_score, is_long_penalty=is_long_penalty, is_binary_reward=is_binary_reward, is_power4_reward=is_power4_reward)
    def __call__(self, responses, ground_truth, data_sources):
        # yr decodes data.batch['responses'] alone: the prompt is not part of the string
        return parallel_compute_score(self.compute_score, responses, ground_truth, data_sources)

class NaiveRewardManager:
    def __init__(self, tokenizer, num_examine, compute_score=None):
        self.compute_score = compute_score

def build(cls, compute_score, config):
    return cls(tokenizer=None, num_examine=0, compute_score=compute_score, is_long_penalty=config.get("is_long_penalty", False), is_binary_reward=config.get("is_binary_reward", True), is_power4_reward=config.get("is_power4_reward", False))

out = {}
try:
    build(NaiveRewardManager, lambda *a: 0, {})
    out["naive"] = "accepted"
except TypeError as e:
    out["naive"] = "TypeError"

# --- stand-ins for ray and verl.trainer.main_ppo, recording what fork_reward.main() does ---
seen = {}
ray = types.ModuleType("ray")
def ray_init(*args, **kwargs):
    seen["runtime_env"] = kwargs.get("runtime_env")
ray.init = ray_init
main_ppo = types.ModuleType("verl.trainer.main_ppo")
main_ppo.code_compute_score = lambda *a, **k: (0.0, {})
def fork_main():
    # main() → run_ppo(config, code_compute_score) → ray.init(...) → reward_manager_cls(...)
    ray.init(runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "true", "NCCL_DEBUG": "WARN"}})
    manager = build(YRRewardManager, main_ppo.code_compute_score, {})
    seen["scores"] = manager([c["response"] for c in cases], [c["ground_truth"] for c in cases], [c["data_source"] for c in cases])
    seen["compute_score"] = main_ppo.code_compute_score.__module__ + "." + main_ppo.code_compute_score.__name__
main_ppo.main = fork_main
for name in ("verl", "verl.trainer"):
    sys.modules[name] = types.ModuleType(name)
sys.modules["ray"] = ray
sys.modules["verl.trainer.main_ppo"] = main_ppo
sys.modules["verl.trainer"].main_ppo = main_ppo

import runpy
runpy.run_path(os.path.join(export_dir, "fork_reward.py"), run_name="__main__")
out.update(seen)
json.dump(out, sys.stdout)
`;

interface Case {
  response: string;
  ground_truth: string;
  data_source: string;
  expected: number;
}

function runFork(dir: string, cases: Case[], env: Record<string, string> = {}) {
  const file = join(mkdtempSync(join(tmpdir(), 'magic-fork-')), 'cases.json');
  writeFileSync(file, JSON.stringify(cases));
  const stdout = execFileSync('python3', ['-c', DRIVER, dir, file], { encoding: 'utf8', env: { ...process.env, PYTHONPATH: '', ...env }, cwd: tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(stdout) as { naive: string; runtime_env: { env_vars: Record<string, string> }; scores: number[]; compute_score: string };
}

describe("fork_reward.py under Skywork-OR1's reward-manager call", () => {
  let dir: string;
  const cases: Case[] = [];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'magic-verl-fork-'));
    const cfg = getPreset('magic');
    writeExport(dir, buildExport(cfg, baseCheckpointSelection(cfg, null, 'not needed here'), { name: 'magic', source: 'test' }).files);
    const problems = buildDataset({ seed: 7, families: ['addition', 'countdown', 'arith'], difficulty: 2, trainSize: 0, testSize: 6 }).test;
    for (const p of problems) {
      const base = { ground_truth: groundTruth(p), data_source: `${DATA_SOURCE_PREFIX}${p.family}` };
      // THINK_PREFILLED: the decoded response starts inside the think block, as R1-Distill's does.
      cases.push({ ...base, response: `Let me work it out.</think>\n\n${p.answer}\n`, expected: 1 });
      cases.push({ ...base, response: `Let me work it out.</think>${p.answer}`, expected: 1 });
      cases.push({ ...base, response: `Let me work it out.</think>\n\n${p.answer}9`, expected: 0 });
      cases.push({ ...base, response: `Let me work it out. ${p.answer}`, expected: 0 });
    }
  });

  it("the fork's naive manager refuses main_ppo's flags (why the scripts pick yr)", () => {
    expect(runFork(dir, cases.slice(0, 1)).naive).toBe('TypeError');
  });

  it('scores correct answers 1 and wrong ones 0 through yr, in a process pool, as (score, metadata)', () => {
    const r = runFork(dir, cases, { THINK_PREFILLED: 'True' });
    expect(r.compute_score).toBe('fork_reward.compute_score');
    expect(r.scores).toEqual(cases.map((c) => c.expected));
    expect(r.scores.filter((s) => s === 1).length).toBe(12);
  });

  it('THINK_PREFILLED=False: a response without its own <think> scores 0, as the lab scores it', () => {
    const r = runFork(dir, cases, { THINK_PREFILLED: 'False' });
    expect(r.scores.every((s) => s === 0)).toBe(true);
  });

  it("puts the export folder on the Ray workers' PYTHONPATH, keeping the fork's env vars", () => {
    const r = runFork(dir, cases.slice(0, 1), { PYTHONPATH: '/opt/x' });
    expect(r.runtime_env.env_vars.TOKENIZERS_PARALLELISM).toBe('true');
    expect(r.runtime_env.env_vars.PYTHONPATH.split(':')).toEqual([dir, '/opt/x']);
  });

  it('an adapter that returns the bare score (upstream style) is caught', () => {
    const broken = mkdtempSync(join(tmpdir(), 'magic-verl-fork-broken-'));
    for (const f of ['reward.py', 'fork_reward.py']) writeFileSync(join(broken, f), readFileSync(join(dir, f), 'utf8'));
    const text = readFileSync(join(dir, 'fork_reward.py'), 'utf8');
    expect(text).toContain('return score, metadata');
    writeFileSync(join(broken, 'fork_reward.py'), text.replace('return score, metadata', 'return score'));
    expect(() => runFork(broken, cases.slice(0, 1))).toThrow(/cannot unpack|not iterable/);
  });
});
