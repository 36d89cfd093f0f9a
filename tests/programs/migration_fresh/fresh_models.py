"""Numpy (float64) models of the fresh programs, written from the TF1 and Keras semantics, not
from TensorFlow: each architecture's forward pass and each program's training steps, from
the data and weights of fresh_data.py with the optimizers of ../migration_numpy.py.

Used by verify.py (no TensorFlow is imported here). Gradients are central finite differences
of the total loss in float64 (exact enough: every margin claimed is orders above their error,
and two sides with the same formula get bit-identical differences).
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
    clip_global,
    clip_value,
    constant,
    exp_staircase,
    keras_l2,
    log_softmax,
    piecewise,
    relu,
    run,
    sparse_xent,
    tf1_l2_loss,
)

from fresh_data import program_data

# ----------------------------------------------------------------------- forward passes

def smoothed_xent(labels: np.ndarray, logits: np.ndarray, smoothing: float) -> np.ndarray:
    """Per-example cross-entropy against labels smoothed towards uniform (both APIs:
    labels*(1-s) + s/classes)."""
    n = labels.shape[-1]
    labels = labels * (1.0 - smoothing) + smoothing / n
    return -(labels * log_softmax(logits)).sum(axis=-1)


def conv2d_same(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """NHWC convolution, stride 1, SAME (odd kernels: the same padding on both sides)."""
    kh, kw = k.shape[:2]
    x = np.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for a in range(kh):
        for b in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, a:a + oh, b:b + ow, :], k[a, b])
    return out


def conv1d_same(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """NWC convolution, stride 1, SAME, an odd kernel width."""
    kw = k.shape[0]
    x = np.pad(x, ((0, 0), (kw // 2, kw // 2), (0, 0)))
    ow = x.shape[1] - kw + 1
    return sum(np.einsum("nwc,co->nwo", x[:, a:a + ow, :], k[a]) for a in range(kw))


def depthwise_valid(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Depthwise NHWC convolution, VALID, stride 1; output channel c*multiplier + m."""
    kh, kw, c, mult = k.shape
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = np.zeros((x.shape[0], oh, ow, c, mult))
    for a in range(kh):
        for b in range(kw):
            out += x[:, a:a + oh, b:b + ow, :, None] * k[a, b]
    return out.reshape(x.shape[0], oh, ow, c * mult)


