"""Numpy (float64) models of the fifth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (a shared feature
layer under two heads, a linear regression, a stride-2 convolution on three paddings, a
swish MLP under the mean absolute error, broadcast or not), each API's optimizer (plain
descent, momentum, TF1's ApplyProximalGradientDescent, Keras SGD followed by a soft
threshold), and the gradient reversal (the domain loss's gradient reaching the shared layer
scaled by -0.3, -1 or 0). Gradients by central differences of each loss in float64. No
TensorFlow is imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); the learning rate
is per variable, the update is the variable after the step (and any projection the step
applies after it) minus the variable it read; no program here has state outside the
optimizer (state None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Arrays = dict[str, np.ndarray]


def _own_prepare_data() -> object:
    """This corpus's prepare_data.py, loaded by its path: every corpus has one, and a pytest
    process that imports two corpora would otherwise get the first one's for both."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "migration_blind5_prepare_data", Path(__file__).with_name("prepare_data.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ARRAYS = _own_prepare_data().ARRAYS  # type: ignore[attr-defined]


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model: float32 values widened to float64;
    a name with a '/' is a trainable weight."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: np.asarray(v, np.float32).astype(np.float64)
             for k, v in arrays.items() if "/" not in k}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if "/" in k}
    return batch, weights


# ---------------------------------------------------------------------- small functions

def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0.0)


def sigmoid_xent(labels: np.ndarray, z: np.ndarray) -> np.ndarray:
    """sigmoid_cross_entropy_with_logits (Keras' BinaryCrossentropy(from_logits) calls it):
    max(z, 0) - z y + log(1 + e^-|z|)."""
    return np.maximum(z, 0.0) - z * labels + np.log1p(np.exp(-np.abs(z)))


def swish(a: np.ndarray) -> np.ndarray:
    """tf.nn.swish and Keras' "swish"/"silu": a sigmoid(a)."""
    return a / (1.0 + np.exp(-a))


def conv_stride2(x: np.ndarray, k: np.ndarray, pad: tuple[int, int]) -> np.ndarray:
    """NHWC cross-correlation with a 3x3 kernel, stride 2, `pad` = (zero rows/columns before,
    after) on both spatial axes, no further padding ('VALID' on the padded image). TF's
    'SAME' on 6 pixels is (0, 1): out = ceil(6/2) = 3, pad = (3-1)*2 + 3 - 6 = 1, the odd
    one at the end."""
    xp = np.pad(x, ((0, 0), pad, pad, (0, 0)))
    size = (xp.shape[1] - 3) // 2 + 1
    out = np.zeros((x.shape[0], size, size, k.shape[3]))
    for i in range(size):
        for j in range(size):
            window = xp[:, 2 * i:2 * i + 3, 2 * j:2 * j + 3, :]
            out[:, i, j, :] = np.einsum("nabc,abco->no", window, k)
    return out


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float  # the data loss
    parts: dict[str, float] = field(default_factory=dict)  # grl: each head's loss
    regularization: float | None = None
    kinks: float = 1.0  # the smallest |input| of a relu/abs on this pass (0: at a kink)


# ---------------------------------------------------------------------- forward passes

def grl_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """tanh features; a label head on them and a domain head on them (through the gradient
    reversal: identity forward); the mean sigmoid cross-entropy of each head, added."""
    f = np.tanh(d["x"] @ p["feature/kernel"] + p["feature/bias"])
    zl = f @ p["label/kernel"] + p["label/bias"]
    zd = f @ p["domain/kernel"] + p["domain/bias"]
    ly, ld = float(sigmoid_xent(d["y"], zl).mean()), float(sigmoid_xent(d["d"], zd).mean())
    return Forward({"feature": f, "label": zl, "domain": zd}, ly + ld,
                   {"label": ly, "domain": ld})


PROX_L1 = 0.05


