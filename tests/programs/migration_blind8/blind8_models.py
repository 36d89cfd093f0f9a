"""Numpy (float64) models of the eighth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (a linear embedding
under the cosine distance: TF1's l2_normalize + cosine_distance, Keras' CosineSimilarity
with and without the `1 +`, UnitNormalization, or l2_normalize over the whole batch; a small
tanh regression under the squared error of log1p, written out or as Keras' mean squared
logarithmic error, which clips the prediction at 1e-7 first; a relu6 scorer under the
categorical hinge, written out, Keras' CategoricalHinge on one-hot labels, the cap dropped,
or Keras' per-class Hinge). Every program trains by plain gradient descent.
Gradients by central differences of each loss in float64. No TensorFlow is imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); the learning rate
is per variable, the update is the variable after the step minus the variable it read; no
program here has a penalty or state (None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from migration_proof import central_differences, corpus_prepare_data

Arrays = dict[str, np.ndarray]
KERAS_EPSILON = 1e-7  # keras.backend.epsilon(): mean_squared_logarithmic_error's clip


ARRAYS = corpus_prepare_data(__file__).ARRAYS


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model: float32 values widened to float64;
    a name with a '/' is a trainable weight."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: np.asarray(v).astype(np.float64) for k, v in arrays.items() if "/" not in k}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if "/" in k}
    return batch, weights


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float


def _unit(v: np.ndarray, axis: int | None = 1) -> np.ndarray:
    return np.asarray(v / np.sqrt(np.sum(v * v, axis=axis, keepdims=axis is not None)))


def cos_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """z = x K + b; the loss the batch mean of, by o['kind']: 'tf1' / 'unit': 1 - t.u with
    u = z / |z| per row (TF1's l2_normalize(z, axis=1) + cosine_distance(t, u, axis=1);
    UnitNormalization and a written-out distance); 'plus1': 1 + Keras' CosineSimilarity on z
    (-t/|t| . z/|z|); 'sim': Keras' CosineSimilarity alone (-cos: the 1 left out); 'batch':
    1 - t.u with u = z / |z| over the whole batch (l2_normalize without axis)."""
    z = d["x"] @ p["emb/kernel"] + p["emb/bias"]
    t, kind = d["t"], o["kind"]
    layers = {"z": z}
    if kind in ("plus1", "sim"):
        cos = np.sum(_unit(t) * _unit(z), axis=1)
        loss = float((1.0 if kind == "plus1" else 0.0) - cos.mean())
    else:
        u = _unit(z, None if kind == "batch" else 1)
        layers["u"] = u
        loss = float((1.0 - np.sum(t * u, axis=1)).mean())
    return Forward(layers, loss)


def msle_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1), pred = h K2 + b2; the mean of (log1p(pred) - log1p(y))^2 ('tf1',
    'hand'), or Keras' mean_squared_logarithmic_error ('keras'): log(max(pred, 1e-7) + 1),
    the same of y."""
    y = d["y"]
    h = np.tanh(d["x"] @ p["hid/kernel"] + p["hid/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    if o["kind"] == "keras":
        clip = partial(np.maximum, KERAS_EPSILON)
        diff = np.log(clip(pred) + 1) - np.log(clip(y) + 1)
    else:
        diff = np.log1p(pred) - np.log1p(y)
    return Forward({"h": h, "pred": pred}, float((diff ** 2).mean()))


def chinge_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = relu6(x K1 + b1) (relu for 'relu'), s = h K2 + b2; the categorical hinge
    max(0, max((1 - y) s) - sum(y s) + 1), the batch mean, y the one-hot labels; for
    'hinge' Keras' Hinge instead: the mean over the classes of max(0, 1 - (2y - 1) s), the
    batch mean."""
    pre = d["x"] @ p["hid/kernel"] + p["hid/bias"]
    h = np.maximum(pre, 0) if o["kind"] == "relu" else np.clip(pre, 0, 6)
    s = h @ p["out/kernel"] + p["out/bias"]
    y = np.eye(3)[d["labels"].astype(int)]
    if o["kind"] == "hinge":
        return Forward({"h": h, "s": s}, float(np.maximum(1 - (2 * y - 1) * s, 0).mean()))
    pos = np.sum(y * s, axis=1)
    neg = np.max((1 - y) * s, axis=1)
    return Forward({"h": h, "s": s}, float(np.maximum(neg - pos + 1, 0).mean()))


@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    rate: float
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3


def _cos(kind: str) -> Program:
    return Program(cos_forward, 0.5, {"kind": kind})


def _msle(kind: str) -> Program:
    return Program(msle_forward, 0.2, {"kind": kind})


def _chinge(kind: str) -> Program:
    return Program(chinge_forward, 0.1, {"kind": kind})


PROGRAMS: dict[str, Program] = {
    "tf1_cos.py": _cos("tf1"),
    "tf2_cos_eager.py": _cos("plus1"),
    "tf2_cos_unit_fit.py": _cos("unit"),
    "tf2_cos_sim_fn.py": _cos("sim"),
    "tf2_cos_axis_eager.py": _cos("batch"),
    "tf1_msle.py": _msle("tf1"),
    "tf2_msle_eager.py": _msle("hand"),
    "tf2_msle_fn.py": _msle("hand"),
    "tf2_msle_fit.py": _msle("hand"),
    "tf2_msle_keras_eager.py": _msle("keras"),
    "tf1_chinge.py": _chinge("tf1"),
    "tf2_chinge_eager.py": _chinge("keras"),
    "tf2_chinge_fn.py": _chinge("keras"),
    "tf2_chinge_relu_fn.py": _chinge("relu"),
    "tf2_chinge_hinge_fit.py": _chinge("hinge"),
}


_fd = central_differences


def _loss(prog: Program, params: Arrays, data: Arrays) -> float:
    return prog.forward(params, data, prog.options).loss


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables after the last."""
    steps = []
    for _ in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        grads = _fd(partial(_loss, prog, params, data), params)
        new = {n: params[n] - prog.rate * grads[n] for n in params}
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": None,
            "gradient": grads, "applied_gradient": grads,
            "learning_rate": {n: prog.rate for n in params},
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
