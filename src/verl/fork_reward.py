"""MAGIC Lab's reward on Skywork-OR1's verl fork (SkyworkAI/Skywork-OR1 @64e96af): adapter and launcher.

The fork has no custom_reward_function keys. Its verl/trainer/main_ppo.py
  - calls run_ppo(config, code_compute_score), the module-level name imported from
    verl.utils.reward_score.livecodebench, as the one compute_score of every reward manager;
  - builds the manager as cls(tokenizer=..., num_examine=..., compute_score=...,
    is_long_penalty=..., is_binary_reward=..., is_power4_reward=...) (line 128), which the fork's
    `naive` manager does not accept (TypeError), so the launch scripts pick
    reward_model.reward_manager=yr;
  - its `yr` manager (workers/reward_manager/yr_code.py) binds the three flags with
    functools.partial, decodes the response tokens alone, and calls
    compute_score(response_str, ground_truth, data_source) positionally in a process pool,
    unpacking `score, metadata = future.result()`.

compute_score below takes that call and returns that pair, scoring with reward.py beside it.
Run as a script (run_stageK.sh does, with VERL_FLAVOR=skywork-or1), it swaps it in for
code_compute_score and starts the fork's Hydra main with the command line's overrides.
Standard library only; the fork's packages are imported only by main().
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import reward as lab_reward  # noqa: E402  (reward.py, beside this file)


def think_prefilled():
    """THINK_PREFILLED from the launch script's environment (default True: R1-Distill's template)."""
    return os.environ.get("THINK_PREFILLED", "True").strip().lower() in ("true", "1", "yes")


def compute_score(solution_str, ground_truth, data_source, is_long_penalty=False, is_binary_reward=True, is_power4_reward=False, **_unused):
    """The fork's call: (response, ground truth, data source) → (score, metadata).

    The lab's reward is binary already: is_binary_reward changes nothing, and the length and
    power-4 shapings the fork offers for its own math reward are not the lab's (recorded in the
    metadata, not applied).
    """
    score = lab_reward.compute_score(data_source, solution_str, ground_truth, None, think_prefilled=think_prefilled())
    metadata = {"data_source": data_source, "score": score, "ignored": {"is_long_penalty": bool(is_long_penalty), "is_power4_reward": bool(is_power4_reward)}}
    return score, metadata


def with_pythonpath(runtime_env):
    """A Ray runtime_env whose workers can import this module and reward.py (PYTHONPATH += HERE)."""
    env = dict(runtime_env or {})
    env_vars = dict(env.get("env_vars") or {})
    parts = [p for p in env_vars.get("PYTHONPATH", os.environ.get("PYTHONPATH", "")).split(os.pathsep) if p]
    if HERE not in parts:
        parts.insert(0, HERE)
    env_vars["PYTHONPATH"] = os.pathsep.join(parts)
    env["env_vars"] = env_vars
    return env


def main():
    # Import this file under its module name, so the function the fork pickles into its Ray task
    # and process pool is fork_reward.compute_score (importable there), not __main__'s.
    import fork_reward
    import ray
    import verl.trainer.main_ppo as main_ppo

    ray_init = ray.init

    def init(*args, **kwargs):
        kwargs["runtime_env"] = fork_reward.with_pythonpath(kwargs.get("runtime_env"))
        return ray_init(*args, **kwargs)

    ray.init = init
    main_ppo.code_compute_score = fork_reward.compute_score
    main_ppo.main()


if __name__ == "__main__":
    main()
