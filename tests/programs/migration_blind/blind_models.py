"""Numpy (float64) models of the blind programs, written from the TF1 and Keras semantics, not
from TensorFlow: each architecture's forward pass and each program's training steps, from the
data and weights of blind_data.py, with the optimizers of ../migration_numpy.py and
blind_steps.py. Used by verify.py (no TensorFlow is imported here).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from migration_numpy import (
    TF1SGD,
    Arrays,
    Forward,
    KerasSGD,
    TF1Momentum,
    relu,
    sigmoid,
    sparse_xent,
)

from blind_data import program_data
from blind_steps import (
    KerasAdadelta,
    KerasFtrl,
    Steps,
    TF1Adadelta,
    TF1Ftrl,
    inverse_time,
    keras_cosine_warmup,
    run_steps,
    tf1_warmup_cosine,
)

_ERF = np.vectorize(math.erf)


def gelu(a: np.ndarray, approximate: bool) -> np.ndarray:
    """tanh approximation (BERT's, tf.nn.gelu(approximate=True)) or the exact erf form
    (Keras' "gelu")."""
    if approximate:
        return 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
    return 0.5 * a * (1.0 + _ERF(a / math.sqrt(2.0)))


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def sigmoid_xent(labels: np.ndarray, logits: np.ndarray) -> float:
    """Mean of max(z,0) - z*y + log(1 + exp(-|z|)) over every element."""
    per = np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))
    return float(per.mean())


# ----------------------------------------------------------------------- forward passes

def mha_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Two heads of 2 on D=4 (the (4, 4) projections split as (heads, key_dim)), softmax over
    the keys of Q K^T / sqrt(2), heads concatenated, output projection, residual, gelu
    feed-forward, mean over time, classifier."""
    x = d["x"]
    n, t, _ = x.shape

    def heads(name: str) -> np.ndarray:
        return (x @ p[f"{name}/kernel"] + p[f"{name}/bias"]).reshape(n, t, 2, 2)

    q, k, v = heads("query"), heads("key"), heads("value")
    weights = softmax(np.einsum("bihk,bjhk->bhij", q, k) / math.sqrt(2.0))
    context = np.einsum("bhij,bjhk->bihk", weights, v).reshape(n, t, 4)
    attended = context @ p["output/kernel"] + p["output/bias"]
    h = x + attended
    ffn = gelu(h @ p["ffn/kernel"] + p["ffn/bias"], o["approximate"])
    pooled = ffn.mean(axis=1)
    logits = pooled @ p["classifier/kernel"] + p["classifier/bias"]
    return Forward({"attention": attended, "residual": h, "ffn": ffn, "pool": pooled,
                    "logits": logits}, sparse_xent(d["y"], logits))


CLASS_WEIGHTS = np.array([1.0, 2.0, 0.5])


def conv1d_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """3 taps at dilation 2 (span 5), padded causally (4 on the left) or 'same' (2 and 2),
    relu, mean over time, dense; the cross-entropy weighted by class, divided by the batch."""
    x = d["x"]
    left = 4 if o["padding"] == "causal" else 2
    xp = np.pad(x, ((0, 0), (left, 4 - left), (0, 0)))
    steps = x.shape[1]
    conv = sum(np.einsum("btc,co->bto", xp[:, 2 * j:2 * j + steps, :], p["conv/kernel"][j])
               for j in range(3)) + p["conv/bias"]
    act = relu(conv)
    pooled = act.mean(axis=1)
    logits = pooled @ p["fc/kernel"] + p["fc/bias"]
    y = d["y"]
    z = logits - logits.max(axis=1, keepdims=True)
    per = -(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1)))
    return Forward({"conv": act, "pool": pooled, "logits": logits},
                   float((CLASS_WEIGHTS[y] * per).mean()))


def frozen_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    hidden = np.tanh(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    logits = hidden @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": hidden, "logits": logits}, sigmoid_xent(d["y"], logits))


def accum_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    hidden = relu(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    logits = hidden @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": hidden, "logits": logits}, sparse_xent(d["y"], logits))


def l1l2_penalty(p: Arrays, fw: Forward) -> float:
    """1e-3*sum|w| + 1e-3*sum w^2 of both kernels (TF1's hand-written sum, Keras' L1L2)."""
    return float(sum(1e-3 * np.abs(p[k]).sum() + 1e-3 * (p[k] ** 2).sum()
                     for k in ("hidden/kernel", "out/kernel")))


def leaky_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    pre = d["x"] @ p["hidden/kernel"] + p["hidden/bias"]
    hidden = np.where(pre > 0, pre, o["slope"] * pre)
    logits = hidden @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": hidden, "logits": logits}, sparse_xent(d["y"], logits))


def activity_penalty(p: Arrays, fw: Forward) -> float:
    """1e-2 * sum|h| / batch: TF1's mean over the batch of each example's L1 norm; Keras 3's
    activity_regularizer L1(1e-2) of the layer's output normalized by the batch size."""
    h = fw.layers["hidden"]
    return float(1e-2 * np.abs(h).sum() / len(h))


