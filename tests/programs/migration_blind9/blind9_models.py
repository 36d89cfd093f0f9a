"""Numpy (float64) models of the ninth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass and loss (a selu regression
of standardized features: TF1's standardization by the training set's mean and standard
deviation, Keras' `Normalization` — adapted, given the statistics, adapted over all axes —
and selu or elu; two towers whose dot product is a click's logit: TF1's reduce_sum of the
product, Keras' `Dot(axes=1)`, its `normalize=True` cosine, the inputs given in the other
order; a time-distributed tanh layer pooled over time under the softmax cross-entropy:
TF1's sparse_softmax_cross_entropy, the same written as logsumexp minus the true logit, and
a logsumexp over the whole batch). Every program trains by plain gradient descent; the lse
programs on two minibatches in turn. Gradients by central differences of each loss in
float64. No TensorFlow is imported here.

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
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805

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


def _selu(v: np.ndarray) -> np.ndarray:
    return np.asarray(SELU_SCALE * np.where(v > 0, v, SELU_ALPHA * np.expm1(np.minimum(v, 0))))


def _elu(v: np.ndarray) -> np.ndarray:
    return np.asarray(np.where(v > 0, v, np.expm1(np.minimum(v, 0))))


def norm_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """xn = (x - mean) / std with the batch's per-feature mean and (population) standard
    deviation ('tf1', 'keras', 'elu'), or one mean and deviation over all 30 values ('all':
    Normalization(axis=None)); h = selu(xn K1 + b1) (elu for 'elu'); pred = h K2 + b2; the
    mean squared error."""
    x = d["x"]
    axis = None if o["kind"] == "all" else 0
    xn = (x - x.mean(axis=axis)) / x.std(axis=axis)
    pre = xn @ p["hid/kernel"] + p["hid/bias"]
    h = _elu(pre) if o["kind"] == "elu" else _selu(pre)
    pred = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"xn": xn, "pre": pre, "h": h, "pred": pred},
                   float(((pred - d["y"]) ** 2).mean()))


def _softplus(v: np.ndarray) -> np.ndarray:
    return np.asarray(np.logaddexp(0.0, v))


def tower_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """u = tanh(xu Ku + bu), v = tanh(xv Kv + bv) (the inputs swapped for 'swap'); the score
    u.v per pair (the cosine u.v / |u||v| for 'cos'); the sigmoid cross-entropy of the click
    on that logit, the batch mean."""
    xu, xv = (d["xv"], d["xu"]) if o["kind"] == "swap" else (d["xu"], d["xv"])
    u = np.tanh(xu @ p["user/kernel"] + p["user/bias"])
    v = np.tanh(xv @ p["item/kernel"] + p["item/bias"])
    score = np.sum(u * v, axis=1, keepdims=True)
    if o["kind"] == "cos":
        score = score / (np.linalg.norm(u, axis=1, keepdims=True)
                         * np.linalg.norm(v, axis=1, keepdims=True))
    c = d["click"]
    loss = _softplus(score) - c * score  # -c log s(z) - (1 - c) log(1 - s(z))
    return Forward({"user": u, "item": v, "score": score}, float(loss.mean()))


def lse_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1) at every time step, pooled = the mean over time, z = pooled K2 +
    b2; the softmax cross-entropy logsumexp(z) - z_label per example, the batch mean; for
    'batch' the logsumexp taken over every logit of the batch at once."""
    h = np.tanh(np.einsum("btf,fh->bth", d["x"], p["hid/kernel"]) + p["hid/bias"])
    pooled = h.mean(axis=1)
    z = pooled @ p["out/kernel"] + p["out/bias"]
    true = z[np.arange(len(z)), d["labels"].astype(int)]
    if o["kind"] == "batch":
        m = z.max()
        lse = m + np.log(np.exp(z - m).sum())
    else:
        m1 = z.max(axis=1)
        lse = m1 + np.log(np.exp(z - m1[:, None]).sum(axis=1))
    return Forward({"h": h, "pooled": pooled, "z": z}, float((lse - true).mean()))


def _full_batch(data: Arrays, step: int) -> Arrays:
    return data


def _minibatch(data: Arrays, step: int) -> Arrays:
    """Examples 0-2 at even steps, 3-5 at odd ones (fit's batch_size=3, shuffle=False)."""
    start = 3 * (step % 2)
    return {k: v[start:start + 3] for k, v in data.items()}


@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    rate: float
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3
    batch: Callable[[Arrays, int], Arrays] = _full_batch


def _norm(kind: str) -> Program:
    return Program(norm_forward, 0.1, {"kind": kind})


def _tower(kind: str) -> Program:
    return Program(tower_forward, 0.5, {"kind": kind})


def _lse(kind: str) -> Program:
    return Program(lse_forward, 0.5, {"kind": kind}, 4, _minibatch)


PROGRAMS: dict[str, Program] = {
    "tf1_norm.py": _norm("tf1"),
    "tf2_norm_eager.py": _norm("keras"),
    "tf2_norm_fn.py": _norm("keras"),
    "tf2_norm_axis_fit.py": _norm("all"),
    "tf2_norm_elu_eager.py": _norm("elu"),
    "tf1_tower.py": _tower("tf1"),
    "tf2_tower_eager.py": _tower("keras"),
    "tf2_tower_fit.py": _tower("keras"),
    "tf2_tower_cos_fn.py": _tower("cos"),
    "tf2_tower_swap_fit.py": _tower("swap"),
    "tf1_lse.py": _lse("tf1"),
    "tf2_lse_eager.py": _lse("keras"),
    "tf2_lse_spe_fit.py": _lse("keras"),
    "tf2_lse_dense_fn.py": _lse("keras"),
    "tf2_lse_axis_fn.py": _lse("batch"),
}


_fd = central_differences


def _loss(prog: Program, params: Arrays, data: Arrays) -> float:
    return prog.forward(params, data, prog.options).loss


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables after the last."""
    steps = []
    for k in range(prog.steps):
        batch = prog.batch(data, k)
        fw = prog.forward(params, batch, prog.options)
        grads = _fd(partial(_loss, prog, params, batch), params)
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
