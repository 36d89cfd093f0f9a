"""The optimizers, clipping and learning-rate schedules of TF1 and of Keras 3, in numpy,
each written from its own API's rule (not shared between the two) so that an equivalence
follows from the arithmetic.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Arrays = dict[str, np.ndarray]

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
    the velocities start at `initial` (the programs assign 1.0, TF1's start)."""

    def __init__(self, rho: float, eps: float, initial: float) -> None:
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


