"""Numpy (float64) models of the held-out programs, written from the TF1 and Keras semantics,
not from TensorFlow: each architecture's forward pass and each program's training steps, from
the data and weights of numpy_data.py with the optimizers of ../migration_numpy.py.

Used by verify.py (no TensorFlow is imported here). Gradients are central finite differences
of the total loss in float64 (exact enough: every margin claimed is many orders above their
error, and two sides with the same formula get bit-identical differences).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from migration_numpy import (
    TF1SGD,
    Arrays,
    Forward,
    KerasAdagrad,
    KerasAdam,
    KerasRMSprop,
    KerasSGD,
    Program,
    TF1Adagrad,
    TF1Adam,
    TF1Momentum,
    TF1RMSProp,
    clip_each,
    clip_global,
    clip_value,
    constant,
    exp_staircase,
    keras_l2,
    log_softmax,
    piecewise,
    relu,
    run,
    sigmoid,
    sparse_xent,
    tf1_l2_loss,
)

from numpy_data import program_data

# ----------------------------------------------------------------------- forward passes

def dense_xent(labels: np.ndarray, logits: np.ndarray, smoothing: float = 0.0) -> float:
    n = labels.shape[-1]
    labels = labels * (1.0 - smoothing) + smoothing / n
    return float(-(labels * log_softmax(logits)).sum(axis=-1).mean())


def conv2d(x: np.ndarray, k: np.ndarray, padding: str) -> np.ndarray:
    """NHWC convolution, stride 1; SAME pads as TensorFlow does (the extra row/column after)."""
    kh, kw = k.shape[:2]
    if padding == "SAME":
        ph, pw = kh - 1, kw - 1
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for a in range(kh):
        for b in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, a:a + oh, b:b + ow, :], k[a, b])
    return out


def pool2(x: np.ndarray, how: str) -> np.ndarray:
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // 2, 2, w // 2, 2, c)
    return blocks.max(axis=(2, 4)) if how == "max" else blocks.mean(axis=(2, 4))


def mlp_nesterov_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    h1 = relu(d["x"] @ p["fc1/kernel"] + p["fc1/bias"])
    h2 = relu(h1 @ p["fc2/kernel"] + p["fc2/bias"])
    logits = h2 @ p["out/kernel"] + p["out/bias"]
    return Forward({"fc1": h1, "fc2": h2, "logits": logits}, sparse_xent(d["y"], logits))


def mlp_piecewise_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    hidden = np.tanh(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    logits = hidden @ p["logits/kernel"] + p["logits/bias"]
    return Forward({"hidden": hidden, "logits": logits}, sparse_xent(d["y"], logits))


def cnn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    conv = relu(conv2d(d["x"], p["conv/kernel"], "SAME") + p["conv/bias"])
    pooled = pool2(conv, o.get("pool", "max"))
    flat = pooled.reshape(len(pooled), -1)
    logits = flat @ p["fc/kernel"] + p["fc/bias"]
    return Forward({"conv": conv, "pool": pooled, "flatten": flat, "logits": logits},
                   sparse_xent(d["y"], logits))


def bn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """conv (VALID, no bias) -> batch norm on the batch's statistics (biased variance)."""
    conv = conv2d(d["x"], p["conv/kernel"], "VALID")
    mean = conv.mean(axis=(0, 1, 2))
    var = ((conv - mean) ** 2).mean(axis=(0, 1, 2))
    bn = p["bn/gamma"] * (conv - mean) / np.sqrt(var + o["epsilon"]) + p["bn/beta"]
    act = relu(bn)
    flat = act.reshape(len(act), -1)
    logits = flat @ p["dense/kernel"] + p["dense/bias"]
    return Forward({"conv": conv, "bn": bn, "relu": act, "flatten": flat, "logits": logits},
                   sparse_xent(d["y"], logits), (mean, var))


def bninf_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """conv 2x2 SAME -> batch norm (frozen statistics, or the batch's when training) -> relu
    -> global average pool -> dense."""
    conv = conv2d(d["x"], p["conv/kernel"], "SAME") + p["conv/bias"]
    stats = None
    if o.get("training"):
        mean = conv.mean(axis=(0, 1, 2))
        var = ((conv - mean) ** 2).mean(axis=(0, 1, 2))
        stats = (mean, var)
    else:
        mean, var = d["state/bn/moving_mean"], d["state/bn/moving_variance"]
    bn = p["bn/gamma"] * (conv - mean) / np.sqrt(var + 1e-3) + p["bn/beta"]
    act = relu(bn)
    pooled = act.mean(axis=(1, 2))
    logits = pooled @ p["head/kernel"] + p["head/bias"]
    return Forward({"conv": conv, "bn": bn, "relu": act, "pool": pooled, "logits": logits},
                   sparse_xent(d["y"], logits), stats)


