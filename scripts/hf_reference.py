#!/usr/bin/env python3
"""Independent float64 forward of a Llama / Qwen2 checkpoint folder, in numpy only.

Written apart from the lab's TypeScript (its own safetensors parser, config mapping and decoder,
after transformers' modeling_llama / modeling_qwen2) so the lab's log-probs can be checked against
it: tests/model/hf/reference-parity.test.ts runs it on the tiny checkpoints.

    python3 scripts/hf_reference.py MODEL_DIR 1,2,3,4
prints {"logprobs": [...], "entropies": [...]}: log p(token[t+1] | token[..t]) and the entropy at
positions t = 0 .. T-2.

    python3 scripts/hf_reference.py MODEL_DIR 1,2,3,4 --grad COEFS ENT_COEFS NAME:INDEX [NAME:INDEX ...]
adds "grads": central differences (step 1e-5, in float64) of sum_t c_t*logprob_t + e_t*entropy_t with respect
to the named weights' flat entries, e.g. model.layers.0.self_attn.q_proj.weight:17.
"""
import json
import os
import struct
import sys

import numpy as np


def read_safetensors(path):
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        raw = data[b:end]
        if e["dtype"] == "F32":
            a = np.frombuffer(raw, dtype="<f4")
        elif e["dtype"] == "F16":
            a = np.frombuffer(raw, dtype="<f2")
        elif e["dtype"] == "BF16":
            a = (np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            raise SystemExit(f"{path}: {name} has dtype {e['dtype']}")
        out[name] = a.astype(np.float64).reshape(e["shape"])
    return out


def load(folder):
    cfg = json.load(open(os.path.join(folder, "config.json")))
    single = os.path.join(folder, "model.safetensors")
    if os.path.exists(single):
        w = read_safetensors(single)
    else:
        index = json.load(open(os.path.join(folder, "model.safetensors.index.json")))
        w = {}
        for shard in sorted(set(index["weight_map"].values())):
            w.update(read_safetensors(os.path.join(folder, shard)))
    return cfg, w


def rms_norm(x, weight, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * weight


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def forward_logits(cfg, w, tokens):
    d = cfg["hidden_size"]
    n_heads = cfg["num_attention_heads"]
    n_kv = cfg.get("num_key_value_heads", n_heads)
    hd = cfg.get("head_dim") or d // n_heads
    eps = cfg["rms_norm_eps"]
    theta = cfg.get("rope_theta", 10000.0)
    T = len(tokens)
    x = w["model.embed_tokens.weight"][np.array(tokens)]
    inv_freq = 1.0 / theta ** (np.arange(0, hd, 2, dtype=np.float64) / hd)
    freqs = np.outer(np.arange(T, dtype=np.float64), inv_freq)
    emb = np.concatenate([freqs, freqs], axis=-1)  # [T, hd]
    cos, sin = np.cos(emb)[:, None, :], np.sin(emb)[:, None, :]
    mask = np.triu(np.full((T, T), -np.inf), k=1)
    for i in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{i}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)

        def proj(name):
            y = a @ w[p + f"self_attn.{name}.weight"].T
            bias = w.get(p + f"self_attn.{name}.bias")
            return y if bias is None else y + bias

        q = proj("q_proj").reshape(T, n_heads, hd)
        k = proj("k_proj").reshape(T, n_kv, hd)
        v = proj("v_proj").reshape(T, n_kv, hd)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        rep = n_heads // n_kv  # repeat_kv: query head h reads kv head h // rep
        k = np.repeat(k, rep, axis=1)
        v = np.repeat(v, rep, axis=1)
        scores = np.einsum("thd,shd->hts", q, k) / np.sqrt(hd) + mask
        scores -= scores.max(axis=-1, keepdims=True)
        probs = np.exp(scores)
        probs /= probs.sum(axis=-1, keepdims=True)
        att = np.einsum("hts,shd->thd", probs, v).reshape(T, n_heads * hd)
        x = x + att @ w[p + "self_attn.o_proj.weight"].T
        b = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        g = b @ w[p + "mlp.gate_proj.weight"].T
        u = b @ w[p + "mlp.up_proj.weight"].T
        x = x + ((g / (1.0 + np.exp(-g))) * u) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if cfg.get("tie_word_embeddings", False) else w["lm_head.weight"]
    return x @ head.T


def scores(cfg, w, tokens):
    logits = forward_logits(cfg, w, tokens)
    m = logits.max(axis=-1, keepdims=True)
    lse = (m + np.log(np.exp(logits - m).sum(axis=-1, keepdims=True)))[:, 0]
    logp = logits - lse[:, None]
    lp = [float(logp[t, tokens[t + 1]]) for t in range(len(tokens) - 1)]
    ent = [float(-(np.exp(logp[t]) * logp[t]).sum()) for t in range(len(tokens) - 1)]
    return lp, ent


def main():
    folder, tokens = sys.argv[1], [int(t) for t in sys.argv[2].split(",")]
    cfg, w = load(folder)
    lp, ent = scores(cfg, w, tokens)
    out = {"logprobs": lp, "entropies": ent}
    if len(sys.argv) > 3 and sys.argv[3] == "--grad":
        coef = [float(x) for x in sys.argv[4].split(",")]
        ent_coef = [float(x) for x in sys.argv[5].split(",")]
        if cfg.get("tie_word_embeddings", False):
            w.pop("lm_head.weight", None)

        def objective():
            a, b = scores(cfg, w, tokens)
            return sum(c * x for c, x in zip(coef, a)) + sum(e * x for e, x in zip(ent_coef, b))

        grads = []
        for spec in sys.argv[6:]:
            name, index = spec.rsplit(":", 1)
            flat = w[name].reshape(-1)  # a view: edits reach the weight
            i, orig, step = int(index), float(flat[int(index)]), 1e-5
            flat[i] = orig + step
            plus = objective()
            flat[i] = orig - step
            minus = objective()
            flat[i] = orig
            grads.append((plus - minus) / (2 * step))
        out["grads"] = grads
    print(json.dumps(out))


if __name__ == "__main__":
    main()
