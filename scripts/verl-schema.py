#!/usr/bin/env python3
"""Records verl's config schema as test fixtures: tests/verl/fixtures/verl-schema-<flavour>.json.

Composes each flavour's PPO trainer config from its yaml files the way Hydra does (defaults lists,
`group@package: option`, relative `../group`, `_self_`; deep merge, later wins) and writes every
composed leaf key with the type of its default (int, float, bool, str, list, dict = an empty
mapping, null, interp = an OmegaConf `${…}` interpolation; yaml writes a float default 0 as an int,
so the test takes int and float as one kind), the source commit, and the keys the trainer reads
without declaring them (given with Hydra's `+`). Facts about verl, not copies of its files.
Python 3 standard library only: a YAML subset reader that covers verl's config files.

  python3 scripts/verl-schema.py --upstream VERL_GIT_DIR [--upstream-ref v0.7.0] \\
                                 --fork SKYWORK_GIT_DIR [--fork-ref HEAD] [--out tests/verl/fixtures]

VERL_GIT_DIR / SKYWORK_GIT_DIR: clones (or bare mirrors) of volcengine/verl and SkyworkAI/Skywork-OR1;
files are read with `git show REF:PATH`, so no checkout is needed. For upstream, the composition is
checked against verl's own flattened `_generated_ppo_trainer.yaml` (same keys, or the script stops).
"""
import argparse
import json
import os
import re
import subprocess
import sys

CONFIG_DIR = "verl/trainer/config"

# Keys a trainer reads although its yaml does not declare them: the scripts pass them with `+`.
ADDED_KEYS = {
    "upstream": [
        {"key": "custom_reward_function.reward_kwargs", "readBy": "verl/trainer/ppo/reward.py (get_custom_reward_fn: passed to compute_score as keyword arguments)"},
    ],
    "skywork-or1": [
        {"key": "actor_rollout_ref.actor.optim.weight_decay", "readBy": "verl/workers/fsdp_workers.py:270 (optim_config.get('weight_decay', 1e-2))"},
        {"key": "actor_rollout_ref.actor.optim.betas", "readBy": "verl/workers/fsdp_workers.py:269 (optim_config.get('betas', (0.9, 0.999)))"},
    ],
}


class SchemaError(Exception):
    pass


# ---------------------------------------------------------------------------------------------
# YAML subset: block mappings and sequences, flow lists and mappings of scalars, comments, scalars.

def _strip_comment(line):
    out, quote = [], None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            break
        out.append(ch)
    return "".join(out).rstrip()


def _split_flow(text):
    items, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        items.append(cur.strip())
    return items


def scalar(text):
    t = text.strip()
    if t.startswith("[") and t.endswith("]"):
        return [scalar(x) for x in _split_flow(t[1:-1])]
    if t.startswith("{") and t.endswith("}"):
        out = {}
        for item in _split_flow(t[1:-1]):
            k, _, v = item.partition(":")
            out[scalar(k)] = scalar(v)
        return out
    if len(t) >= 2 and t[0] == t[-1] and t[0] in "'\"":
        return t[1:-1]
    low = t.lower()
    if low in ("", "null", "~"):
        return None
    if low in ("true", "false"):
        return low == "true"
    if re.fullmatch(r"[-+]?[0-9]+", t):
        return int(t)
    if re.fullmatch(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\.inf|\.nan", low):
        return float(t.replace(".inf", "inf").replace(".nan", "nan"))
    return t


def parse_yaml(text, name):
    lines = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw)
        if line.strip() and not line.strip().startswith("---"):
            lines.append((len(line) - len(line.lstrip(" ")), line.strip(), n))
    pos = [0]

    def block(indent):
        if pos[0] >= len(lines):
            return None
        ind, body, n = lines[pos[0]]
        if body.startswith("- ") or body == "-":
            return seq(ind)
        return mapping(ind)

    def seq(indent):
        out = []
        while pos[0] < len(lines):
            ind, body, n = lines[pos[0]]
            if ind != indent or not (body.startswith("- ") or body == "-"):
                break
            pos[0] += 1
            item = body[1:].strip()
            m = re.fullmatch(r"([^:'\"]+?):(\s+(.*))?", item)
            out.append({m.group(1).strip(): scalar(m.group(3) or "")} if m and not item.startswith(("[", "{")) else scalar(item))
        return out

    def mapping(indent):
        out = {}
        while pos[0] < len(lines):
            ind, body, n = lines[pos[0]]
            if ind < indent:
                break
            if ind > indent:
                raise SchemaError(f"{name}:{n}: unexpected indentation")
            m = re.fullmatch(r"([^:]+?):(\s+(.*))?", body)
            if not m:
                raise SchemaError(f"{name}:{n}: not a 'key: value' line: {body}")
            pos[0] += 1
            key, value = m.group(1).strip().strip("'\""), m.group(3)
            if value is not None and value.strip():
                while pos[0] < len(lines) and lines[pos[0]][0] > indent:  # a plain scalar folded over lines
                    value += " " + lines[pos[0]][1]
                    pos[0] += 1
                out[key] = scalar(value)
            elif pos[0] < len(lines) and (lines[pos[0]][0] > indent or (lines[pos[0]][0] == indent and lines[pos[0]][1].startswith("-"))):
                out[key] = block(lines[pos[0]][0])
            else:
                out[key] = None
        return out

    result = block(0) if lines else {}
    if pos[0] < len(lines):
        raise SchemaError(f"{name}:{lines[pos[0]][2]}: could not read past this line")
    return result or {}


