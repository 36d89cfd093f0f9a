"""Numpy (float64) models of the seventh blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (a 6 -> 3 -> 6
autoencoder with a sigmoid output under TF1's log_loss or Keras' binary cross-entropy, from
the probabilities, from logits Keras recovers behind its own sigmoid, or from logits it
takes for probabilities; a logistic classifier under the sigmoid focal loss, written out in
TF1 or Keras' BinaryFocalCrossentropy with or without its class balancing; a small tanh
regression under the mean squared error) and its optimizer (plain gradient descent; TF1's
MomentumOptimizer `accum = mu accum + g; var -= lr accum` against Keras' SGD momentum
`m = mu m - lr g; var += m`, on an exponentially decaying or a constant rate). Gradients by
central differences of each loss in float64. No TensorFlow is imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); the learning rate
is per variable, the update is the variable after the step minus the variable it read; no
program here has a penalty or state outside the optimizer (None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from migration_proof import central_differences, corpus_prepare_data

Arrays = dict[str, np.ndarray]
KERAS_EPSILON = 1e-7  # keras.backend.epsilon(): the clip of binary_crossentropy's output
LOG_LOSS_EPSILON = 1e-7  # tf.compat.v1.losses.log_loss's default epsilon


ARRAYS = corpus_prepare_data(__file__).ARRAYS


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model: float32 values widened to float64;
    a name with a '/' is a trainable weight."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: np.asarray(v, np.float32).astype(np.float64)
             for k, v in arrays.items() if "/" not in k}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if "/" in k}
    return batch, weights


def sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1.0 / (1.0 + np.exp(-z)))


def bce_logits(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """sigmoid_cross_entropy_with_logits: max(z, 0) - z y + log(1 + exp(-|z|))."""
    return np.asarray(np.maximum(z, 0) - z * y + np.log1p(np.exp(-np.abs(z))))


def bce_probs(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Keras' binary_crossentropy from probabilities: the output clipped to
    [1e-7, 1 - 1e-7], then -(y log p + (1 - y) log(1 - p)). The bounds as float32 has them
    (1 - 1e-7 rounds to 1 - 1.19e-7: log(1 - q) at the upper bound is -15.94, not -16.12)."""
    low, high = float(np.float32(KERAS_EPSILON)), float(np.float32(1 - KERAS_EPSILON))
    q = np.clip(p, low, high)
    return np.asarray(-(y * np.log(q) + (1 - y) * np.log(1 - q)))


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float


