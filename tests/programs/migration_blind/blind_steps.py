"""What the blind corpus's numpy models need beyond ../migration_numpy.py: Adadelta and
FTRL-proximal as TF1's kernels and as Keras 3's update_step each write them (one never derived
from the other), the rate schedules the programs use (TF1's hand-written warmup + cosine_decay
against Keras' CosineDecay with warmup; inverse-time decay), and a step loop for programs that
freeze variables or accumulate the gradients of several micro-batches before one update.

No TensorFlow here. Gradients are central finite differences of the total loss in float64
(migration_numpy.fd_gradient's method, restricted to the trainable variables).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from migration_numpy import Arrays, Forward

# ---------------------------------------------------------------------- optimizers


class TF1Adadelta:
    """ApplyAdadelta: accum = rho*accum + (1-rho)g^2;
    update = sqrt(accum_update + eps) / sqrt(accum + eps) * g;
    accum_update = rho*accum_update + (1-rho)update^2; var -= lr*update."""

    def __init__(self, rho: float = 0.95, eps: float = 1e-8) -> None:
        self.rho, self.eps = rho, eps
        self.accum: Arrays = {}
        self.accum_update: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            acc = self.rho * self.accum.get(n, 0.0) + (1 - self.rho) * g[n] ** 2
            self.accum[n] = acc
            prev = self.accum_update.get(n, np.zeros_like(v[n]))
            update = np.sqrt(prev + self.eps) / np.sqrt(acc + self.eps) * g[n]
            self.accum_update[n] = self.rho * prev + (1 - self.rho) * update ** 2
            out[n] = v[n] - lr * update
        return out


class KerasAdadelta:
    """keras Adadelta: acc_g = rho*acc_g + (1-rho)g^2; rms(x) = sqrt(x + eps);
    delta = -rms(acc_delta) * g / rms(acc_g); acc_delta = rho*acc_delta + (1-rho)delta^2;
    var += lr*delta."""

    def __init__(self, rho: float = 0.95, eps: float = 1e-7) -> None:
        self.rho, self.eps = rho, eps
        self.acc_g: Arrays = {}
        self.acc_delta: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            acc_g = self.acc_g[n] = (self.rho * self.acc_g.get(n, 0.0)
                                     + (1 - self.rho) * g[n] * g[n])
            acc_delta = self.acc_delta.get(n, np.zeros_like(v[n]))
            delta = -(np.sqrt(acc_delta + self.eps) * g[n]) / np.sqrt(acc_g + self.eps)
            self.acc_delta[n] = self.rho * acc_delta + (1 - self.rho) * delta ** 2
            out[n] = v[n] + lr * delta
        return out


class TF1Ftrl:
    """ApplyFtrl, learning_rate_power -0.5: new_accum = accum + g^2 (accum from 0.1);
    linear += g - (sqrt(new_accum) - sqrt(accum))/lr * var;
    var = (l1*sign(linear) - linear) / (sqrt(new_accum)/lr + 2*l2) where |linear| > l1, else 0.
    """

    def __init__(self, l1: float, l2: float, initial: float = 0.1) -> None:
        self.l1, self.l2, self.initial = l1, l2, initial
        self.accum: Arrays = {}
        self.linear: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            accum = self.accum.get(n, np.full_like(v[n], self.initial))
            new_accum = accum + g[n] ** 2
            linear = self.linear.get(n, np.zeros_like(v[n]))
            linear = linear + g[n] - (np.sqrt(new_accum) - np.sqrt(accum)) / lr * v[n]
            self.linear[n], self.accum[n] = linear, new_accum
            x = self.l1 * np.sign(linear) - linear
            y = np.sqrt(new_accum) / lr + 2 * self.l2
            out[n] = np.where(np.abs(linear) > self.l1, x / y, 0.0)
        return out


class KerasFtrl:
    """keras Ftrl (beta 0, no shrinkage): new_accum = accum + g^2 (accum from 0.1);
    linear += g - (new_accum^0.5 - accum^0.5)/lr * var; quadratic = new_accum^0.5/lr + 2*l2;
    var = (clip(linear, -l1, l1) - linear) / quadratic."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0, initial: float = 0.1) -> None:
        self.l1, self.l2, self.initial = l1, l2, initial
        self.accum: Arrays = {}
        self.linear: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            accum = self.accum.get(n, np.full_like(v[n], self.initial))
            new_accum = accum + np.square(g[n])
            linear = self.linear.get(n, np.zeros_like(v[n]))
            linear = linear + (g[n] - (new_accum ** 0.5 - accum ** 0.5) / lr * v[n])
            self.linear[n], self.accum[n] = linear, new_accum
            quadratic = new_accum ** 0.5 / lr + 2 * self.l2
            out[n] = (np.clip(linear, -self.l1, self.l1) - linear) / quadratic
        return out


# ---------------------------------------------------------------------- schedules

