"""Numpy (float64) models of the fourth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (the weighted
cross-entropy, a bilinear resize on TF 1.x's pixel grid and on TF 2's half-pixel one, Keras 2's
and Keras 3's hard sigmoid, the squared hinge, a masked mean of embeddings, log-cosh), each
API's optimizer (Adam's kernel with Nesterov momentum as tf.contrib's Nadam ran it, Keras'
Nadam, momentum, plain descent, Lion), the cyclic polynomial decay. Gradients by central
differences of the loss in float64. No TensorFlow is imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); the learning rate
is per variable, the update is the variable after the step minus the variable it read; no
program here has state outside the optimizer (state None).
"""

from __future__ import annotations

import math
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
        "migration_blind4_prepare_data", Path(__file__).with_name("prepare_data.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ARRAYS = _own_prepare_data().ARRAYS  # type: ignore[attr-defined]


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model: float32 values widened to float64
    (integer ids and labels kept); a name with a '/' is a trainable weight."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: v if v.dtype.kind == "i" else np.asarray(v, np.float32).astype(np.float64)
             for k, v in arrays.items() if "/" not in k}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if "/" in k}
    return batch, weights


# ---------------------------------------------------------------------- small functions

def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0.0)


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def weighted_xent(y: np.ndarray, z: np.ndarray, q: float) -> np.ndarray:
    """tf.nn.weighted_cross_entropy_with_logits: (1-y) z + (1 + (q-1) y)(log(1 + e^-|z|) +
    max(-z, 0)) = q y (-log s(z)) + (1-y)(-log(1 - s(z)))."""
    return (1 - y) * z + (1 + (q - 1) * y) * (np.log1p(np.exp(-np.abs(z))) + np.maximum(-z, 0.0))


def conv2d_same(x: np.ndarray, k: np.ndarray) -> np.ndarray:
    """NHWC convolution (cross-correlation), stride 1, 'SAME' padding of a 3x3 kernel."""
    n, h, w, _ = x.shape
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((n, h, w, k.shape[3]))
    for di in range(3):
        for dj in range(3):
            out += np.einsum("nhwc,co->nhwo", xp[:, di:di + h, dj:dj + w, :], k[di, dj])
    return out


def _resize_weights(n_in: int, n_out: int, half_pixel: bool
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """TF's bilinear kernel (compute_interpolation_weights): the source coordinate is
    i scale (TF 1.x's legacy grid) or (i + 0.5) scale - 0.5 (half-pixel centers, TF 2's
    tf.image.resize and Keras' UpSampling2D); lower = max(floor, 0), upper = min(ceil,
    n_in - 1), lerp = coordinate - floor."""
    scale = n_in / n_out
    i = np.arange(n_out, dtype=np.float64)
    src = (i + 0.5) * scale - 0.5 if half_pixel else i * scale
    floor = np.floor(src)
    lower = np.maximum(floor, 0).astype(int)
    upper = np.minimum(np.ceil(src), n_in - 1).astype(int)
    return lower, upper, src - floor


def resize_bilinear(x: np.ndarray, size: int, half_pixel: bool) -> np.ndarray:
    """Bilinear resize of NHWC x to size x size (rows, then columns: the same arithmetic)."""
    lo, hi, t = _resize_weights(x.shape[1], size, half_pixel)
    rows = x[:, lo] * (1 - t)[None, :, None, None] + x[:, hi] * t[None, :, None, None]
    lo, hi, t = _resize_weights(x.shape[2], size, half_pixel)
    return rows[:, :, lo] * (1 - t)[None, None, :, None] + rows[:, :, hi] * t[None, None, :, None]


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float


# ---------------------------------------------------------------------- forward passes

POS_WEIGHT = 3.0


def nadam_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """Dense(8), PReLU (relu(a) - alpha relu(-a), one slope per unit), Dense(1); the mean of
    the weighted cross-entropy (positives x3). Keras' BinaryCrossentropy with class_weight
    {0: 1, 1: 3} is the same value: q y (-log s) + (1-y)(-log(1-s)) per example, averaged
    over the 8 examples."""
    pre = d["x"] @ p["hidden/kernel"] + p["hidden/bias"]
    h = relu(pre) - p["prelu/alpha"] * relu(-pre)
    z = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": pre, "prelu": h, "logits": z},
                   float(weighted_xent(d["y"], z, POS_WEIGHT).mean()))