def embed_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    vectors = p["embedding"][d["x"]]
    pooled = vectors.mean(axis=1)
    logits = pooled @ p["head/kernel"] + p["head/bias"]
    return Forward({"embed": vectors, "pool": pooled, "logits": logits},
                   sparse_xent(d["y"], logits))


def gru_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """GRU with the reset gate before the recurrent matmul (TF1's GRUCell, Keras
    reset_after=False); gates ordered z, r, h in the kernels."""
    u = 4
    x = d["x"]
    k, rk, b = p["gru/kernel"], p["gru/recurrent_kernel"], p["gru/bias"]
    h = np.zeros((x.shape[0], u))
    for t in range(x.shape[1]):
        xp = x[:, t, :] @ k + b
        z = sigmoid(xp[:, :u] + h @ rk[:, :u])
        r = sigmoid(xp[:, u:2 * u] + h @ rk[:, u:2 * u])
        cand = np.tanh(xp[:, 2 * u:] + (r * h) @ rk[:, 2 * u:])
        h = z * h + (1 - z) * cand
    logits = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"gru": h, "logits": logits}, sparse_xent(d["y"], logits))


def attention_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    x = d["x"]
    q = x @ p["query/kernel"] + p["query/bias"]
    k = x @ p["key/kernel"] + p["key/bias"]
    v = x @ p["value/kernel"] + p["value/bias"]
    scores = q @ np.swapaxes(k, 1, 2) / 2.0  # sqrt(key_dim 4)
    att = np.exp(scores - scores.max(axis=-1, keepdims=True))
    att /= att.sum(axis=-1, keepdims=True)
    attended = (att @ v) @ p["output/kernel"] + p["output/bias"]
    h = x + attended
    pooled = h.mean(axis=1)
    logits = pooled @ p["classifier/kernel"] + p["classifier/bias"]
    return Forward({"attention": attended, "residual": h, "pool": pooled, "logits": logits},
                   sparse_xent(d["y"], logits))


