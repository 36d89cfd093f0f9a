"""What the user-style migration corpora's numpy proofs share (migration_heldout,
migration_fresh): the optimizers, clipping and learning-rate schedules of TF1 and of Keras 3,
each written from its own API's rule (the TF1 kernels' documented updates, Keras 3's
update_step; never one from the other) so that an equivalence follows from the arithmetic;
the activations and penalties both APIs name alike; and the step loop that turns a program's
model into its trajectory, gradients by central finite differences of the total loss in
float64 (every margin claimed is many orders above their error, and two sides with the same
formula get bit-identical differences). Each corpus's *_models.py holds its forward passes and
programs. No TensorFlow is imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Arrays = dict[str, np.ndarray]


# ---------------------------------------------------------------------- optimizers
# Each keeps its own slots; step(vars, grads, lr) returns the new variables.

class TF1Momentum:
    """MomentumOptimizer: accum = mu*accum + g; var -= lr*accum (Nesterov: lr*g + lr*mu*accum)."""

    def __init__(self, mu: float, nesterov: bool = False) -> None:
        self.mu, self.nesterov, self.acc = mu, nesterov, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.mu * self.acc.get(n, 0.0) + g[n]
            out[n] = v[n] - (lr * g[n] + lr * self.mu * a if self.nesterov else lr * a)
        return out


class TF1Adam:
    """AdamOptimizer: lr_t = lr*sqrt(1-b2^t)/(1-b1^t); var -= lr_t*m/(sqrt(v)+eps)."""

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.v = b1, b2, eps, 0, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        self.t += 1
        lr_t = lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        out = {}
        for n in v:
            m = self.m[n] = self.b1 * self.m.get(n, 0.0) + (1 - self.b1) * g[n]
            s = self.v[n] = self.b2 * self.v.get(n, 0.0) + (1 - self.b2) * g[n] ** 2
            out[n] = v[n] - lr_t * m / (np.sqrt(s) + self.eps)
        return out


class TF1Adagrad:
    """AdagradOptimizer: acc += g^2; var -= lr*g/sqrt(acc) (no epsilon)."""

    def __init__(self, initial: float) -> None:
        self.initial, self.acc = initial, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.acc.get(n, self.initial) + g[n] ** 2
            out[n] = v[n] - lr * g[n] / np.sqrt(a)
        return out


class TF1RMSProp:
    """RMSPropOptimizer: the mean square starts at 1.0; ms += (g^2-ms)(1-decay);
    mom = momentum*mom + lr*g/sqrt(ms+eps); var -= mom."""

    def __init__(self, decay: float, momentum: float, eps: float) -> None:
        self.decay, self.momentum, self.eps, self.ms, self.mom = decay, momentum, eps, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            ms = self.ms.get(n, 1.0)
            ms = self.ms[n] = ms + (g[n] ** 2 - ms) * (1 - self.decay)
            mom = self.momentum * self.mom.get(n, 0.0) + lr * g[n] / np.sqrt(ms + self.eps)
            self.mom[n] = mom
            out[n] = v[n] - mom
        return out


class TF1SGD:
    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        return {n: v[n] - lr * g[n] for n in v}


class KerasSGD:
    """keras SGD: decoupled decay var -= var*wd*lr first; m = m*mu - g*lr; var += m
    (Nesterov: var += m*mu - g*lr); without momentum var -= g*lr."""

    def __init__(self, mu: float = 0.0, nesterov: bool = False, weight_decay: float = 0.0) -> None:
        self.mu, self.nesterov, self.wd, self.m = mu, nesterov, weight_decay, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            w = v[n] - v[n] * self.wd * lr if self.wd else v[n]
            if self.mu:
                m = self.m[n] = self.m.get(n, 0.0) * self.mu - g[n] * lr
                w = w + (m * self.mu - g[n] * lr if self.nesterov else m)
            else:
                w = w - g[n] * lr
            out[n] = w
        return out


class KerasAdam:
    """keras Adam: alpha = lr*sqrt(1-b2^t)/(1-b1^t); m += (g-m)(1-b1); v += (g^2-v)(1-b2);
    var -= m*alpha/(sqrt(v)+eps)."""

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.v = b1, b2, eps, 0, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        self.t += 1
        alpha = lr * np.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
        out = {}
        for n in v:
            m = self.m[n] = self.m.get(n, 0.0) + (g[n] - self.m.get(n, 0.0)) * (1 - self.b1)
            s = self.v[n] = self.v.get(n, 0.0) + (g[n] ** 2 - self.v.get(n, 0.0)) * (1 - self.b2)
            out[n] = v[n] - m * alpha / (np.sqrt(s) + self.eps)
        return out


class KerasAdagrad:
    """keras Adagrad: acc (from initial_accumulator_value) += g^2; var -= lr*g/sqrt(acc+eps)."""

    def __init__(self, initial: float = 0.1, eps: float = 1e-7) -> None:
        self.initial, self.eps, self.acc = initial, eps, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.acc.get(n, self.initial) + g[n] ** 2
            out[n] = v[n] - lr * g[n] / np.sqrt(a + self.eps)
        return out


class KerasRMSprop:
    """keras RMSprop (no momentum): vel = rho*vel + (1-rho)*g^2; var -= lr*g/sqrt(vel+eps);
    the velocities start at `initial` (0.0 unless the program assigns them: 1.0 is TF1's)."""

    def __init__(self, rho: float, eps: float, initial: float = 0.0) -> None:
        self.rho, self.eps, self.initial, self.vel = rho, eps, initial, {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            vel = self.rho * self.vel.get(n, self.initial) + (1 - self.rho) * g[n] ** 2
            self.vel[n] = vel
            out[n] = v[n] - lr * g[n] / np.sqrt(vel + self.eps)
        return out




def clip_global(g: Arrays, c: float) -> Arrays:
    """tf.clip_by_global_norm and Keras' global_clipnorm: g * c / max(global norm, c)."""
    norm = np.sqrt(sum((a ** 2).sum() for a in g.values()))
    return {n: a * c / max(norm, c) for n, a in g.items()}


def clip_each(g: Arrays, c: float) -> Arrays:
    """Keras clipnorm: each tensor by its own norm."""
    return {n: a * c / max(np.sqrt((a ** 2).sum()), c) for n, a in g.items()}


def clip_value(g: Arrays, c: float) -> Arrays:
    return {n: np.clip(a, -c, c) for n, a in g.items()}


def piecewise(boundaries: list[int], values: list[float]) -> Callable[[int], float]:
    """TF1 piecewise_constant and Keras PiecewiseConstantDecay: values[i] while step <= b_i."""
    def lr(step: int) -> float:
        for b, v in zip(boundaries, values[:len(boundaries)], strict=True):
            if step <= b:
                return v
        return values[-1]
    return lr


def exp_staircase(lr0: float, decay_steps: int, rate: float) -> Callable[[int], float]:
    return lambda step: lr0 * rate ** (step // decay_steps)


def constant(lr0: float) -> Callable[[int], float]:
    return lambda step: lr0


# ---------------------------------------------------------------------- models
def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0.0)


def sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a))


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def sparse_xent(y: np.ndarray, logits: np.ndarray) -> float:
    return float(-log_softmax(logits)[np.arange(len(y)), y].mean())