def upsample_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """conv 3x3 relu, bilinear resize to 8x8 (o['half_pixel']: TF 2's grid), conv 3x3; the
    mean squared error."""
    f = relu(conv2d_same(d["x"], p["conv1/kernel"]) + p["conv1/bias"])
    u = resize_bilinear(f, 8, o["half_pixel"])
    out = conv2d_same(u, p["conv2/kernel"]) + p["conv2/bias"]
    return Forward({"conv1": f, "resize": u, "conv2": out}, float(((out - d["y"]) ** 2).mean()))


def gated_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """value (linear) times gate: Keras 2's hard sigmoid clip(0.2 a + 0.5, 0, 1), or with
    o['keras3_gate'] Keras 3's relu6(a + 3)/6 = clip(a/6 + 0.5, 0, 1); the score; the squared
    hinge mean(max(1 - t s, 0)^2) with t = 2y - 1 (TF1 by hand, SquaredHinge by itself), or
    with o['raw_labels'] t = y (0/1 used as they are)."""
    value = d["x"] @ p["value/kernel"] + p["value/bias"]
    a = d["x"] @ p["gate/kernel"] + p["gate/bias"]
    gate = np.clip(a / 6.0 + 0.5, 0, 1) if o.get("keras3_gate") else np.clip(0.2 * a + 0.5, 0, 1)
    gated = value * gate
    s = gated @ p["out/kernel"] + p["out/bias"]
    t = d["y"] if o.get("raw_labels") else 2 * d["y"] - 1
    return Forward({"value": value, "gate": gate, "gated": gated, "score": s},
                   float((np.maximum(1 - t * s, 0.0) ** 2).mean()))


def bag_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """The mean of each sentence's embeddings over its real tokens (embedding_lookup_sparse's
    'mean', or Embedding(mask_zero) + GlobalAveragePooling1D), or with o['nomask'] over all 5
    positions, pads (row 0) included; Dense(3); the sparse softmax cross-entropy."""
    ids = d["ids"]
    emb = p["embedding/embeddings"][ids]
    mask = np.ones(ids.shape) if o.get("nomask") else (ids != 0).astype(np.float64)
    pooled = (emb * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
    z = pooled @ p["out/kernel"] + p["out/bias"]
    nll = -log_softmax(z)[np.arange(len(ids)), d["labels"]]
    return Forward({"pool": pooled, "logits": z}, float(nll.mean()))


def lion_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """tanh hidden layer, a linear 2-output layer; log-cosh of the error, averaged (TF1's
    e + softplus(-2e) - log 2 and Keras' LogCosh are both log cosh e)."""
    h = np.tanh(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"hidden": h, "prediction": pred},
                   float(np.log(np.cosh(pred - d["y"])).mean()))


# ---------------------------------------------------------------------- optimizers
# step(vars, grads, rates) -> new vars; rates per variable; each keeps its own slots.

class TF1SGD:
    """GradientDescentOptimizer: var -= lr g."""

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        return {n: v[n] - lr[n] * g[n] for n in v}


class KerasSGD:
    """keras SGD: without momentum var -= g lr; with it m = m mu - g lr; var += m."""

    m: dict[str, Any]

    def __init__(self, mu: float = 0.0) -> None:
        self.mu, self.m = mu, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            if self.mu:
                m = self.m[n] = self.m.get(n, 0.0) * self.mu - g[n] * lr[n]
                out[n] = v[n] + m
            else:
                out[n] = v[n] - g[n] * lr[n]
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