def prox_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """A linear regression, the mean squared error; with o['penalty'] Keras' L1(0.05) on the
    kernel and on the bias (0.05 sum|w| each), a regularization term of its own."""
    pred = d["x"] @ p["linear/kernel"] + p["linear/bias"]
    reg = (PROX_L1 * float(np.abs(p["linear/kernel"]).sum() + np.abs(p["linear/bias"]).sum())
           if o.get("penalty") else None)
    return Forward({"prediction": pred}, float(((pred - d["y"]) ** 2).mean()), {}, reg)


def pad_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """conv 3x3 stride 2 on the image padded o['pad'], relu; flattened (row, column,
    channel: TF1's reshape and Keras' Flatten alike); linear; the mean squared error."""
    pre = conv_stride2(d["x"], p["conv/kernel"], o["pad"]) + p["conv/bias"]
    c = relu(pre)
    pred = c.reshape(len(c), -1) @ p["out/kernel"] + p["out/bias"]
    return Forward({"conv": c, "prediction": pred}, float(((pred - d["y"]) ** 2).mean()),
                   kinks=float(np.abs(pre).min()))


def bcast_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """swish hidden layer, a linear output (8, 1); the mean absolute error against the (8,)
    targets: per example (absolute_difference on the squeezed prediction, Keras' loss that
    squeezes the extra axis), or with o['broadcast'] over the (8, 8) table y[j] - pred[i]."""
    h = swish(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    e = d["y"][None, :] - pred if o.get("broadcast") else d["y"] - pred[:, 0]
    return Forward({"hidden": h, "prediction": pred}, float(np.abs(e).mean()),
                   kinks=float(np.abs(e).min()))


# ---------------------------------------------------------------------- optimizers
# step(vars, grads, rates) -> new vars; rates per variable; each keeps its own slots.

class TF1SGD:
    """GradientDescentOptimizer: var -= lr g."""

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        return {n: v[n] - lr[n] * g[n] for n in v}


class KerasSGD:
    """keras SGD: without momentum var -= g lr; with it m = m mu - g lr; var += m; then,
    when `threshold` is given, every variable soft-thresholded by it (B's proximal step
    written out, or a Keras constraint, which the optimizer applies after its update)."""

    m: dict[str, Any]

    def __init__(self, mu: float = 0.0, threshold: float | None = None) -> None:
        self.mu, self.m, self.threshold = mu, {}, threshold

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            if self.mu:
                m = self.m[n] = self.m.get(n, 0.0) * self.mu - g[n] * lr[n]
                out[n] = v[n] + m
            else:
                out[n] = v[n] - g[n] * lr[n]
            if self.threshold is not None:
                out[n] = np.sign(out[n]) * np.maximum(np.abs(out[n]) - self.threshold, 0.0)
        return out


class TF1Momentum:
    """MomentumOptimizer: accum = mu accum + g; var -= lr accum."""

    acc: dict[str, Any]

    def __init__(self, mu: float) -> None:
        self.mu, self.acc = mu, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.mu * self.acc.get(n, 0.0) + g[n]
            out[n] = v[n] - lr[n] * a
        return out


class TF1Proximal:
    """ApplyProximalGradientDescent with l1 > 0, l2 = 0: prox = var - lr g;
    var = sign(prox) max(|prox| - lr l1, 0) / (1 + lr l2)."""

    def __init__(self, l1: float, l2: float = 0.0) -> None:
        self.l1, self.l2 = l1, l2

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            prox = v[n] - lr[n] * g[n]
            out[n] = (np.sign(prox) * np.maximum(np.abs(prox) - lr[n] * self.l1, 0.0)
                      / (1 + lr[n] * self.l2))
        return out


# ---------------------------------------------------------------------- the programs

@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    optimizer: Callable[[], Any]
    lr: float
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3


def _grl(tf1: bool = False, reverse: float = -0.3) -> Program:
    return Program(grl_forward, TF1SGD if tf1 else KerasSGD, 0.1, {"reverse": reverse})


def _prox(tf1: bool = False, threshold: float = 0.1 * PROX_L1, penalty: bool = False
          ) -> Program:
    if tf1:
        return Program(prox_forward, lambda: TF1Proximal(PROX_L1), 0.1)
    if penalty:
        return Program(prox_forward, KerasSGD, 0.1, {"penalty": True})
    return Program(prox_forward, lambda: KerasSGD(threshold=threshold), 0.1)


def _pad(tf1: bool = False, pad: tuple[int, int] = (0, 1)) -> Program:
    return Program(pad_forward, TF1SGD if tf1 else KerasSGD, 0.05, {"pad": pad})


def _bcast(tf1: bool = False, broadcast: bool = False) -> Program:
    return Program(bcast_forward, (lambda: TF1Momentum(0.9)) if tf1 else (lambda: KerasSGD(0.9)),
                   0.05, {"broadcast": broadcast})


PROGRAMS: dict[str, Program] = {
    "tf1_grl.py": _grl(tf1=True),
    "tf2_grl_eager.py": _grl(),
    "tf2_grl_fn.py": _grl(),
    "tf2_grl_fit.py": _grl(),
    "tf2_grl_scale_fn.py": _grl(reverse=-1.0),
    "tf2_grl_detach_eager.py": _grl(reverse=0.0),
    "tf1_prox.py": _prox(tf1=True),
    "tf2_prox_eager.py": _prox(),
    "tf2_prox_fit.py": _prox(),
    "tf2_prox_threshold_fn.py": _prox(threshold=PROX_L1),
    "tf2_prox_penalty_fit.py": _prox(penalty=True),
    "tf1_pad.py": _pad(tf1=True),
    "tf2_pad_fit.py": _pad(),
    "tf2_pad_eager.py": _pad(),
    "tf2_pad_symmetric_fn.py": _pad(pad=(1, 1)),
    "tf2_pad_topleft_eager.py": _pad(pad=(1, 0)),
    "tf1_bcast.py": _bcast(tf1=True),
    "tf2_bcast_eager.py": _bcast(),
    "tf2_bcast_fit.py": _bcast(),
    "tf2_bcast_fn.py": _bcast(broadcast=True),
}


# ---------------------------------------------------------------------- the step loop

def _fd(loss: Callable[[], float], p: Arrays, h: float = 1e-6) -> Arrays:
    """Central differences of `loss()` in every element of `p` (changed in place, restored)."""
    grads = {}
    for n, w in p.items():
        g = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = loss()
            w[i] = orig - h
            down = loss()
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def gradient(prog: Program, p: Arrays, d: Arrays) -> Arrays:
    """The gradient each program applies. For the DANN model the domain loss's gradient
    reaches the shared feature layer scaled by options['reverse'] (-0.3 the TF1 reversal,
    -1 the reversal without its scale, 0 stop_gradient); everywhere else the plain gradient
    of the loss (plus the penalty, where there is one)."""
    o = prog.options

    def total() -> float:
        fw = prog.forward(p, d, o)
        return fw.loss + (fw.regularization or 0.0)

    if prog.forward is not grl_forward:
        return _fd(total, p)
    by_label = _fd(lambda: prog.forward(p, d, o).parts["label"], p)
    by_domain = _fd(lambda: prog.forward(p, d, o).parts["domain"], p)
    return {n: by_label[n] + (o["reverse"] if n.startswith("feature/") else 1.0) * by_domain[n]
            for n in p}


def run(prog: Program, data: Arrays, params: Arrays) -> tuple[list[dict[str, Any]], float]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables after the last; and the
    smallest distance of a relu's or an absolute value's input from its kink."""
    opt = prog.optimizer()
    steps = []
    kinks = 1.0
    for _ in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        kinks = min(kinks, fw.kinks)
        grads = gradient(prog, params, data)
        rates = {n: prog.lr for n in params}
        new = opt.step({n: w.copy() for n, w in params.items()}, grads, rates)
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": fw.regularization,
            "gradient": grads, "applied_gradient": grads, "learning_rate": rates,
            "update": {n: new[n] - params[n] for n in params},
            "state": None, "loss_total": fw.loss + (fw.regularization or 0.0),
        })
        params = new
    steps.append({"variable": params, "state": None})
    return steps, kinks


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})[0]


def kink_distance(program: str) -> float:
    """The smallest |input| of a relu or of the loss's absolute value over every step."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})[1]