@dataclass
class Forward:
    """One forward pass: the layer outputs in order, the data loss, and (batch norm in
    training) the batch statistics the moving averages are updated with."""

    layers: dict[str, np.ndarray]
    loss: float
    batch_stats: tuple[np.ndarray, np.ndarray] | None = None


def tf1_l2_loss(w: np.ndarray) -> float:
    """tf.nn.l2_loss: half the sum of squares."""
    return float((w ** 2).sum() / 2.0)


def keras_l2(factor: float, w: np.ndarray) -> float:
    """keras.regularizers.l2(factor): factor times the whole sum of squares."""
    return float(factor * (w ** 2).sum())


# ---------------------------------------------------------------------- the programs

@dataclass
class Program:
    """What one program computes from its data (the corpus's program_data): its model,
    penalty, optimizer, clipping, rate schedule, batch-norm moving averages, steps."""

    forward: Callable[[Arrays, Arrays, dict[str, Any]], Forward]
    optimizer: Callable[[], Any]
    lr: Callable[[int], float]
    options: dict[str, Any] = field(default_factory=dict)
    penalty: Callable[[Arrays], float] | None = None
    clip: Callable[[Arrays], Arrays] | None = None
    # batch norm: (moving, batch) -> new moving, for mean and variance alike
    state_update: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None
    steps: int = 3


def total_loss(prog: Program, p: Arrays, d: Arrays) -> float:
    fw = prog.forward(p, d, prog.options)
    return fw.loss + (prog.penalty(p) if prog.penalty else 0.0)


def fd_gradient(prog: Program, p: Arrays, d: Arrays, h: float = 1e-6) -> Arrays:
    """Central differences of the total loss, element by element."""
    grads = {}
    for n, w in p.items():
        g = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = total_loss(prog, p, d)
            w[i] = orig - h
            down = total_loss(prog, p, d)
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them: variable,
    layer_output, loss, regularization, gradient, applied_gradient, learning_rate, update,
    state (and loss_total, what the programs print); then the variables after the last."""
    for key in ("bn/moving_mean", "bn/moving_variance"):
        if key in data:
            data[f"state/{key}"] = data.pop(key)
    opt = prog.optimizer()
    steps = []
    for k in range(prog.steps):
        fw = prog.forward(params, data, prog.options)
        reg = prog.penalty(params) if prog.penalty else None
        grads = fd_gradient(prog, params, data)
        applied = prog.clip(grads) if prog.clip else grads
        lr = prog.lr(k)
        new = opt.step({n: w.copy() for n, w in params.items()}, applied, lr)
        state = None
        if prog.state_update and fw.batch_stats is not None:
            mean, var = fw.batch_stats
            data["state/bn/moving_mean"] = prog.state_update(data["state/bn/moving_mean"], mean)
            data["state/bn/moving_variance"] = prog.state_update(
                data["state/bn/moving_variance"], var)
        if "state/bn/moving_mean" in data:
            state = {"bn/moving_mean": data["state/bn/moving_mean"].copy(),
                     "bn/moving_variance": data["state/bn/moving_variance"].copy()}
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": reg,
            "gradient": grads, "applied_gradient": applied, "learning_rate": lr,
            "update": {n: new[n] - params[n] for n in params}, "state": state,
            "loss_total": fw.loss + (reg or 0.0),
        })
        params = new
    steps.append({"variable": params})  # after the last step
    return steps