class NesterovAdam:
    """ApplyAdam with use_nesterov (tf.contrib's NadamOptimizer; B's hand-written loop and
    Keras Adam subclass write the same rule): lr_t = lr sqrt(1-b2^t)/(1-b1^t);
    m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; var -= lr_t (b1 m + (1-b1) g)/(sqrt(v) + eps)."""

    m: dict[str, Any]
    v: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.v = b1, b2, eps, 0, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        self.t += 1
        out = {}
        for n in v:
            lr_t = lr[n] * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
            m = self.m[n] = self.b1 * self.m.get(n, 0.0) + (1 - self.b1) * g[n]
            s = self.v[n] = self.b2 * self.v.get(n, 0.0) + (1 - self.b2) * g[n] ** 2
            out[n] = v[n] - lr_t * (self.b1 * m + (1 - self.b1) * g[n]) / (np.sqrt(s) + self.eps)
        return out


class KerasNadam:
    """keras Nadam (Keras 3): t = iterations + 1; u_t = b1 (1 - 0.5 0.96^t), u_{t+1} likewise;
    the product of the u's so far (u_1 ... u_t) kept; m += (g - m)(1-b1); v += (g^2 - v)(1-b2);
    m_hat = u_{t+1} m / (1 - prod u_{t+1}) + (1 - u_t) g / (1 - prod u_t);
    var -= lr m_hat / (sqrt(v / (1 - b2^t)) + eps)."""

    m: dict[str, Any]
    v: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.v = b1, b2, eps, 0, {}, {}
        self.u_product = 1.0

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        self.t += 1
        u_t = self.b1 * (1 - 0.5 * 0.96 ** self.t)
        u_t1 = self.b1 * (1 - 0.5 * 0.96 ** (self.t + 1))
        self.u_product *= u_t
        out = {}
        for n in v:
            m0, v0 = self.m.get(n, 0.0), self.v.get(n, 0.0)
            m = self.m[n] = m0 + (g[n] - m0) * (1 - self.b1)
            s = self.v[n] = v0 + (g[n] ** 2 - v0) * (1 - self.b2)
            m_hat = u_t1 * m / (1 - self.u_product * u_t1) + (1 - u_t) * g[n] / (1 - self.u_product)
            v_hat = s / (1 - self.b2 ** self.t)
            out[n] = v[n] - m_hat * lr[n] / (np.sqrt(v_hat) + self.eps)
        return out


class Lion:
    """Lion (TF1's assign ops and keras Lion alike): c = b1 m + (1-b1) g; var -= lr sign(c);
    m = b2 m + (1-b2) g. `closest` keeps min |c| / max |c| over every tensor and step: how
    near a sign is to flipping (float32 noise is ~1e-7 of it)."""

    m: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.99) -> None:
        self.b1, self.b2, self.m, self.closest = b1, b2, {}, 1.0

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            m0 = self.m.get(n, 0.0)
            c = self.b1 * m0 + (1 - self.b1) * g[n]
            self.closest = min(self.closest, float(np.abs(c).min() / np.abs(c).max()))
            out[n] = v[n] - lr[n] * np.sign(c)
            self.m[n] = self.b2 * m0 + (1 - self.b2) * g[n]
        return out


# ---------------------------------------------------------------------- schedules

def polynomial_decay(lr0: float, decay_steps: int, end: float, cycle: bool
                     ) -> Callable[[int], float]:
    """tf.compat.v1.train.polynomial_decay / keras PolynomialDecay with power 1: with cycle
    the horizon is decay_steps ceil(step / decay_steps) (1 at step 0), else the step is
    capped at decay_steps; (lr0 - end)(1 - step/horizon) + end."""
    def lr(step: int) -> float:
        if cycle:
            horizon = decay_steps * (1 if step == 0 else math.ceil(step / decay_steps))
        else:
            horizon, step = decay_steps, min(step, decay_steps)
        return (lr0 - end) * (1 - step / horizon) + end
    return lr


def constant(lr0: float) -> Callable[[int], float]:
    return lambda step: lr0


# ---------------------------------------------------------------------- the programs