def ftrl_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    logits = d["x"] @ p["linear/kernel"] + p["linear/bias"]
    return Forward({"logits": logits, "probability": sigmoid(logits)},
                   sigmoid_xent(d["y"], logits))


# ---------------------------------------------------------------------- the programs

def _const(lr: float) -> Any:
    return lambda step: lr


def _mha(tf1: bool = False, epsilon: float = 1e-8, approximate: bool = True) -> Steps:
    opt = (lambda: TF1Adadelta(0.95, 1e-8)) if tf1 else (lambda: KerasAdadelta(0.95, epsilon))
    return Steps(mha_forward, opt, _const(1.0), {"approximate": approximate})


def _conv1d(tf1: bool = False, padding: str = "causal", decay_steps: int = 4) -> Steps:
    lr = tf1_warmup_cosine if tf1 else keras_cosine_warmup(decay_steps)
    return Steps(conv1d_forward, TF1SGD if tf1 else KerasSGD, lr, {"padding": padding},
                 steps=4)


_HEAD = ("out/kernel", "out/bias")


def _frozen(trainable: tuple[str, ...] | None = _HEAD, offset: int = 0,
            keras: bool = False) -> Steps:
    return Steps(frozen_forward, KerasSGD if keras else TF1SGD, inverse_time(offset),
                 trainable=trainable)


def _accum(tf1: bool = False, reset: bool = True) -> Steps:
    opt = (lambda: TF1Momentum(0.9)) if tf1 else (lambda: KerasSGD(0.9))
    return Steps(accum_forward, opt, _const(0.1), penalty=l1l2_penalty, micro=2, reset=reset)


def _leaky(tf1: bool = False, slope: float = 0.2) -> Steps:
    return Steps(leaky_forward, TF1SGD if tf1 else KerasSGD, _const(0.2), {"slope": slope},
                 penalty=activity_penalty)


def _ftrl(tf1: bool = False, l1: float = 0.01) -> Steps:
    opt = (lambda: TF1Ftrl(0.01, 0.01)) if tf1 else (lambda: KerasFtrl(l1, 0.01))
    return Steps(ftrl_forward, opt, _const(0.5))


PROGRAMS: dict[str, Steps] = {
    "tf1_mha.py": _mha(tf1=True),
    "tf2_mha_fn.py": _mha(),
    "tf2_mha_adadelta_eager.py": _mha(epsilon=1e-7),
    "tf2_mha_gelu_fit.py": _mha(approximate=False),
    "tf1_conv1d.py": _conv1d(tf1=True),
    "tf2_conv1d_fit.py": _conv1d(),
    "tf2_conv1d_causal_eager.py": _conv1d(padding="same"),
    "tf2_conv1d_warmup_fn.py": _conv1d(decay_steps=6),
    "tf1_frozen.py": _frozen(),
    "tf2_frozen_module_fn.py": _frozen(),
    "tf2_frozen_offbyone_eager.py": _frozen(offset=1),
    "tf2_frozen_fit.py": _frozen(keras=True),
    "tf2_frozen_unfrozen_fn.py": _frozen(trainable=None, keras=True),
    "tf1_accum.py": _accum(tf1=True),
    "tf2_accum_eager.py": _accum(),
    "tf2_accum_fit.py": _accum(),
    "tf2_accum_reset_fn.py": _accum(reset=False),
    "tf1_leaky_ckpt.py": _leaky(tf1=True),
    "tf2_leaky_ckpt_fn.py": _leaky(),
    "tf2_leaky_slope_eager.py": _leaky(slope=0.3),
    "tf2_leaky_key_fit.py": _leaky(),
    "tf1_ftrl.py": _ftrl(tf1=True),
    "tf2_ftrl_eager.py": _ftrl(),
    "tf2_ftrl_l1_fn.py": _ftrl(l1=0.0),
}

# programs whose starting weights are not the saved ones: the real run's own (its trace's
# "initial", a seeded Keras initializer the restore did not overwrite)
FROM_TRACE = ("tf2_leaky_key_fit.py",)


def trajectory(name: str, initial: Arrays | None = None) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them; `initial` replaces the saved
    starting weights (FROM_TRACE programs)."""
    data, params = program_data(name)
    if initial is not None:
        params = {n: np.asarray(initial[n], np.float32).astype(np.float64) for n in params}
    return run_steps(PROGRAMS[name], data, params)