# ---------------------------------------------------------------------------------------------
# Hydra composition

def merge(base, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            merge(base[k], v)
        else:
            base[k] = v
    return base


def place(pkg, node):
    for part in reversed([p for p in pkg.split(".") if p]):
        node = {part: node}
    return node


def norm_group(current, group):
    if group.startswith("/"):
        return group.strip("/")
    return os.path.normpath(os.path.join(current, group)).replace("\\", "/").strip("./") if current or not group.startswith("..") else group


def compose(read, group, name, pkg, files):
    path = f"{CONFIG_DIR}/{group + '/' if group else ''}{name}.yaml"
    files.append(path)
    node = parse_yaml(read(path), path)
    if not isinstance(node, dict):
        raise SchemaError(f"{path}: not a mapping")
    defaults = node.pop("defaults", None) or []
    if "_self_" not in defaults:
        defaults = list(defaults) + ["_self_"]
    out = {}
    join = lambda a, b: f"{a}.{b}" if a and b else a or b
    for item in defaults:
        if item == "_self_":
            merge(out, place(pkg, node))
            continue
        if isinstance(item, dict):
            (key, option), = item.items()
            key = re.sub(r"^(optional|override)\s+", "", key)
            if option is None:
                continue
            grp, _, at = key.partition("@")
            g = norm_group(group, grp)
            sub_pkg = join(pkg, at) if at else join(pkg, g.replace("/", "."))
            merge(out, compose(read, g, str(option), sub_pkg, files))
        else:
            cfg, _, at = str(item).partition("@")
            parent = os.path.dirname(norm_group(group, cfg))
            merge(out, compose(read, parent, os.path.basename(cfg), join(pkg, at) if at else pkg, files))
    return out


def type_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "dict"
    return "interp" if "${" in v else "str"


def leaves(node, prefix="", out=None):
    out = {} if out is None else out
    for k, v in node.items():
        if isinstance(v, dict) and v:
            leaves(v, f"{prefix}{k}.", out)
        else:
            out[f"{prefix}{k}"] = type_of(v)
    return out


def git_reader(git_dir, ref):
    def read(path):
        r = subprocess.run(["git", "--git-dir", git_dir, "show", f"{ref}:{path}"], capture_output=True, text=True)
        if r.returncode != 0:
            raise SchemaError(f"{git_dir} {ref}:{path}: {r.stderr.strip()}")
        return r.stdout
    return read


def commit_of(git_dir, ref):
    return subprocess.run(["git", "--git-dir", git_dir, "rev-parse", f"{ref}^{{commit}}"], capture_output=True, text=True, check=True).stdout.strip()


def schema(flavour, repo, git_dir, ref):
    read = git_reader(git_dir, ref)
    files = []
    composed = compose(read, "", "ppo_trainer", "", files)
    keys = leaves(composed)
    check = None
    if flavour == "upstream":
        generated = leaves(parse_yaml(read(f"{CONFIG_DIR}/_generated_ppo_trainer.yaml"), "_generated_ppo_trainer.yaml"))
        missing, extra = sorted(set(generated) - set(keys)), sorted(set(keys) - set(generated))
        if missing or extra:
            raise SchemaError(f"composition differs from verl's _generated_ppo_trainer.yaml: missing {missing[:5]}, extra {extra[:5]}")
        check = f"same {len(keys)} keys as {CONFIG_DIR}/_generated_ppo_trainer.yaml"
    return {
        "flavour": flavour,
        "repo": repo,
        "ref": ref,
        "commit": commit_of(git_dir, ref),
        "composedFrom": sorted(set(files)),
        "check": check,
        "addedKeys": ADDED_KEYS[flavour],
        "keys": dict(sorted(keys.items())),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--upstream-ref", default="v0.7.0")
    ap.add_argument("--fork", required=True)
    ap.add_argument("--fork-ref", default="HEAD")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "verl", "fixtures"))
    a = ap.parse_args()
    try:
        for flavour, repo, git_dir, ref in (("upstream", "volcengine/verl", a.upstream, a.upstream_ref), ("skywork-or1", "SkyworkAI/Skywork-OR1", a.fork, a.fork_ref)):
            s = schema(flavour, repo, git_dir, ref)
            file = os.path.join(a.out, f"verl-schema-{flavour}.json")
            with open(file, "w") as f:
                json.dump(s, f, indent=1)
                f.write("\n")
            print(f"{file}: {len(s['keys'])} keys from {repo}@{s['commit'][:7]} ({len(s['composedFrom'])} yaml files){'; ' + s['check'] if s['check'] else ''}")
    except SchemaError as e:
        print(f"verl-schema: {e}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