def ae_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1), z = h K2 + b2, the reconstruction sigmoid(z), its target x; the
    loss the mean over all 8x6 terms of: o['kind'] 'tf1': log_loss's
    -x log(r + 1e-7) - (1 - x) log(1 - r + 1e-7); 'keras': Keras' binary cross-entropy, on
    the logits behind its own sigmoid (what its TensorFlow backend does with a tensor its
    sigmoid made, whether from_logits is given or not); 'logits': the linear z taken for
    probabilities (clipped to [1e-7, 1 - 1e-7]: from_logits left out, no sigmoid)."""
    x = d["x"]
    h = np.tanh(x @ p["enc/kernel"] + p["enc/bias"])
    z = h @ p["dec/kernel"] + p["dec/bias"]
    r = sigmoid(z)
    kind = o["kind"]
    if kind == "tf1":
        e = LOG_LOSS_EPSILON
        loss = float((-x * np.log(r + e) - (1 - x) * np.log(1 - r + e)).mean())
    elif kind == "keras":
        loss = float(bce_logits(x, z).mean())
    else:
        loss = float(bce_probs(x, z).mean())
    layers = {"h": h, "z": z}
    if kind != "logits":
        layers["recon"] = r
    return Forward(layers, loss)


def focal_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """z = x K + b, p = sigmoid(z), p_t = y p + (1 - y)(1 - p); the per-example loss
    (1 - p_t)^2 ce, ce the binary cross-entropy ('tf1': sigmoid_cross_entropy_with_logits on
    z; 'keras' / 'nobal': Keras', on the logits behind the sigmoid, as bce_logits), times
    alpha_t = y 0.25 + (1 - y) 0.75 except for 'nobal' (Keras' alpha is used only with
    apply_class_balancing=True); the batch mean."""
    y = d["y"]
    z = d["x"] @ p["out/kernel"] + p["out/bias"]
    prob = sigmoid(z)
    p_t = y * prob + (1 - y) * (1 - prob)
    per = (1 - p_t) ** 2 * bce_logits(y, z)
    if o["kind"] != "nobal":
        per = per * (y * 0.25 + (1 - y) * 0.75)
    return Forward({"z": z, "prob": prob}, float(per.mean()))


def mom_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1), pred = h K2 + b2; the mean squared error against y."""
    h = np.tanh(d["x"] @ p["hid/kernel"] + p["hid/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"h": h, "pred": pred}, float(((pred - d["y"]) ** 2).mean()))


@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    lr: Callable[[int], float]  # step -> the learning rate
    options: dict[str, Any] = field(default_factory=dict)
    momentum: str = ""  # '' plain descent; 'tf1' accum += g; 'keras' m = mu m - lr g
    steps: int = 3


def _const(rate: float) -> Callable[[int], float]:
    return lambda step: rate


def _decay(step: int) -> float:
    """exponential_decay(0.1, step, decay_steps=1, decay_rate=0.5) = ExponentialDecay's."""
    return float(0.1 * 0.5 ** step)


def _ae(kind: str = "keras") -> Program:
    return Program(ae_forward, _const(0.3), {"kind": kind})


def _focal(kind: str = "keras") -> Program:
    return Program(focal_forward, _const(0.5), {"kind": kind})


def _mom(momentum: str, lr: Callable[[int], float] = _decay) -> Program:
    return Program(mom_forward, lr, {}, momentum)


PROGRAMS: dict[str, Program] = {
    "tf1_ae.py": _ae("tf1"),
    "tf2_ae_eager.py": _ae(),
    "tf2_ae_fit.py": _ae(),
    "tf2_ae_twice_fn.py": _ae(),
    "tf2_ae_logits_eager.py": _ae("logits"),
    "tf1_focal.py": _focal("tf1"),
    "tf2_focal_eager.py": _focal(),
    "tf2_focal_fit.py": _focal(),
    "tf2_focal_balance_fn.py": _focal("nobal"),
    "tf1_mom.py": _mom("tf1"),
    "tf2_mom_eager.py": _mom("tf1"),
    "tf2_mom_fn.py": _mom("tf1"),
    "tf2_mom_keras_fit.py": _mom("keras"),
    "tf2_mom_keras_eager.py": _mom("keras"),
    "tf2_mom_const_fn.py": _mom("keras", _const(0.1)),
}
MU = 0.9  # every momentum here


_fd = central_differences


def _loss(prog: Program, params: Arrays, data: Arrays) -> float:
    return prog.forward(params, data, prog.options).loss


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables after the last."""
    steps = []
    slots = {n: np.zeros_like(w) for n, w in params.items()}
    for k in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        grads = _fd(partial(_loss, prog, params, data), params)
        rates = {n: prog.lr(k) for n in params}
        if prog.momentum == "tf1":
            slots = {n: MU * slots[n] + grads[n] for n in params}
            new = {n: params[n] - rates[n] * slots[n] for n in params}
        elif prog.momentum == "keras":
            slots = {n: MU * slots[n] - rates[n] * grads[n] for n in params}
            new = {n: params[n] + slots[n] for n in params}
        else:
            new = {n: params[n] - rates[n] * grads[n] for n in params}
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": None,
            "gradient": grads, "applied_gradient": grads, "learning_rate": rates,
            "update": {n: new[n] - params[n] for n in params},
            "state": None, "loss_total": fw.loss,
        })
        params = new
    steps.append({"variable": params, "state": None})
    return steps


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})