@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    optimizer: Callable[[], Any]
    rates: Callable[[int], float]
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3


NADAM_A = Program(nadam_forward, NesterovAdam, constant(0.01))
NADAM_B = Program(nadam_forward, NesterovAdam, constant(0.01))


def _upsample(tf1: bool = False, half_pixel: bool = False) -> Program:
    return Program(upsample_forward, (lambda: TF1Momentum(0.9)) if tf1 else (lambda: KerasSGD(0.9)),
                   constant(0.05), {"half_pixel": half_pixel})


def _gated(tf1: bool = False, cycle: bool = True, **options: bool) -> Program:
    return Program(gated_forward, TF1SGD if tf1 else KerasSGD,
                   polynomial_decay(0.1, 2, 0.01, cycle), dict(options), steps=4)


def _bag(tf1: bool = False, nomask: bool = False) -> Program:
    return Program(bag_forward, TF1SGD if tf1 else KerasSGD, constant(0.5), {"nomask": nomask})


PROGRAMS: dict[str, Program] = {
    "tf1_nadam.py": NADAM_A,
    "tf2_nadam_fn.py": NADAM_B,
    "tf2_nadam_fit.py": NADAM_B,
    "tf2_nadam_keras_eager.py": Program(nadam_forward, lambda: KerasNadam(eps=1e-8),
                                        constant(0.01)),
    "tf1_upsample.py": _upsample(tf1=True),
    "tf2_upsample_fn.py": _upsample(),
    "tf2_upsample_eager.py": _upsample(),
    "tf2_upsample_layer_fit.py": _upsample(half_pixel=True),
    "tf2_upsample_resize_fn.py": _upsample(half_pixel=True),
    "tf1_gated.py": _gated(tf1=True),
    "tf2_gated_fn.py": _gated(),
    "tf2_gated_fit.py": _gated(),
    "tf2_gated_cycle_fit.py": _gated(cycle=False),
    "tf2_gated_hard_sigmoid_eager.py": _gated(keras3_gate=True),
    "tf2_gated_labels_fn.py": _gated(raw_labels=True),
    "tf1_bag.py": _bag(tf1=True),
    "tf2_bag_fn.py": _bag(),
    "tf2_bag_fit.py": _bag(),
    "tf2_bag_nomask_eager.py": _bag(nomask=True),
    "tf1_lion.py": Program(lion_forward, Lion, constant(0.01)),
    "tf2_lion_eager.py": Program(lion_forward, Lion, constant(0.01)),
    "tf2_lion_betas_fn.py": Program(lion_forward, lambda: Lion(b1=0.99, b2=0.9), constant(0.01)),
}


# ---------------------------------------------------------------------- the step loop

def fd_gradient(prog: Program, p: Arrays, d: Arrays, h: float = 1e-6) -> Arrays:
    """Central differences of the loss, element by element."""
    grads = {}
    for n, w in p.items():
        g = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = prog.forward(p, d, prog.options).loss
            w[i] = orig - h
            down = prog.forward(p, d, prog.options).loss
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def run(prog: Program, data: Arrays, params: Arrays) -> tuple[list[dict[str, Any]], Any]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables after the last; and the
    optimizer (for what it kept, as Lion's closest sign)."""
    opt = prog.optimizer()
    steps = []
    for k in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        grads = fd_gradient(prog, params, data)
        rates = {n: prog.rates(k) for n in params}
        new = opt.step({n: w.copy() for n, w in params.items()}, grads, rates)
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": None,
            "gradient": grads, "applied_gradient": grads, "learning_rate": rates,
            "update": {n: new[n] - params[n] for n in params},
            "state": None, "loss_total": fw.loss,
        })
        params = new
    steps.append({"variable": params, "state": None})
    return steps, opt


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})[0]


def lion_closest(program: str) -> float:
    """min |b1 m + (1-b1) g| / max over its tensor, over every step of a Lion program."""
    data, weights = program_data(program)
    return float(run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})[1]
                 .closest)
