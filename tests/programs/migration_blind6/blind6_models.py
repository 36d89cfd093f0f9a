"""Numpy (float64) models of the sixth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (a softmax
classifier distilled from a teacher's distribution under the KL divergence, written out or
Keras' KLDivergence, swapped or averaged over the classes; a log-linear count regression
under the Poisson loss, TF1's log_poisson_loss on the log-rate with or without its
Stirling term, or Keras' Poisson on the rate exp(c) or on the raw linear output) and plain
gradient descent (TF1 and Keras alike: var -= lr g). Gradients by central differences of
each loss in float64. No TensorFlow is imported here.

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
KERAS_EPSILON = 1e-7  # keras.backend.epsilon(): Poisson's log(y_pred + eps)


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


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float


def kld_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """softmax(x K + b); the KL divergence of the prediction from the teacher t:
    per example sum_j t log(t / p), averaged over the batch (TF1 written out, Keras
    KLDivergence: its clip to [1e-7, 1] touches no value here); o['kind'] 'swap':
    sum_j p log(p / t) (Keras' arguments swapped); 'mean': the mean over all 8x3 terms
    (reduce_mean with no axis: a third of it)."""
    probs = softmax(d["x"] @ p["out/kernel"] + p["out/bias"])
    t = d["t"]
    kind = o.get("kind")
    if kind == "swap":
        loss = float((probs * np.log(probs / t)).sum(axis=1).mean())
    elif kind == "mean":
        loss = float((t * np.log(t / probs)).mean())
    else:
        loss = float((t * np.log(t / probs)).sum(axis=1).mean())
    return Forward({"probs": probs}, loss)


def _stirling(y: np.ndarray) -> np.ndarray:
    """log_poisson_loss(compute_full_loss=True)'s extra term: y log y - y + 0.5 log(2 pi y)
    where y > 1, 0 elsewhere."""
    safe = np.where(y > 1, y, 1.0)
    return np.where(y > 1, safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe), 0.0)


def pois_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """The log-rate c = x K + b; o['kind'] 'tf1': mean(exp(c) - y c) (log_poisson_loss);
    'full': that plus the Stirling term; 'keras': the rate exp(c) (Dense's "exponential")
    under Keras' Poisson, mean(rate - y log(rate + 1e-7)); 'linear': Keras' Poisson on c
    itself (the exponential activation left out)."""
    c = d["x"] @ p["rate/kernel"] + p["rate/bias"]
    y = d["y"]
    kind = o["kind"]
    if kind == "keras":
        loss = float((np.exp(c) - y * np.log(np.exp(c) + KERAS_EPSILON)).mean())
    elif kind == "linear":
        loss = float((c - y * np.log(c + KERAS_EPSILON)).mean())
    else:
        loss = float((np.exp(c) - y * c).mean())
        if kind == "full":
            loss += float(_stirling(y).mean())
    return Forward({}, loss)


@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    lr: float
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3


def _kld(kind: str = "") -> Program:
    return Program(kld_forward, 0.5, {"kind": kind})


def _pois(kind: str = "keras") -> Program:
    return Program(pois_forward, 0.05, {"kind": kind})


PROGRAMS: dict[str, Program] = {
    "tf1_kld.py": _kld(),
    "tf2_kld_eager.py": _kld(),
    "tf2_kld_fn.py": _kld(),
    "tf2_kld_fit.py": _kld(),
    "tf2_kld_swap_fn.py": _kld("swap"),
    "tf2_kld_mean_eager.py": _kld("mean"),
    "tf1_pois.py": _pois("tf1"),
    "tf2_pois_eager.py": _pois(),
    "tf2_pois_fn.py": _pois("tf1"),
    "tf2_pois_fit.py": _pois(),
    "tf2_pois_full_fn.py": _pois("full"),
    "tf2_pois_linear_fit.py": _pois("linear"),
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
        rates = {n: prog.lr for n in params}
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
