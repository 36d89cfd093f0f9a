"""Numpy (float64) models of the second blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass, AMSGrad as a TF1 user wrote
it and as Keras 3's Adam(amsgrad=True) writes it, the polynomial decay of each API, and every
program's starting weights (the saved arrays, or what a buggy restore made of them). The
step loop is ../migration_numpy.run (gradients by central differences of the loss).
No TensorFlow is imported here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from migration_numpy import (
    TF1SGD,
    Arrays,
    Forward,
    KerasSGD,
    Program,
    TF1Momentum,
    log_softmax,
    relu,
    run,
    sigmoid,
)


def _own_prepare_data() -> object:
    """This corpus's prepare_data.py, loaded by its path: every corpus has one, and a pytest
    process that imports two corpora would otherwise get the first one's for both."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "migration_blind2_prepare_data", Path(__file__).with_name("prepare_data.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ARRAYS = _own_prepare_data().ARRAYS  # type: ignore[attr-defined]

# ---------------------------------------------------------------------- data


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model, float32 values widened to float64
    (token and label ids kept as integers)."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: arrays[k] if arrays[k].dtype.kind == "i" else
             np.asarray(arrays[k], np.float32).astype(np.float64) for k in ("x", "y")}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if k not in ("x", "y")}
    return batch, weights


# ---------------------------------------------------------------------- forward passes

def _rnn(e: np.ndarray, p: Arrays, d: str) -> np.ndarray:
    """Simple RNN states h_t = tanh(x_t W + b + h_{t-1} U), h_0 = 0 (Keras' SimpleRNN cell)."""
    h = np.zeros((e.shape[0], 3))
    states = []
    for t in range(e.shape[1]):
        h = np.tanh(e[:, t] @ p[f"{d}/kernel"] + p[f"{d}/bias"] + h @ p[f"{d}/recurrent_kernel"])
        states.append(h)
    return np.stack(states, axis=1)