def resblock_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Dropout is the identity in both programs' debugging runs (keep_prob 1.0 /
    training=False)."""
    stem = relu(d["x"] @ p["stem/kernel"] + p["stem/bias"])
    inner = relu(stem @ p["block_a/kernel"] + p["block_a/bias"])
    inner = inner @ p["block_b/kernel"] + p["block_b/bias"]
    h = relu(stem + inner)
    logits = h @ p["head/kernel"] + p["head/bias"]
    return Forward({"stem": stem, "block": inner, "residual": h, "dropout": h,
                    "logits": logits},
                   dense_xent(d["y"], logits, o.get("label_smoothing", 0.0)))


# ------------------------------------------------------------------------- penalties

# ---------------------------------------------------------------------- the programs

def _kernels(names: tuple[str, ...], f: Callable[[np.ndarray], float]
             ) -> Callable[[Arrays], float]:
    return lambda p: sum(f(p[n]) for n in names)


RES_KERNELS = ("stem/kernel", "block_a/kernel", "block_b/kernel", "head/kernel")
tf1_moving = lambda decay: (lambda mv, b: mv - (mv - b) * (1 - decay))  # noqa: E731 assign_sub
keras_moving = lambda mom: (lambda mv, b: mv * mom + b * (1.0 - mom))  # noqa: E731

PROGRAMS: dict[str, Program] = {
    "tf1_mlp_nesterov.py": Program(mlp_nesterov_forward,
                                   lambda: TF1Momentum(0.9, nesterov=True), constant(0.05)),
    "tf2_mlp_nesterov_fn.py": Program(mlp_nesterov_forward,
                                      lambda: KerasSGD(0.9, nesterov=True), constant(0.05)),
    "tf1_mlp_piecewise.py": Program(mlp_piecewise_forward,
                                    lambda: TF1Momentum(0.9), piecewise([1], [0.1, 0.02]),
                                    steps=4),
    "tf2_mlp_momentum_schedule_eager.py": Program(mlp_piecewise_forward,
                                                  lambda: KerasSGD(0.9),
                                                  piecewise([1], [0.1, 0.02]), steps=4),
    "tf1_cnn_adam.py": Program(cnn_forward, lambda: TF1Adam(0.9, 0.99, 1e-7),
                               constant(0.01)),
    "tf2_cnn_flatten_eager.py": Program(cnn_forward, lambda: KerasAdam(0.9, 0.99),
                                        constant(0.01)),
    "tf2_cnn_adam_beta2_fn.py": Program(cnn_forward, lambda: KerasAdam(),
                                        constant(0.01)),
    "tf2_cnn_fit.py": Program(cnn_forward, lambda: KerasAdam(0.9, 0.99),
                              constant(0.01)),
    "tf2_cnn_fit_avgpool.py": Program(cnn_forward, lambda: KerasAdam(0.9, 0.99),
                                      constant(0.01), {"pool": "avg"}),
    "tf1_cnn_bn.py": Program(bn_forward, lambda: TF1Momentum(0.9), constant(0.05),
                             {"epsilon": 1e-5}, state_update=tf1_moving(0.9)),
    "tf2_bn_train_eager.py": Program(bn_forward, lambda: KerasSGD(0.9),
                                     constant(0.05), {"epsilon": 1e-5},
                                     state_update=keras_moving(0.9)),
    "tf2_bn_momentum_fn.py": Program(bn_forward, lambda: KerasSGD(0.9),
                                     constant(0.05), {"epsilon": 1e-5},
                                     state_update=keras_moving(0.99)),
    "tf2_bn_fit_epsilon.py": Program(bn_forward, lambda: KerasSGD(0.9),
                                     constant(0.05), {"epsilon": 1e-3},
                                     state_update=keras_moving(0.9)),
    "tf1_cnn_bninf.py": Program(bninf_forward, lambda: TF1Adagrad(0.1),
                                constant(0.1)),
    "tf2_bninf_fn.py": Program(bninf_forward, lambda: KerasAdagrad(0.1),
                               constant(0.1)),
    "tf2_bninf_training_eager.py": Program(bninf_forward,
                                           lambda: KerasAdagrad(0.1), constant(0.1),
                                           {"training": True},
                                           state_update=keras_moving(0.99)),
    "tf1_embed_rmsprop.py": Program(embed_forward,
                                    lambda: TF1RMSProp(0.9, 0.0, 1e-7), constant(0.01),
                                    penalty=lambda p: 0.01 * tf1_l2_loss(p["head/kernel"])),
    "tf2_embed_fit.py": Program(embed_forward,
                                lambda: KerasRMSprop(0.9, 1e-7, 1.0), constant(0.01),
                                penalty=lambda p: keras_l2(0.005, p["head/kernel"])),
    "tf2_embed_l2_eager.py": Program(embed_forward,
                                     lambda: KerasRMSprop(0.9, 1e-7, 1.0), constant(0.01),
                                     penalty=lambda p: keras_l2(0.01, p["head/kernel"])),
    "tf1_gru_adam.py": Program(gru_forward, lambda: TF1Adam(), constant(0.02),
                               clip=lambda g: clip_global(g, 0.25)),
    "tf2_gru_eager.py": Program(gru_forward, lambda: KerasAdam(eps=1e-8),
                                constant(0.02), clip=lambda g: clip_global(g, 0.25)),
    "tf2_gru_clipnorm_fn.py": Program(gru_forward, lambda: KerasAdam(eps=1e-8),
                                      constant(0.02), clip=lambda g: clip_each(g, 0.25)),
    "tf1_attention.py": Program(attention_forward, TF1SGD,
                                exp_staircase(0.2, 2, 0.5), clip=lambda g: clip_value(g, 0.1)),
    "tf2_attention_fn.py": Program(attention_forward, KerasSGD,
                                   exp_staircase(0.2, 2, 0.5),
                                   clip=lambda g: clip_value(g, 0.1)),
    "tf2_attention_fit.py": Program(attention_forward, KerasSGD,
                                    exp_staircase(0.2, 1, 0.5),
                                    clip=lambda g: clip_value(g, 0.1)),
    "tf1_resblock.py": Program(resblock_forward, TF1SGD, constant(0.1),
                               {"label_smoothing": 0.1},
                               penalty=_kernels(RES_KERNELS, lambda w: 5e-3 * tf1_l2_loss(w))),
    "tf2_resblock_fn.py": Program(resblock_forward, KerasSGD, constant(0.1),
                                  {"label_smoothing": 0.1},
                                  penalty=_kernels(RES_KERNELS, lambda w: keras_l2(2.5e-3, w))),
    "tf2_resblock_weight_decay_eager.py": Program(
        resblock_forward, lambda: KerasSGD(weight_decay=5e-3), constant(0.1),
        {"label_smoothing": 0.1}, penalty=_kernels(RES_KERNELS, lambda w: keras_l2(2.5e-3, w))),
    "tf2_resblock_label_smoothing_fn.py": Program(
        resblock_forward, KerasSGD, constant(0.1),
        penalty=_kernels(RES_KERNELS, lambda w: keras_l2(2.5e-3, w))),
}


# ----------------------------------------------------------------------- trajectories

def trajectory(name: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them (`migration_numpy.run`)."""
    return run(PROGRAMS[name], *program_data(name))