def tf1_warmup_cosine(step: int) -> float:
    """tf1_conv1d.py: 0.05 + 0.15*step/2 while step < 2, else
    cosine_decay(0.2, step - 2, decay_steps=4, alpha=0.1) (its step capped at 4)."""
    if step < 2:
        return 0.05 + (0.2 - 0.05) * step / 2.0
    done = min(step - 2, 4) / 4
    return 0.2 * ((1 - 0.1) * 0.5 * (1 + math.cos(math.pi * done)) + 0.1)


def keras_cosine_warmup(decay_steps: int) -> Callable[[int], float]:
    """CosineDecay(0.05, decay_steps, alpha=0.1, warmup_target=0.2, warmup_steps=2): the step
    capped at decay_steps + 2; below 2, (0.2 - 0.05)*step/2 + 0.05; else the cosine from 0.2
    over decay_steps of step - 2."""
    def lr(step: int) -> float:
        s = min(step, decay_steps + 2)
        if s < 2:
            return (0.2 - 0.05) * (s / 2) + 0.05
        return 0.2 * ((1 - 0.1) * (0.5 * (1.0 + math.cos(math.pi * ((s - 2) / decay_steps))))
                      + 0.1)
    return lr


def inverse_time(offset: int = 0) -> Callable[[int], float]:
    """0.5 / (1 + 0.5*step): TF1 inverse_time_decay(0.5, step, 1, 0.5), Keras
    InverseTimeDecay(0.5, 1, 0.5), the tf.Module's formula; `offset` 1: the step numbered
    from 1."""
    return lambda step: 0.5 / (1.0 + 0.5 * (step + offset))


# ---------------------------------------------------------------------- the step loop

@dataclass
class Steps:
    """One program: its model (forward pass and data loss per batch), its penalty (of the
    weights and the forward pass: activity penalties read the activations), the optimizer,
    the rate schedule, which variables train (None: all), and how many micro-batches each
    update accumulates (reset: whether the accumulators are zeroed after each update)."""

    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    optimizer: Callable[[], Any]
    lr: Callable[[int], float]
    options: dict[str, Any] = field(default_factory=dict)
    penalty: Callable[[Arrays, Forward], float] | None = None
    trainable: tuple[str, ...] | None = None
    micro: int = 1
    reset: bool = True
    steps: int = 3


def _total(prog: Steps, p: Arrays, d: Arrays) -> float:
    fw = prog.forward(p, d, prog.options)
    return fw.loss + (prog.penalty(p, fw) if prog.penalty else 0.0)


def _gradient(prog: Steps, p: Arrays, d: Arrays, names: tuple[str, ...],
              h: float = 1e-6) -> Arrays:
    grads = {}
    for n in names:
        w, g = p[n], np.zeros_like(p[n])
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = _total(prog, p, d)
            w[i] = orig - h
            down = _total(prog, p, d)
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def _batches(d: Arrays, micro: int) -> list[Arrays]:
    size = len(d["x"]) // micro
    return [{k: a[i * size:(i + 1) * size] for k, a in d.items()} for i in range(micro)]


def run_steps(prog: Steps, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (with several
    micro-batches: the loss, penalty, layer outputs and raw gradients of each, in order; the
    applied gradient is their accumulated sum over `micro`); then the variables after the
    last step. Frozen variables are read (variable) but have no gradient and no update."""
    names = prog.trainable or tuple(params)
    opt = prog.optimizer()
    params = {n: w.copy() for n, w in params.items()}
    accumulated = {n: np.zeros_like(params[n]) for n in names}
    steps = []
    for k in range(prog.steps):
        if prog.reset:
            accumulated = {n: np.zeros_like(params[n]) for n in names}
        losses, regs, layers, raw = [], [], {}, []
        for i, batch in enumerate(_batches(data, prog.micro)):
            fw = prog.forward(params, batch, prog.options)
            losses.append(fw.loss)
            regs.append(prog.penalty(params, fw) if prog.penalty else None)
            suffix = f"#{i}" if prog.micro > 1 else ""
            layers.update({f"{n}{suffix}": a for n, a in fw.layers.items()})
            g = _gradient(prog, params, batch, names)
            raw.append(g)
            accumulated = {n: accumulated[n] + g[n] for n in names}
        applied = {n: accumulated[n] / prog.micro for n in names}
        lr = prog.lr(k)
        new = opt.step({n: params[n].copy() for n in names}, applied, lr)
        gradient = raw[0] if prog.micro == 1 else {
            n: np.stack([g[n] for g in raw]) for n in names}
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": layers,
            "loss": losses[0] if prog.micro == 1 else np.array(losses),
            "regularization": None if regs[0] is None else (
                regs[0] if prog.micro == 1 else np.array(regs)),
            "gradient": gradient, "applied_gradient": applied, "learning_rate": lr,
            "update": {n: new[n] - params[n] for n in names}, "state": None,
            "loss_total": float(np.mean([a + (r or 0.0) for a, r in zip(losses, regs,
                                                                         strict=True)])),
        })
        params.update(new)
    steps.append({"variable": params})
    return steps
