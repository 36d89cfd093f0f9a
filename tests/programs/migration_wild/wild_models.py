"""Numpy (float64) models of the wild programs, written from the TF1 and Keras semantics, not
from TensorFlow: each architecture's forward pass and each program's training steps, from the
data and weights of wild_data.py with the optimizers of ../migration_numpy.py and the ones
this corpus adds (decoupled weight decay, centered RMSProp with momentum).

Used by verify.py (no TensorFlow is imported here). Gradients are central finite differences
of the total loss in float64 (see migration_numpy.fd_gradient).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from migration_numpy import (
    Arrays,
    Forward,
    KerasAdam,
    KerasSGD,
    Program,
    TF1Adam,
    TF1Momentum,
    clip_each,
    clip_value,
    constant,
    exp_staircase,
    keras_l2,
    relu,
    run,
    sigmoid,
    sparse_xent,
    tf1_l2_loss,
)

from wild_data import program_data

# ----------------------------------------------------------------------- optimizers


class TF1AdamDecay(TF1Adam):
    """tf1_cnn_adamw.py: var -= lr*wd*var (after the gradients, before Adam), then Adam."""

    def __init__(self, wd: float) -> None:
        super().__init__(0.9, 0.999, 1e-8)
        self.wd = wd

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        return super().step({n: w - lr * self.wd * w for n, w in v.items()}, g, lr)


class KerasAdamW(KerasAdam):
    """keras AdamW: _apply_weight_decay (var -= var*wd*lr) before update_step (Adam)."""

    def __init__(self, wd: float) -> None:
        super().__init__(0.9, 0.999, 1e-8)
        self.wd = wd

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        return super().step({n: w - w * self.wd * lr for n, w in v.items()}, g, lr)


class TF1CenteredRMSProp:
    """RMSPropOptimizer(centered=True): ms starts at 1.0, mg at 0; ms += (g^2-ms)(1-decay);
    mg += (g-mg)(1-decay); mom = momentum*mom + lr*g/sqrt(ms - mg^2 + eps); var -= mom."""

    def __init__(self, decay: float, momentum: float, eps: float) -> None:
        self.decay, self.momentum, self.eps = decay, momentum, eps
        self.ms: Arrays = {}
        self.mg: Arrays = {}
        self.mom: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            ms = self.ms.get(n, np.ones_like(v[n]))
            ms = self.ms[n] = ms + (g[n] ** 2 - ms) * (1 - self.decay)
            mg = self.mg.get(n, np.zeros_like(v[n]))
            mg = self.mg[n] = mg + (g[n] - mg) * (1 - self.decay)
            root = np.sqrt(ms - mg ** 2 + self.eps)
            mom = self.momentum * self.mom.get(n, 0.0) + lr * g[n] / root
            self.mom[n] = mom
            out[n] = v[n] - mom
        return out


class KerasRMSpropFull:
    """keras RMSprop: vel = rho*vel + (1-rho)g^2 (vel from `initial`); centered: avg = rho*avg +
    (1-rho)g, denominator vel - avg^2 + eps, else vel + eps; increment = lr*g/sqrt(denominator);
    momentum: mom = momentum*mom + increment, var -= mom."""

    def __init__(self, rho: float, momentum: float, eps: float, centered: bool,
                 initial: float) -> None:
        self.rho, self.momentum, self.eps = rho, momentum, eps
        self.centered, self.initial = centered, initial
        self.vel: Arrays = {}
        self.avg: Arrays = {}
        self.mom: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            vel = self.rho * self.vel.get(n, np.full_like(v[n], self.initial)) \
                + (1 - self.rho) * g[n] ** 2
            self.vel[n] = vel
            if self.centered:
                avg = self.rho * self.avg.get(n, np.zeros_like(v[n])) + (1 - self.rho) * g[n]
                self.avg[n] = avg
                denominator = vel - avg ** 2 + self.eps
            else:
                denominator = vel + self.eps
            increment = lr * g[n] / np.sqrt(denominator)
            mom = self.momentum * self.mom.get(n, 0.0) + increment
            self.mom[n] = mom
            out[n] = v[n] - mom
        return out


def exp_smooth(lr0: float, decay_steps: int, rate: float) -> Callable[[int], float]:
    """ExponentialDecay without staircase: lr0 * rate^(step/decay_steps)."""
    return lambda step: lr0 * rate ** (step / decay_steps)


# ----------------------------------------------------------------------- forward passes

def lstm_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Gates i, f, c, o (Keras' order, TF1 written alike), no forget bias, last state."""
    x = d["x"]
    h = np.zeros((len(x), 3))
    c = np.zeros((len(x), 3))
    for t in range(x.shape[1]):
        z = x[:, t, :] @ p["lstm/kernel"] + h @ p["lstm/recurrent_kernel"] + p["lstm/bias"]
        i, f, g, out = np.split(z, 4, axis=1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(out) * np.tanh(c)
    logits = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"lstm": h, "logits": logits}, sparse_xent(d["y"], logits))


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