def tagger_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Embedding, forward RNN, backward RNN over the reversed sentence (its states reversed
    back unless o['flip'] is False), concatenated, a dense layer per token; the cross-entropy
    of the real tokens (tag != 0) divided by their count (o['mean'] 'valid') or by every
    position ('all': a sample weight of 0 on the pads under Keras' sum_over_batch_size)."""
    e = p["embedding/embeddings"][d["x"]]
    fwd = _rnn(e, p, "fwd")
    bwd = _rnn(e[:, ::-1], p, "bwd")
    if o["flip"]:
        bwd = bwd[:, ::-1]
    both = np.concatenate([fwd, bwd], axis=-1)
    logits = both @ p["tags/kernel"] + p["tags/bias"]
    y = d["y"]
    ce = -np.take_along_axis(log_softmax(logits), y[..., None], axis=-1)[..., 0]
    mask = (y != 0).astype(np.float64)
    total = mask.sum() if o["mean"] == "valid" else mask.size
    return Forward({"embed": e, "fwd": fwd, "bwd": bwd, "concat": both, "logits": logits},
                   float((ce * mask).sum() / total))


def conv_transpose(x: np.ndarray, k: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Stride-2 'same' transposed convolution (the gradient of a 3x3 stride-2 SAME conv of a
    2H x 2W input: padding 0 before, 1 after): kernel (h, w, out, in); each input pixel adds
    its kernel-weighted patch at (2i, 2j); the last row and column are cropped."""
    n, hh, ww, _ = x.shape
    kh, kw, out, _ = k.shape
    full = np.zeros((n, 2 * (hh - 1) + kh, 2 * (ww - 1) + kw, out))
    for i in range(hh):
        for j in range(ww):
            full[:, 2 * i:2 * i + kh, 2 * j:2 * j + kw, :] += np.einsum(
                "nc,hwoc->nhwo", x[:, i, j, :], k)
    return full[:, :2 * hh, :2 * ww, :] + b


def deconv_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    up1 = relu(conv_transpose(d["x"], p["up1/kernel"], p["up1/bias"]))
    images = sigmoid(conv_transpose(up1, p["up2/kernel"], p["up2/bias"]))
    return Forward({"up1": up1, "up2": images}, float(((images - d["y"]) ** 2).mean()))


def hinge_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """tanh hidden layer, a score (a sigmoid on it where o['sigmoid']); the hinge loss
    mean(max(0, 1 - (2y - 1) s)): TF1's hinge_loss and Keras' Hinge both map 0/1 to -1/+1."""
    hidden = np.tanh(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    score = hidden @ p["score/kernel"] + p["score/bias"]
    if o["sigmoid"]:
        score = sigmoid(score)
    loss = np.maximum(0.0, 1.0 - (2.0 * d["y"] - 1.0) * score).mean()
    return Forward({"hidden": hidden, "score": score}, float(loss))


def tied_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Mean of the context's embeddings, tanh layer, logits = h E^T (or h K where the output
    kernel is a variable of its own) + the output bias where there is one."""
    context = p["embedding/embeddings"][d["x"]].mean(axis=1)
    hidden = np.tanh(context @ p["hidden/kernel"] + p["hidden/bias"])
    kernel = p["out/kernel"] if "out/kernel" in p else p["embedding/embeddings"].T
    logits = hidden @ kernel + (p["out/bias"] if "out/bias" in p else 0.0)
    y = d["y"]
    loss = -log_softmax(logits)[np.arange(len(y)), y].mean()
    return Forward({"embed": context, "hidden": hidden, "logits": logits}, float(loss))


TEMPERATURE = 2.0


def distill_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Student logits z; soft = softmax(teacher / T); loss = scale * mean(-sum soft *
    log_softmax(z / T)), scale T^2 (o['scale'])."""
    hidden = relu(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    logits = hidden @ p["logits/kernel"] + p["logits/bias"]
    t = d["y"] / TEMPERATURE
    soft = np.exp(t - t.max(axis=1, keepdims=True))
    soft /= soft.sum(axis=1, keepdims=True)
    xent = -(soft * log_softmax(logits / TEMPERATURE)).sum(axis=1)
    return Forward({"hidden": hidden, "logits": logits}, float(o["scale"] * xent.mean()))


# ---------------------------------------------------------------------- optimizers, schedules

class TF1AMSGrad:
    """tf1_hinge.py's hand-written AMSGrad: t += 1; lr_t = lr*sqrt(1-b2^t)/(1-b1^t);
    m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; vhat = max(vhat, v);
    var -= lr_t m / (sqrt(vhat) + eps)."""

    def __init__(self, b1: float, b2: float, eps: float) -> None:
        self.b1, self.b2, self.eps, self.t = b1, b2, eps, 0
        self.m: Arrays = {}
        self.v: Arrays = {}
        self.vhat: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        self.t += 1
        lr_t = lr * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        out = {}
        for n in v:
            m = self.m[n] = self.b1 * self.m.get(n, 0.0) + (1 - self.b1) * g[n]
            s = self.v[n] = self.b2 * self.v.get(n, 0.0) + (1 - self.b2) * g[n] ** 2
            vhat = self.vhat[n] = np.maximum(self.vhat.get(n, 0.0), s)
            out[n] = v[n] - lr_t * m / (np.sqrt(vhat) + self.eps)
        return out


class KerasAdam:
    """keras Adam.update_step: alpha = lr*sqrt(1-b2^t)/(1-b1^t); m += (g-m)(1-b1);
    v += (g^2-v)(1-b2); with amsgrad v_hat = max(v_hat, v) and v = v_hat;
    var -= m*alpha/(sqrt(v)+eps)."""

    def __init__(self, b1: float, b2: float, eps: float, amsgrad: bool) -> None:
        self.b1, self.b2, self.eps, self.amsgrad, self.t = b1, b2, eps, amsgrad, 0
        self.m: Arrays = {}
        self.v: Arrays = {}
        self.v_hat: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        self.t += 1
        alpha = lr * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        out = {}
        for n in v:
            m0, v0 = self.m.get(n, np.zeros_like(v[n])), self.v.get(n, np.zeros_like(v[n]))
            m = self.m[n] = m0 + (g[n] - m0) * (1 - self.b1)
            s = self.v[n] = v0 + (g[n] ** 2 - v0) * (1 - self.b2)
            if self.amsgrad:
                s = self.v_hat[n] = np.maximum(self.v_hat.get(n, np.zeros_like(v[n])), s)
            out[n] = v[n] - m * alpha / (np.sqrt(s) + self.eps)
        return out


def tf1_polynomial(power: float) -> Callable[[int], float]:
    """polynomial_decay(0.5, step, 3, 0.05, power): (0.5-0.05)(1-min(step,3)/3)^power + 0.05."""
    return lambda step: (0.5 - 0.05) * (1 - min(step, 3) / 3) ** power + 0.05


def keras_polynomial(power: float = 1.0) -> Callable[[int], float]:
    """PolynomialDecay(0.5, 3, 0.05, power) (cycle False): the step capped at decay_steps,
    ((0.5 - 0.05) * (1 - step / 3) ** power) + 0.05."""
    def lr(step: int) -> float:
        s = min(step, 3)
        return (0.5 - 0.05) * (1 - s / 3) ** power + 0.05
    return lr


RATES = (0.5, 0.3, 0.1)  # tf1_distill.py's fed rates, the TF2 programs' per-step rates


# ---------------------------------------------------------------------- the programs

def _tagger(tf1: bool = False, flip: bool = True, mean: str = "valid") -> Program:
    return Program(tagger_forward, (lambda: TF1Momentum(0.9)) if tf1 else (lambda: KerasSGD(0.9)),
                   lambda step: 0.1, {"flip": flip, "mean": mean})


def _deconv(tf1: bool = False, power: float = 2.0) -> Program:
    return Program(deconv_forward, TF1SGD if tf1 else KerasSGD,
                   tf1_polynomial(power) if tf1 else keras_polynomial(power))


def _hinge(tf1: bool = False, amsgrad: bool = True, sig: bool = False) -> Program:
    opt = ((lambda: TF1AMSGrad(0.9, 0.5, 1e-7)) if tf1 else
           (lambda: KerasAdam(0.9, 0.5, 1e-7, amsgrad)))
    return Program(hinge_forward, opt, lambda step: 0.05, {"sigmoid": sig})


def _tied(tf1: bool = False) -> Program:
    return Program(tied_forward, TF1SGD if tf1 else KerasSGD, lambda step: 0.5)


def _distill(tf1: bool = False, scale: float = TEMPERATURE ** 2) -> Program:
    return Program(distill_forward, TF1SGD if tf1 else KerasSGD, lambda step: RATES[step],
                   {"scale": scale})


PROGRAMS: dict[str, Program] = {
    "tf1_tagger.py": _tagger(tf1=True),
    "tf2_tagger_fn.py": _tagger(),
    "tf2_tagger_mask_eager.py": _tagger(mean="all"),
    "tf2_tagger_swap_fit.py": _tagger(),
    "tf2_tagger_reverse_eager.py": _tagger(flip=False),
    "tf1_deconv.py": _deconv(tf1=True),
    "tf2_deconv_fit.py": _deconv(),
    "tf2_deconv_power_fn.py": _deconv(power=1.0),
    "tf2_deconv_layout_eager.py": _deconv(),
    "tf1_hinge.py": _hinge(tf1=True),
    "tf2_hinge_fn.py": _hinge(),
    "tf2_hinge_fit.py": _hinge(),
    "tf2_hinge_amsgrad_eager.py": _hinge(amsgrad=False),
    "tf2_hinge_sigmoid_fit.py": _hinge(sig=True),
    "tf1_tied.py": _tied(tf1=True),
    "tf2_tied_fn.py": _tied(),
    "tf2_tied_fit.py": _tied(),
    "tf2_tied_untied_eager.py": _tied(),
    "tf2_tied_nobias_fn.py": _tied(),
    "tf1_distill.py": _distill(tf1=True),
    "tf2_distill_eager.py": _distill(),
    "tf2_distill_fit.py": _distill(),
    "tf2_distill_temperature_fn.py": _distill(scale=1.0),
}


def _swap_directions(w: Arrays) -> Arrays:
    """tf2_tagger_swap_fit.py: the backward direction's arrays given to the forward RNN."""
    out = dict(w)
    for n in ("kernel", "recurrent_kernel", "bias"):
        out[f"fwd/{n}"], out[f"bwd/{n}"] = w[f"bwd/{n}"], w[f"fwd/{n}"]
    return out


def _transpose_up1(w: Arrays) -> Arrays:
    """tf2_deconv_layout_eager.py: up1's kernel with its out/in axes swapped."""
    return dict(w, **{"up1/kernel": np.transpose(w["up1/kernel"], (0, 1, 3, 2)).copy()})


def _untie(w: Arrays) -> Arrays:
    """tf2_tied_untied_eager.py: an output kernel of its own, a copy of E^T."""
    return dict(w, **{"out/kernel": w["embedding/embeddings"].T.copy()})


def _no_bias(w: Arrays) -> Arrays:
    return {n: a for n, a in w.items() if n != "out/bias"}


# the programs whose starting weights are not the saved arrays as they are
START: dict[str, Callable[[Arrays], Arrays]] = {
    "tf2_tagger_swap_fit.py": _swap_directions,
    "tf2_deconv_layout_eager.py": _transpose_up1,
    "tf2_tied_untied_eager.py": _untie,
    "tf2_tied_nobias_fn.py": _no_bias,
}


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them (migration_numpy.run)."""
    data, weights = program_data(program)
    weights = START.get(program, dict)(weights)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})
