"""Numpy (float64) models of the tenth blind corpus's programs, written from the TF1 and
Keras semantics, not from TensorFlow: each model's forward pass, data loss and penalty (one
message-passing layer of a graph network: TF1's gather of the source nodes' messages and
unsorted_segment_sum into their destinations, against a dense or sparse adjacency matmul,
the mean of the messages, the edges read the other way round; a network predicting three
quantiles under the pinball loss: TF1's maximum(q·e, (q−1)·e), the same through tf.where or
a custom Keras loss, the residual taken with the wrong sign, and TF1's natural_exp_decay
against Keras' ExponentialDecay; a classifier whose hidden activations carry a penalty: TF1
adds it to the loss, Keras' `add_loss` in a custom layer, summed from `model.losses` — or
forgotten). Every program trains by gradient descent (quant with a decaying rate).
Gradients by central differences of each program's objective in float64. No TensorFlow is
imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); `loss` is the data
loss, `regularization` the activity penalty where a program adds one (None where not: gnn,
quant, and the program that forgets it), the learning rate is per variable, the update is the
variable after the step minus the variable it read; no program here has state (None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from migration_proof import central_differences, corpus_prepare_data

Arrays = dict[str, np.ndarray]
QUANTILES = np.array([0.1, 0.5, 0.9])
AUX = 0.05  # the activity penalty's strength

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
    loss: float  # the data loss
    penalty: float | None = None  # the activity penalty, where the program adds one


def gnn_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """m = x Km; agg[v] = the sum of m[u] over the edges u -> v ('tf1', 'keras'), their mean
    ('mean': 0 at a node without in-edges), or the sum over the edges v -> u ('rev': the
    adjacency transposed); h = tanh(agg + x Ks + bs); pred = h Ko + bo; the mean squared
    error over the nodes."""
    x = d["x"]
    src, dst = d["src"].astype(int), d["dst"].astype(int)
    if o["kind"] == "rev":
        src, dst = dst, src
    m = x @ p["msg/kernel"]
    agg = np.zeros_like(m)
    np.add.at(agg, dst, m[src])
    if o["kind"] == "mean":
        agg = agg / np.maximum(np.bincount(dst, minlength=len(x)), 1)[:, None]
    h = np.tanh(agg + x @ p["self/kernel"] + p["self/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    return Forward({"msg": m, "agg": agg, "h": h, "pred": pred},
                   float(((pred - d["y"]) ** 2).mean()))


def quant_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1); pred = h K2 + b2 (one column per quantile 0.1, 0.5, 0.9); the
    pinball loss mean(max(q e, (q - 1) e)) over examples and quantiles with e = y - pred
    (e = pred - y for 'sign')."""
    h = np.tanh(d["x"] @ p["hid/kernel"] + p["hid/bias"])
    pred = h @ p["out/kernel"] + p["out/bias"]
    e = pred - d["y"] if o["kind"] == "sign" else d["y"] - pred
    loss = np.maximum(QUANTILES * e, (QUANTILES - 1) * e)
    return Forward({"h": h, "pred": pred}, float(loss.mean()))


def aux_forward(p: Arrays, d: Arrays, o: dict[str, Any]) -> Forward:
    """h = tanh(x K1 + b1), the penalty 0.05·mean(h²) (not for 'forgot'); z = h K2 + b2; the
    softmax cross-entropy logsumexp(z) − z_label, the batch mean."""
    h = np.tanh(d["x"] @ p["hid/kernel"] + p["hid/bias"])
    z = h @ p["out/kernel"] + p["out/bias"]
    m = z.max(axis=1)
    lse = m + np.log(np.exp(z - m[:, None]).sum(axis=1))
    ce = float((lse - z[np.arange(len(z)), d["labels"].astype(int)]).mean())
    penalty = None if o["kind"] == "forgot" else AUX * float((h ** 2).mean())
    return Forward({"h": h, "logits": z}, ce, penalty)


def _constant(rate: float, step: int) -> float:
    return rate


def _natural_exp(step: int) -> float:
    """TF1's natural_exp_decay(0.2, global_step, 1, 0.5): 0.2·exp(−0.5·step); Keras'
    ExponentialDecay(0.2, 1, exp(−0.5)) is the same."""
    return float(0.2 * np.exp(-0.5 * step))


def _rate_as_base(step: int) -> float:
    """ExponentialDecay(0.2, 1, 0.5): natural_exp_decay's rate taken as the base, 0.2·0.5^step."""
    return 0.2 * 0.5 ** step


@dataclass
class Program:
    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    rate: Callable[[int], float]
    options: dict[str, Any] = field(default_factory=dict)
    steps: int = 3


def _gnn(kind: str) -> Program:
    return Program(gnn_forward, partial(_constant, 0.1), {"kind": kind})


def _quant(kind: str, rate: Callable[[int], float] = _natural_exp) -> Program:
    return Program(quant_forward, rate, {"kind": kind})


def _aux(kind: str) -> Program:
    return Program(aux_forward, partial(_constant, 0.5), {"kind": kind})


PROGRAMS: dict[str, Program] = {
    "tf1_gnn.py": _gnn("tf1"),
    "tf2_gnn_dense_eager.py": _gnn("keras"),
    "tf2_gnn_sparse_fn.py": _gnn("keras"),
    "tf2_gnn_mean_fit.py": _gnn("mean"),
    "tf2_gnn_transpose_fn.py": _gnn("rev"),
    "tf1_quant.py": _quant("tf1"),
    "tf2_quant_where_eager.py": _quant("keras"),
    "tf2_quant_loss_fit.py": _quant("keras"),
    "tf2_quant_sign_fn.py": _quant("sign"),
    "tf2_quant_rate_eager.py": _quant("keras", _rate_as_base),
    "tf1_aux.py": _aux("tf1"),
    "tf2_aux_fit.py": _aux("keras"),
    "tf2_aux_eager.py": _aux("keras"),
    "tf2_aux_fn.py": _aux("keras"),
    "tf2_aux_forgot_eager.py": _aux("forgot"),
}


def _objective(prog: Program, params: Arrays, data: Arrays) -> float:
    """What the program minimizes: the data loss plus its penalty, if any."""
    fw = prog.forward(params, data, prog.options)
    return fw.loss + (fw.penalty or 0.0)


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print: the objective); then the variables after the
    last."""
    steps = []
    for k in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        grads = central_differences(partial(_objective, prog, params, data), params)
        rate = prog.rate(k)
        new = {n: params[n] - rate * grads[n] for n in params}
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": fw.penalty,
            "gradient": grads, "applied_gradient": grads,
            "learning_rate": {n: rate for n in params},
            "update": {n: new[n] - params[n] for n in params},
            "state": None, "loss_total": fw.loss + (fw.penalty or 0.0),
        })
        params = new
    steps.append({"variable": params, "state": None})
    return steps


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})