def cnn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """conv SAME + relu, 2x2 max pool, dropout as the identity (keep_prob 1.0, training=False,
    or no layer), flatten, dense."""
    conv = relu(conv2d_same(d["x"], p["conv/kernel"]) + p["conv/bias"])
    n, hh, ww, c = conv.shape
    pooled = conv.reshape(n, hh // 2, 2, ww // 2, 2, c).max(axis=(2, 4))
    flat = pooled.reshape(n, -1)
    logits = flat @ p["fc/kernel"] + p["fc/bias"]
    return Forward({"conv": conv, "pool": pooled, "flatten": flat, "logits": logits},
                   sparse_xent(d["y"], logits))


def twoinput_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Huber: 0.5 e^2 where |e| <= delta, else delta (|e| - delta/2); the mean (one column)."""
    ha = relu(d["xa"] @ p["branch_a/kernel"] + p["branch_a/bias"])
    hb = np.tanh(d["xb"] @ p["branch_b/kernel"] + p["branch_b/bias"])
    merged = np.concatenate([ha, hb], axis=1)
    pred = merged @ p["head/kernel"] + p["head/bias"]
    delta = o["delta"]
    err = np.abs(pred - d["t"])
    huber = np.where(err <= delta, 0.5 * err ** 2, delta * err - 0.5 * delta ** 2)
    return Forward({"branch_a": ha, "branch_b": hb, "concat": merged, "head": pred},
                   float(huber.mean()))


def separable_same(x: np.ndarray, dw: np.ndarray, pw: np.ndarray) -> np.ndarray:
    """Depthwise 3x3 SAME (multiplier 1) then a 1x1 pointwise convolution."""
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    h, w = x.shape[1], x.shape[2]
    depth = np.zeros_like(x)
    for a in range(3):
        for b in range(3):
            depth += xp[:, a:a + h, b:b + w, :] * dw[a, b, :, 0]
    return np.einsum("nhwc,co->nhwo", depth, pw[0, 0])


def sepconv_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Group norm: per example, over the pixels and the channels of each group of consecutive
    channels (biased variance, eps 1e-5 as TF1 wrote it, or Keras' default 1e-3). The loss:
    sigmoid cross-entropy on the logits, or
    (from_logits forgotten) Keras' binary cross-entropy of the logits taken as probabilities,
    clipped to [1e-7, 1 - 1e-7] (the upper bound as float32 rounds it)."""
    sep = separable_same(d["x"], p["sep/depthwise_kernel"], p["sep/pointwise_kernel"])
    sep = sep + p["sep/bias"]
    n, h, w, c = sep.shape
    groups = o["groups"]
    g = sep.reshape(n, h, w, groups, c // groups)
    mean = g.mean(axis=(1, 2, 4), keepdims=True)
    var = ((g - mean) ** 2).mean(axis=(1, 2, 4), keepdims=True)
    gn = ((g - mean) / np.sqrt(var + o["epsilon"])).reshape(n, h, w, c)
    gn = gn * p["gn/gamma"] + p["gn/beta"]
    act = relu(gn)
    pooled = act.mean(axis=(1, 2))
    logits = pooled @ p["head/kernel"] + p["head/bias"]
    y = d["y"]
    if o.get("from_logits", True):
        per = np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits)))
    else:
        q = np.clip(logits, float(np.float32(1e-7)), float(np.float32(1.0 - 1e-7)))
        per = -(y * np.log(q) + (1 - y) * np.log(1 - q))
    return Forward({"sep": sep, "gn": gn, "relu": act, "pool": pooled, "logits": logits},
                   float(per.mean()))


def mlp_bn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """dense (no bias) -> batch norm on the batch's statistics (biased variance, eps 1e-3)
    -> relu -> dense; mean squared error."""
    hidden = d["x"] @ p["hidden/kernel"]
    mean = hidden.mean(axis=0)
    var = ((hidden - mean) ** 2).mean(axis=0)
    bn = p["bn/gamma"] * (hidden - mean) / np.sqrt(var + 1e-3) + p["bn/beta"]
    act = relu(bn)
    pred = act @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": hidden, "bn": bn, "relu": act, "head": pred},
                   float(((pred - d["t"]) ** 2).mean()), (mean, var))


