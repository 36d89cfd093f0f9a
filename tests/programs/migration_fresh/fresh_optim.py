"""The optimizers, clipping and learning-rate schedules of TF1 and of Keras 3 the fresh
programs use, in numpy, each written from its own API's rule (the TF1 kernels' documented
updates, Keras 3's update_step) so that an equivalence follows from the arithmetic.
Each optimizer keeps its own slots; step(vars, grads, lr) returns the new variables.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Arrays = dict[str, np.ndarray]


class TF1SGD:
    """GradientDescentOptimizer: var -= lr*g."""

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        return {n: v[n] - lr * g[n] for n in v}


class TF1Momentum:
    """MomentumOptimizer: accum = mu*accum + g; var -= lr*accum."""

    def __init__(self, mu: float) -> None:
        self.mu = mu
        self.acc: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.mu * self.acc.get(n, 0.0) + g[n]
            out[n] = v[n] - lr * a
        return out


class TF1Adam:
    """AdamOptimizer: lr_t = lr*sqrt(1-b2^t)/(1-b1^t); m, v moving averages of g, g^2;
    var -= lr_t*m/(sqrt(v)+eps)."""

    def __init__(self, b1: float, b2: float, eps: float) -> None:
        self.b1, self.b2, self.eps, self.t = b1, b2, eps, 0
        self.m: Arrays = {}
        self.v: Arrays = {}

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
    """AdagradOptimizer: acc (from initial_accumulator_value) += g^2; var -= lr*g/sqrt(acc)."""

    def __init__(self, initial: float) -> None:
        self.initial = initial
        self.acc: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.acc.get(n, self.initial) + g[n] ** 2
            out[n] = v[n] - lr * g[n] / np.sqrt(a)
        return out


class TF1RMSProp:
    """RMSPropOptimizer without momentum: the mean square starts at 1.0;
    ms += (g^2-ms)(1-decay); var -= lr*g/sqrt(ms+eps)."""

    def __init__(self, decay: float, eps: float) -> None:
        self.decay, self.eps = decay, eps
        self.ms: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            ms = self.ms.get(n, 1.0)
            ms = self.ms[n] = ms + (g[n] ** 2 - ms) * (1 - self.decay)
            out[n] = v[n] - lr * g[n] / np.sqrt(ms + self.eps)
        return out


class KerasSGD:
    """keras SGD: m = m*mu - g*lr; var += m (without momentum var -= g*lr)."""

    def __init__(self, mu: float = 0.0) -> None:
        self.mu = mu
        self.m: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            if self.mu:
                m = self.m[n] = self.m.get(n, 0.0) * self.mu - g[n] * lr
                out[n] = v[n] + m
            else:
                out[n] = v[n] - g[n] * lr
        return out


class KerasAdam:
    """keras Adam: alpha = lr*sqrt(1-b2^t)/(1-b1^t); m += (g-m)(1-b1); v += (g^2-v)(1-b2);
    var -= m*alpha/(sqrt(v)+eps)."""

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> None:
        self.b1, self.b2, self.eps, self.t = b1, b2, eps, 0
        self.m: Arrays = {}
        self.v: Arrays = {}

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
    """keras Adagrad: acc (from initial_accumulator_value, default 0.1) += g^2;
    var -= lr*g/sqrt(acc+eps)."""

    def __init__(self, initial: float = 0.1, eps: float = 1e-7) -> None:
        self.initial, self.eps = initial, eps
        self.acc: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            a = self.acc[n] = self.acc.get(n, self.initial) + g[n] ** 2
            out[n] = v[n] - lr * g[n] / np.sqrt(a + self.eps)
        return out


class KerasRMSprop:
    """keras RMSprop (no momentum): vel = rho*vel + (1-rho)*g^2; var -= lr*g/sqrt(vel+eps);
    the velocities start at `initial` (0.0 unless the program assigns them)."""

    def __init__(self, rho: float, eps: float, initial: float = 0.0) -> None:
        self.rho, self.eps, self.initial = rho, eps, initial
        self.vel: Arrays = {}

    def step(self, v: Arrays, g: Arrays, lr: float) -> Arrays:
        out = {}
        for n in v:
            vel = self.rho * self.vel.get(n, self.initial) + (1 - self.rho) * g[n] ** 2
            self.vel[n] = vel
            out[n] = v[n] - lr * g[n] / np.sqrt(vel + self.eps)
        return out


def clip_global(c: float) -> Callable[[Arrays], Arrays]:
    """tf.clip_by_global_norm and Keras' global_clipnorm: g * c / max(global norm, c)."""
    def clip(g: Arrays) -> Arrays:
        norm = np.sqrt(sum((a ** 2).sum() for a in g.values()))
        return {n: a * c / max(norm, c) for n, a in g.items()}
    return clip


def clip_value(c: float) -> Callable[[Arrays], Arrays]:
    """tf.clip_by_value(g, -c, c) and Keras' clipvalue."""
    return lambda g: {n: np.clip(a, -c, c) for n, a in g.items()}


def piecewise(boundaries: list[int], values: list[float]) -> Callable[[int], float]:
    """TF1 piecewise_constant and Keras PiecewiseConstantDecay: values[i] while step <= b_i."""
    def lr(step: int) -> float:
        for b, v in zip(boundaries, values[:len(boundaries)], strict=True):
            if step <= b:
                return v
        return values[-1]
    return lr


def exp_staircase(lr0: float, decay_steps: int, rate: float) -> Callable[[int], float]:
    """TF1 exponential_decay(staircase=True), Keras ExponentialDecay(staircase=True)."""
    return lambda step: lr0 * rate ** (step // decay_steps)


def constant(lr0: float) -> Callable[[int], float]:
    return lambda step: lr0