def maxpool2(x: np.ndarray) -> np.ndarray:
    n, h, w, c = x.shape
    return x.reshape(n, h // 2, 2, w // 2, 2, c).max(axis=(2, 4))


def twohead_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    h = relu(d["x"] @ p["trunk/kernel"] + p["trunk/bias"])
    cls = h @ p["cls/kernel"] + p["cls/bias"]
    reg = h @ p["reg/kernel"] + p["reg/bias"]
    sq = (reg - d["target"]) ** 2
    # mean over everything (TF1 mean_squared_error, Keras sum_over_batch_size), or Keras
    # reduction="sum": the per-example means summed over the batch
    reg_loss = sq.mean(axis=-1).sum() if o.get("reg_sum") else sq.mean()
    return Forward({"trunk": h, "cls": cls, "reg": reg},
                   sparse_xent(d["y"], cls) + 0.5 * float(reg_loss))


def conv1d_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    conv = relu(conv1d_same(d["x"], p["conv/kernel"]) + p["conv/bias"])
    mean = conv.mean(axis=-1, keepdims=True)
    var = ((conv - mean) ** 2).mean(axis=-1, keepdims=True)
    ln = (conv - mean) / np.sqrt(var + o["epsilon"]) * p["ln/gamma"] + p["ln/beta"]
    flat = ln.reshape(len(ln), -1)
    logits = flat @ p["out/kernel"] + p["out/bias"]
    return Forward({"conv": conv, "ln": ln, "flatten": flat, "logits": logits},
                   sparse_xent(d["y"], logits))


def depthwise_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """depthwise conv -> batch norm on the batch's statistics (biased variance, eps 1e-3)
    -> relu -> global average pool -> dense."""
    dw = depthwise_valid(d["x"], p["dw/depthwise_kernel"])
    mean = dw.mean(axis=(0, 1, 2))
    var = ((dw - mean) ** 2).mean(axis=(0, 1, 2))
    bn = p["bn/gamma"] * (dw - mean) / np.sqrt(var + 1e-3) + p["bn/beta"]
    act = relu(bn)
    pooled = act.mean(axis=(1, 2))
    logits = pooled @ p["head/kernel"] + p["head/bias"]
    return Forward({"dw": dw, "bn": bn, "relu": act, "pool": pooled, "logits": logits},
                   sparse_xent(d["y"], logits), (mean, var))


def mlp_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Dropout is the identity (keep_prob 1.0, training=False, rate 0.0). The weighted loss:
    sum(w*l)/N in both APIs (TF1's SUM_BY_NONZERO_WEIGHTS with no zero weight; Keras'
    sum_over_batch_size)."""
    hidden = relu(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    logits = hidden @ p["out/kernel"] + p["out/bias"]
    per_example = smoothed_xent(d["y"], logits, 0.1)
    weights = d["w"] if o.get("sample_weight", True) else np.ones(len(per_example))
    return Forward({"hidden": hidden, "dropout": hidden, "logits": logits},
                   float((weights * per_example).sum() / len(per_example)))


def cnn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    conv = relu(conv2d_same(d["x"], p["conv/kernel"]) + p["conv/bias"])
    pooled = maxpool2(conv)
    flat = pooled.reshape(len(pooled), -1)
    logits = flat @ p["fc/kernel"] + p["fc/bias"]
    return Forward({"conv": conv, "pool": pooled, "flatten": flat, "logits": logits},
                   sparse_xent(d["y"], logits))


# ------------------------------------------------------------------------- penalties

MLP_KERNELS = ("hidden/kernel", "out/kernel")


def _tf1_mlp_penalty(p: Arrays) -> float:
    return 1e-3 * sum(tf1_l2_loss(p[n]) for n in MLP_KERNELS)


def _keras_mlp_penalty(p: Arrays) -> float:
    return sum(keras_l2(5e-4, p[n]) for n in MLP_KERNELS)


# ---------------------------------------------------------------------- the programs

tf1_assign_average = lambda decay: (lambda mv, b: mv * decay + b * (1 - decay))  # noqa: E731
keras_moving = lambda mom: (lambda mv, b: mv * mom + b * (1.0 - mom))  # noqa: E731

_ADAM_TF1 = lambda: TF1Adam(0.8, 0.95, 1e-6)  # noqa: E731
_ADAM_KERAS = lambda: KerasAdam(0.8, 0.95, 1e-6)  # noqa: E731
_C1D_LR = exp_staircase(0.2, 2, 0.5)
_DW_LR = piecewise([1], [0.1, 0.05])


def _c1d(clip: bool = True, epsilon: float = 1e-5, tf1: bool = False) -> Program:
    return Program(conv1d_forward, TF1SGD if tf1 else KerasSGD, _C1D_LR, {"epsilon": epsilon},
                   clip=(lambda g: clip_global(g, 0.5)) if clip else None, steps=4)


def _dw(tf1: bool = False, initial: float = 0.5, momentum: float = 0.95,
        lr: Callable[[int], float] = _DW_LR, updates: bool = True) -> Program:
    if tf1:
        return Program(depthwise_forward, lambda: TF1Adagrad(initial), lr,
                       state_update=tf1_assign_average(momentum) if updates else None)
    return Program(depthwise_forward, lambda: KerasAdagrad(initial), lr,
                   state_update=keras_moving(momentum))


def _mlp(tf1: bool = False, penalty: bool = True, sample_weight: bool = True) -> Program:
    if tf1:
        return Program(mlp_forward, lambda: TF1Momentum(0.9), constant(0.05),
                       penalty=_tf1_mlp_penalty)
    return Program(mlp_forward, lambda: KerasSGD(0.9), constant(0.05),
                   {"sample_weight": sample_weight},
                   penalty=_keras_mlp_penalty if penalty else None)


def _cnn(tf1: bool = False, velocities: float = 1.0) -> Program:
    if tf1:
        return Program(cnn_forward, lambda: TF1RMSProp(0.9, 0.0, 1e-6), constant(0.01),
                       clip=lambda g: clip_value(g, 0.05))
    return Program(cnn_forward, lambda: KerasRMSprop(0.9, 1e-6, velocities), constant(0.01),
                   clip=lambda g: clip_value(g, 0.05))


PROGRAMS: dict[str, Program] = {
    "tf1_twohead_adam.py": Program(twohead_forward, _ADAM_TF1, constant(0.02)),
    "tf2_twohead_functional_fit.py": Program(twohead_forward, _ADAM_KERAS, constant(0.02)),
    "tf2_twohead_eager.py": Program(twohead_forward, _ADAM_KERAS, constant(0.02)),
    "tf2_twohead_beta1_eager.py": Program(twohead_forward, lambda: KerasAdam(0.9, 0.95, 1e-6),
                                          constant(0.02)),
    "tf2_twohead_sum_reduction_fn.py": Program(twohead_forward, _ADAM_KERAS, constant(0.02),
                                               {"reg_sum": True}),
    "tf1_conv1d_layernorm.py": _c1d(tf1=True),
    "tf2_conv1d_seq_fit.py": _c1d(),
    "tf2_conv1d_clip_forgotten_eager.py": _c1d(clip=False),
    "tf2_conv1d_lr_subclass_fn.py": _c1d(),
    "tf2_conv1d_ln_epsilon_fn.py": _c1d(epsilon=1e-3),
    "tf1_depthwise_bn.py": _dw(tf1=True),
    "tf1_depthwise_bn_no_update_ops.py": _dw(tf1=True, updates=False),
    "tf2_depthwise_fn.py": _dw(),
    "tf2_depthwise_eager.py": _dw(),
    "tf2_depthwise_accumulator_fn.py": _dw(initial=0.1),
    "tf2_depthwise_bn_momentum_eager.py": _dw(momentum=0.99),
    "tf2_depthwise_piecewise_fit.py": _dw(lr=piecewise([2], [0.1, 0.05])),
    "tf1_mlp_smooth.py": _mlp(tf1=True),
    "tf2_mlp_l2_eager.py": _mlp(),
    "tf2_mlp_train_step_fit.py": _mlp(),
    "tf2_mlp_penalty_forgotten_fit.py": _mlp(penalty=False),
    "tf2_mlp_sample_weight_forgotten_fn.py": _mlp(sample_weight=False),
    "tf1_cnn_rmsprop.py": _cnn(tf1=True),
    "tf2_cnn_rmsprop_fit.py": _cnn(),
    "tf2_cnn_rmsprop_init_eager.py": _cnn(velocities=0.0),
    "tf2_cnn_restore_bias_fn.py": _cnn(),
}


# ----------------------------------------------------------------------- trajectories

def trajectory(name: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them (`migration_numpy.run`)."""
    return run(PROGRAMS[name], *program_data(name))