# ---------------------------------------------------------------------- the programs

def _lstm(tf1: bool = False, nesterov: bool = True, on: str = "lstm/recurrent_kernel"
          ) -> Program:
    if tf1:
        return Program(lstm_forward, lambda: TF1Momentum(0.9, nesterov=True), constant(0.1),
                       penalty=lambda p: 1e-3 * tf1_l2_loss(p["lstm/recurrent_kernel"]))
    return Program(lstm_forward, lambda: KerasSGD(0.9, nesterov=nesterov), constant(0.1),
                   penalty=lambda p: keras_l2(5e-4, p[on]))


_CNN_LR = exp_staircase(0.01, 2, 0.5)


def _cnn(tf1: bool = False, wd: float = 0.05,
         lr: Callable[[int], float] = _CNN_LR) -> Program:
    if tf1:
        return Program(cnn_forward, lambda: TF1AdamDecay(0.05), _CNN_LR)
    return Program(cnn_forward, lambda: KerasAdamW(wd), lr)


def _twoinput(tf1: bool = False, delta: float = 0.5, centered: bool = True) -> Program:
    if tf1:
        return Program(twoinput_forward, lambda: TF1CenteredRMSProp(0.9, 0.5, 1e-6),
                       constant(0.01), {"delta": 0.5})
    return Program(twoinput_forward,
                   lambda: KerasRMSpropFull(0.9, 0.5, 1e-6, centered, initial=1.0),
                   constant(0.01), {"delta": delta})


def _sepconv(tf1: bool = False, epsilon: float = 1e-5, from_logits: bool = True) -> Program:
    opt = (lambda: TF1Adam(0.9, 0.999, 1e-8)) if tf1 else (lambda: KerasAdam(0.9, 0.999, 1e-8))
    return Program(sepconv_forward, opt, constant(0.02),
                   {"groups": 2, "epsilon": epsilon, "from_logits": from_logits},
                   clip=lambda g: clip_each(g, 0.5))


def _mlp_bn(clip: Callable[[Arrays], Arrays] = lambda g: clip_value(g, 0.2)) -> Program:
    """TF1 GradientDescent and Keras SGD without momentum are the same rule; TF1's
    `mv*0.9 + b*0.1` is Keras' `mv*momentum + b*(1-momentum)` with momentum 0.9."""
    return Program(mlp_bn_forward, KerasSGD, constant(0.05), clip=clip,
                   state_update=lambda mv, b: mv * 0.9 + b * 0.1)


PROGRAMS: dict[str, Program] = {
    "tf1_lstm.py": _lstm(tf1=True),
    "tf2_lstm_fn.py": _lstm(),
    "tf2_lstm_regularizer_eager.py": _lstm(on="lstm/kernel"),
    "tf2_lstm_nesterov_fit.py": _lstm(nesterov=False),
    "tf1_cnn_adamw.py": _cnn(tf1=True),
    "tf2_cnn_adamw_eager.py": _cnn(),
    "tf2_cnn_staircase_fit.py": _cnn(lr=exp_smooth(0.01, 2, 0.5)),
    "tf2_cnn_decay_fn.py": _cnn(wd=0.01 * 0.05),
    "tf1_twoinput_huber.py": _twoinput(tf1=True),
    "tf2_twoinput_fit.py": _twoinput(),
    "tf2_twoinput_delta_eager.py": _twoinput(delta=1.0),
    "tf2_twoinput_centered_fn.py": _twoinput(centered=False),
    "tf1_sepconv_gn.py": _sepconv(tf1=True),
    "tf2_sepconv_gn_fn.py": _sepconv(),
    "tf2_sepconv_gn_eager.py": _sepconv(),
    "tf2_sepconv_from_logits_fit.py": _sepconv(from_logits=False),
    "tf2_sepconv_epsilon_fn.py": _sepconv(epsilon=1e-3),
    "tf1_mlp_bn.py": _mlp_bn(),
    "tf2_mlp_bn_fit.py": _mlp_bn(),
    "tf2_mlp_bn_ckpt_fn.py": _mlp_bn(),
    "tf2_mlp_bn_clipnorm_eager.py": _mlp_bn(clip=lambda g: clip_each(g, 0.2)),
    "tf2_mlp_bn_restore_eager.py": _mlp_bn(),
}


def trajectory(name: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them (`migration_numpy.run`)."""
    return run(PROGRAMS[name], *program_data(name))
