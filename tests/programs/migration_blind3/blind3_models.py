"""Numpy (float64) models of the third blind corpus's programs, written from the TF1 and Keras
semantics, not from TensorFlow: each model's forward pass and loss (contrastive, Poisson,
focal, KL divergence, a TD error), each API's optimizer (AdaMax as tf.contrib's kernel and as
Keras' Adamax, Adam, momentum, plain descent), the cosine schedules, the max-norm
projections, and the state a step leaves outside the optimizer (averages of the weights, a
target network). Gradients by central differences of the loss in float64. No TensorFlow is
imported here.

Every step records the step contract's quantities (variable, layer_output, loss,
regularization, gradient, applied_gradient, learning_rate, update, state); the learning rate
is per variable (two optimizers may drive one model), the update is the variable after the
step (the optimizer's write and any projection after it) minus the variable it read, the
state is the non-trainable values after the step (None where a program has none).
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
        "migration_blind3_prepare_data", Path(__file__).with_name("prepare_data.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


ARRAYS = _own_prepare_data().ARRAYS  # type: ignore[attr-defined]


def program_data(program: str) -> tuple[Arrays, Arrays]:
    """(batch, starting weights) of `program`'s model: float32 values widened to float64
    (integer actions kept); a name with a '/' is a trainable weight."""
    arrays = ARRAYS[program[4:-3].split("_")[0]]()
    batch = {k: v if v.dtype.kind == "i" else np.asarray(v, np.float32).astype(np.float64)
             for k, v in arrays.items() if "/" not in k}
    weights = {k: np.asarray(v, np.float32).astype(np.float64)
               for k, v in arrays.items() if "/" in k}
    return batch, weights


# ---------------------------------------------------------------------- small functions

def relu(a: np.ndarray) -> np.ndarray:
    return np.maximum(a, 0.0)


def sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a))


def log_softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def sigmoid_xent(y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """tf.nn.sigmoid_cross_entropy_with_logits: max(z, 0) - z y + log(1 + exp(-|z|))."""
    return np.maximum(z, 0.0) - z * y + np.log1p(np.exp(-np.abs(z)))


EPSILON = 1e-7  # keras.backend.epsilon()


@dataclass
class Forward:
    layers: dict[str, np.ndarray]
    loss: float
    # what the gradient is taken of, where the loss itself is NaN but backpropagation is not
    # (d log x / dx = 1/x also where log x is NaN): a function with the same derivative
    grad_loss: float | None = None


# ---------------------------------------------------------------------- forward passes

MARGIN = 1.5


def siamese_forward(p: Arrays, s: Arrays | None, d: Arrays, o: dict[str, Any]) -> Forward:
    """One tower (two tanh layers) on both inputs; the Euclidean distance of the two
    embeddings, (N, 1); the contrastive loss mean(y d^2 + (1-y) max(1.5 - d, 0)^2) / 2. With
    o['broadcast'] the distance is (N,) and y (N, 1): every term is an (N, N) grid, averaged."""
    def tower(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.tanh(x @ p["hidden/kernel"] + p["hidden/bias"])
        return h, np.tanh(h @ p["embed/kernel"] + p["embed/bias"])

    h1, e1 = tower(d["x1"])
    h2, e2 = tower(d["x2"])
    dist = np.sqrt(((e1 - e2) ** 2).sum(axis=1, keepdims=True))
    if o["broadcast"]:
        dist = dist[:, 0]
    y = d["y"]
    terms = y * dist ** 2 + (1.0 - y) * np.maximum(MARGIN - dist, 0.0) ** 2
    return Forward({"hidden1": h1, "embed1": e1, "hidden2": h2, "embed2": e2},
                   float(terms.mean() / 2.0))


def ema_forward(p: Arrays, s: Arrays | None, d: Arrays, o: dict[str, Any]) -> Forward:
    """relu hidden layer, a log-rate z; the Poisson loss as each program computes it:
    'tf1' tf.nn.log_poisson_loss(y, z) = exp(z) - y z; 'keras' Poisson()(y, exp(z)) =
    exp(z) - y log(exp(z) + eps) (a Dense with the exponential activation); 'log_rate'
    Poisson()(y, z) = z - y log(z + eps): NaN wherever z < -eps, while its backpropagated
    gradient 1 - y / (z + eps) stays finite (the gradient of z - y log|z + eps|)."""
    h = relu(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    z = h @ p["rate/kernel"] + p["rate/bias"]
    y = d["y"]
    layers = {"hidden": h, "log_rate": z}
    with np.errstate(invalid="ignore"):
        if o["loss"] == "tf1":
            terms = np.exp(z) - y * z
        elif o["loss"] == "keras":
            layers["rate"] = np.exp(z)
            terms = np.exp(z) - y * np.log(np.exp(z) + EPSILON)
        else:
            terms = z - y * np.log(z + EPSILON)
            backprop = z - y * np.log(np.abs(z + EPSILON))
            return Forward(layers, float(terms.mean()), float(backprop.mean()))
    return Forward(layers, float(terms.mean()))


ALPHA, GAMMA, MAX_NORM = 0.25, 2.0, 1.0


def maxnorm_forward(p: Arrays, s: Arrays | None, d: Arrays, o: dict[str, Any]) -> Forward:
    """relu hidden layer, 3 logits; the binary focal loss: 'tf1' the RetinaNet form written by
    hand, alpha_t (1 - p_t)^gamma ce, averaged; 'keras' BinaryFocalCrossentropy(from_logits)
    (1 - p_t)^gamma bce, times y alpha + (1-y)(1-alpha) only where o['balance'], mean over
    the labels then the batch."""
    h = relu(d["x"] @ p["hidden/kernel"] + p["hidden/bias"])
    z = h @ p["logits/kernel"] + p["logits/bias"]
    y = d["y"]
    prob = sigmoid(z)
    p_t = y * prob + (1.0 - y) * (1.0 - prob)
    weight = y * ALPHA + (1.0 - y) * (1.0 - ALPHA)
    ce = sigmoid_xent(y, z)
    if o["loss"] == "tf1":
        loss = float((weight * (1.0 - p_t) ** GAMMA * ce).mean())
    else:
        focal = (1.0 - p_t) ** GAMMA * ce
        if o["balance"]:
            focal = weight * focal
        loss = float(focal.mean(axis=-1).mean())
    return Forward({"hidden": h, "logits": z}, loss)


def twoopt_forward(p: Arrays, s: Arrays | None, d: Arrays, o: dict[str, Any]) -> Forward:
    """tanh encoder, linear head; KL(target || softmax(z)): 'tf1' sum p (log p - log_softmax
    z), averaged; 'keras' KLDivergence()(p, softmax(z)) = sum clip(p) log(clip(p)/clip(q))
    (clip to [eps, 1]), averaged; 'swapped' the same call with its arguments swapped."""
    h = np.tanh(d["x"] @ p["encoder/kernel"] + p["encoder/bias"])
    z = h @ p["head/kernel"] + p["head/bias"]
    target = d["y"]
    if o["loss"] == "tf1":
        kl = (target * (np.log(target) - log_softmax(z))).sum(axis=1)
    else:
        q = np.exp(log_softmax(z))
        a, b = (target, q) if o["loss"] == "keras" else (q, target)
        a, b = np.clip(a, EPSILON, 1.0), np.clip(b, EPSILON, 1.0)
        kl = (a * np.log(a / b)).sum(axis=-1)
    return Forward({"encoder": h, "head": z}, float(kl.mean()))


DISCOUNT = 0.9


def dqn_forward(p: Arrays, s: Arrays | None, d: Arrays, o: dict[str, Any]) -> Forward:
    """Q(s) by the online weights, the taken action's value; the TD target r + discount (1 -
    done) max_a Q'(s', a) by the target network's weights (the state), or, with
    o['online_target'], by the online weights themselves (and differentiated through: no
    stop_gradient); the mean squared TD error."""
    def q_net(x: np.ndarray, w: Arrays, prefix: str) -> tuple[np.ndarray, np.ndarray]:
        h = relu(x @ w[prefix + "hidden/kernel"] + w[prefix + "hidden/bias"])
        return h, h @ w[prefix + "q/kernel"] + w[prefix + "q/bias"]

    h, q = q_net(d["states"], p, "")
    taken = q[np.arange(len(q)), d["actions"]]
    nh, nq = q_net(d["next_states"], p, "") if o["online_target"] else q_net(
        d["next_states"], s or {}, "target/")
    target = d["rewards"] + DISCOUNT * (1.0 - d["done"]) * nq.max(axis=1)
    return Forward({"hidden": h, "q": q, "next_hidden": nh, "next_q": nq},
                   float(((target - taken) ** 2).mean()))


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


class TF1Adam:
    """AdamOptimizer (its own beta powers): lr_t = lr sqrt(1-b2^t)/(1-b1^t);
    m = b1 m + (1-b1) g; v = b2 v + (1-b2) g^2; var -= lr_t m / (sqrt(v) + eps)."""

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
            out[n] = v[n] - lr_t * m / (np.sqrt(s) + self.eps)
        return out


class KerasAdam:
    """keras Adam: alpha = lr sqrt(1-b2^t)/(1-b1^t) (t = its iterations + 1);
    m += (g-m)(1-b1); v += (g^2-v)(1-b2); var -= m alpha / (sqrt(v) + eps)."""

    m: dict[str, Any]
    v: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.v = b1, b2, eps, 0, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        self.t += 1
        out = {}
        for n in v:
            alpha = lr[n] * math.sqrt(1 - self.b2 ** self.t) / (1 - self.b1 ** self.t)
            m0, v0 = self.m.get(n, 0.0), self.v.get(n, 0.0)
            m = self.m[n] = m0 + (g[n] - m0) * (1 - self.b1)
            s = self.v[n] = v0 + (g[n] ** 2 - v0) * (1 - self.b2)
            out[n] = v[n] - m * alpha / (np.sqrt(s) + self.eps)
        return out


class TF1AdaMax:
    """tf.contrib.opt.AdaMaxOptimizer's ApplyAdaMax kernel, beta1_power a variable from b1
    multiplied by b1 after each step: m += (g - m)(1-b1); v = max(b2 v, |g|);
    var -= lr / (1 - beta1_power) * m / (v + eps)."""

    m: dict[str, Any]
    v: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
        self.b1, self.b2, self.eps, self.power, self.m, self.v = b1, b2, eps, b1, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out = {}
        for n in v:
            m0 = self.m.get(n, 0.0)
            m = self.m[n] = m0 + (g[n] - m0) * (1 - self.b1)
            u = self.v[n] = np.maximum(self.b2 * self.v.get(n, 0.0), np.abs(g[n]))
            out[n] = v[n] - lr[n] / (1 - self.power) * (m / (u + self.eps))
        self.power *= self.b1
        return out


class KerasAdamax:
    """keras Adamax: t = iterations + 1; m += (g - m)(1-b1); u = max(b2 u, |g|);
    var -= lr m / ((1 - b1^t)(u + eps))."""

    m: dict[str, Any]
    u: dict[str, Any]

    def __init__(self, b1: float = 0.9, b2: float = 0.999, eps: float = 1e-7) -> None:
        self.b1, self.b2, self.eps, self.t, self.m, self.u = b1, b2, eps, 0, {}, {}

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        self.t += 1
        out = {}
        for n in v:
            m0 = self.m.get(n, 0.0)
            m = self.m[n] = m0 + (g[n] - m0) * (1 - self.b1)
            u = self.u[n] = np.maximum(self.b2 * self.u.get(n, 0.0), np.abs(g[n]))
            out[n] = v[n] - lr[n] * m / ((1 - self.b1 ** self.t) * (u + self.eps))
        return out


class Split:
    """Two optimizers, each stepping the variables given to it (once per training step)."""

    def __init__(self, parts: list[tuple[tuple[str, ...], Any]]) -> None:
        self.parts = parts

    def step(self, v: Arrays, g: Arrays, lr: dict[str, float]) -> Arrays:
        out: Arrays = {}
        for names, opt in self.parts:
            out.update(opt.step({n: v[n] for n in names}, {n: g[n] for n in names}, lr))
        assert set(out) == set(v)
        return out


# ---------------------------------------------------------------------- schedules

def tf1_cosine_restarts(lr0: float, first: int, alpha: float, t_mul: float = 2.0,
                        m_mul: float = 1.0) -> Callable[[int], float]:
    """tf.compat.v1.train.cosine_decay_restarts: with t_mul != 1 the restart index is
    floor(log(1 - f (1 - t_mul)) / log t_mul), f = step / first; the fraction within it
    (f - (1 - t_mul^i)/(1 - t_mul)) / t_mul^i; lr0 ((1-alpha) m_mul^i (1 + cos(pi f))/2 +
    alpha)."""
    def lr(step: int) -> float:
        f = step / first
        i = math.floor(math.log(1.0 - f * (1.0 - t_mul)) / math.log(t_mul))
        f = (f - (1.0 - t_mul ** i) / (1.0 - t_mul)) / t_mul ** i
        return lr0 * ((1 - alpha) * 0.5 * m_mul ** i * (1 + math.cos(math.pi * f)) + alpha)
    return lr


def keras_cosine_restarts(lr0: float, first: int, alpha: float, t_mul: float = 2.0,
                          m_mul: float = 1.0) -> Callable[[int], float]:
    """keras CosineDecayRestarts.__call__ (the geometric branch, t_mul = 2): the same
    arithmetic as the TF1 function (Keras 3 ported it)."""
    def lr(step: int) -> float:
        completed = step / first
        i_restart = math.floor(math.log(1.0 - completed * (1.0 - t_mul)) / math.log(t_mul))
        sum_r = (1.0 - t_mul ** i_restart) / (1.0 - t_mul)
        completed = (completed - sum_r) / t_mul ** i_restart
        cosine = 0.5 * m_mul ** i_restart * (1.0 + math.cos(math.pi * completed))
        return lr0 * ((1 - alpha) * cosine + alpha)
    return lr


def keras_cosine_decay(lr0: float, decay_steps: int, alpha: float) -> Callable[[int], float]:
    """keras CosineDecay (no warmup): the step capped at decay_steps;
    lr0 ((1-alpha) (1 + cos(pi step/decay_steps))/2 + alpha)."""
    def lr(step: int) -> float:
        f = min(step, decay_steps) / decay_steps
        return lr0 * ((1 - alpha) * 0.5 * (1 + math.cos(math.pi * f)) + alpha)
    return lr


def constant(lr0: float) -> Callable[[int], float]:
    return lambda step: lr0


# ---------------------------------------------------------------------- constraints, state

def tf1_clip_by_norm(p: Arrays) -> Arrays:
    """tf1_maxnorm.py's assign after the step: tf.clip_by_norm(kernel, 1.0, axes=[0]) =
    w c / max(||w_col||, c)."""
    w = p["hidden/kernel"]
    norms = np.sqrt((w ** 2).sum(axis=0, keepdims=True))
    return dict(p, **{"hidden/kernel": w * MAX_NORM / np.maximum(norms, MAX_NORM)})


def keras_max_norm(p: Arrays) -> Arrays:
    """keras MaxNorm(1.0) (axis 0), applied by the optimizer after the update:
    w clip(norm, 0, c) / (eps + norm)."""
    w = p["hidden/kernel"]
    norms = np.sqrt((w ** 2).sum(axis=0, keepdims=True))
    return dict(p, **{"hidden/kernel": w * np.clip(norms, 0.0, MAX_NORM) / (EPSILON + norms)})


def ema_start(p: Arrays) -> Arrays:
    """Averages created from the weights before the first step (TF1's shadow variables are
    initialized to the variables' initial values)."""
    return {"ema/" + n: w.copy() for n, w in p.items()}


def ema_update(num_updates: bool) -> Callable[[Arrays, Arrays, int], Arrays]:
    """ExponentialMovingAverage.apply after step k's update: decay 0.9, or, with num_updates
    (the step counter, k + 1 by then), min(0.9, (1 + n)/(10 + n));
    shadow -= (shadow - var)(1 - decay)."""
    def update(state: Arrays, p: Arrays, k: int) -> Arrays:
        n = k + 1
        decay = min(0.9, (1.0 + n) / (10.0 + n)) if num_updates else 0.9
        return {key: a - (a - p[key[4:]]) * (1.0 - decay) for key, a in state.items()}
    return update


def target_start(p: Arrays) -> Arrays:
    return {"target/" + n: w.copy() for n, w in p.items()}


def target_sync(when: Callable[[int], bool]) -> Callable[[Arrays, Arrays, int], Arrays]:
    """After step k's update, the target network is given the online weights where when(k)."""
    def update(state: Arrays, p: Arrays, k: int) -> Arrays:
        return target_start(p) if when(k) else state
    return update


# ---------------------------------------------------------------------- the programs

@dataclass
class Program:
    forward: Callable[[Arrays, Arrays | None, Arrays, dict[str, Any]], Forward]
    optimizer: Callable[[], Any]
    rates: Callable[[int, list[str]], dict[str, float]]
    options: dict[str, Any] = field(default_factory=dict)
    constraint: Callable[[Arrays], Arrays] | None = None
    state_start: Callable[[Arrays], Arrays] | None = None
    state_update: Callable[[Arrays, Arrays, int], Arrays] | None = None
    steps: int = 3


def _every(schedule: Callable[[int], float]) -> Callable[[int, list[str]], dict[str, float]]:
    return lambda step, names: {n: schedule(step) for n in names}


def _siamese(tf1: bool = False, broadcast: bool = False) -> Program:
    opt = (lambda: TF1AdaMax(eps=1e-8)) if tf1 else (lambda: KerasAdamax(eps=1e-8))
    return Program(siamese_forward, opt, _every(constant(0.05)), {"broadcast": broadcast})


def _ema(tf1: bool = False, loss: str = "keras", num_updates: bool = True) -> Program:
    opt = (lambda: TF1Momentum(0.9)) if tf1 else (lambda: KerasSGD(0.9))
    return Program(ema_forward, opt, _every(constant(0.05)), {"loss": "tf1" if tf1 else loss},
                   state_start=ema_start, state_update=ema_update(num_updates))


def _maxnorm(tf1: bool = False, constrained: bool = True, balance: bool = True,
             restarts: bool = True) -> Program:
    if tf1:
        return Program(maxnorm_forward, TF1SGD, _every(tf1_cosine_restarts(0.5, 2, 0.1)),
                       {"loss": "tf1"}, constraint=tf1_clip_by_norm)
    schedule = keras_cosine_restarts(0.5, 2, 0.1) if restarts else keras_cosine_decay(0.5, 2, 0.1)
    return Program(maxnorm_forward, KerasSGD, _every(schedule),
                   {"loss": "keras", "balance": balance},
                   constraint=keras_max_norm if constrained else None)


ENCODER = ("encoder/kernel", "encoder/bias")
HEAD = ("head/kernel", "head/bias")


def _twoopt(tf1: bool = False, loss: str = "keras", split: int = 2) -> Program:
    """Adam (0.01, eps 1e-8) on the first `split` variables, momentum 0.9 at 0.1 on the rest."""
    names = ENCODER + HEAD
    first, rest = names[:split], names[split:]
    if tf1:
        def opt() -> Split:
            return Split([(first, TF1Adam(eps=1e-8)), (rest, TF1Momentum(0.9))])
    else:
        def opt() -> Split:
            return Split([(first, KerasAdam(eps=1e-8)), (rest, KerasSGD(0.9))])
    return Program(twoopt_forward, opt,
                   lambda step, ns: {n: 0.01 if n in first else 0.1 for n in ns},
                   {"loss": "tf1" if tf1 else loss})


def _dqn(tf1: bool = False, online_target: bool = False,
         when: Callable[[int], bool] = lambda k: (k + 1) % 2 == 0) -> Program:
    opt = (lambda: TF1Adam(eps=1e-8)) if tf1 else (lambda: KerasAdam(eps=1e-8))
    return Program(dqn_forward, opt, _every(constant(0.01)), {"online_target": online_target},
                   state_start=target_start, state_update=target_sync(when))


PROGRAMS: dict[str, Program] = {
    "tf1_siamese.py": _siamese(tf1=True),
    "tf2_siamese_fn.py": _siamese(),
    "tf2_siamese_fit.py": _siamese(),
    "tf2_siamese_broadcast_eager.py": _siamese(broadcast=True),
    "tf1_ema.py": _ema(tf1=True),
    "tf2_ema_eager.py": _ema(),
    "tf2_ema_fit.py": _ema(),
    "tf2_ema_num_updates_fn.py": _ema(num_updates=False),
    "tf2_ema_log_rate_eager.py": _ema(loss="log_rate"),
    "tf1_maxnorm.py": _maxnorm(tf1=True),
    "tf2_maxnorm_fn.py": _maxnorm(),
    "tf2_maxnorm_fit.py": _maxnorm(),
    "tf2_maxnorm_forgotten_eager.py": _maxnorm(constrained=False),
    "tf2_maxnorm_alpha_fn.py": _maxnorm(balance=False),
    "tf2_maxnorm_restarts_fit.py": _maxnorm(restarts=False),
    "tf1_twoopt.py": _twoopt(tf1=True),
    "tf2_twoopt_eager.py": _twoopt(),
    "tf2_twoopt_split_fn.py": _twoopt(split=1),
    "tf2_twoopt_kl_swap_fit.py": _twoopt(loss="swapped"),
    "tf1_dqn.py": _dqn(tf1=True),
    "tf2_dqn_fn.py": _dqn(),
    "tf2_dqn_nostop_eager.py": _dqn(online_target=True),
    "tf2_dqn_sync_fn.py": _dqn(when=lambda k: k % 2 == 0),
}


# ---------------------------------------------------------------------- the step loop

def _loss(prog: Program, p: Arrays, s: Arrays | None, d: Arrays) -> float:
    fw = prog.forward(p, s, d, prog.options)
    return fw.loss if fw.grad_loss is None else fw.grad_loss


def fd_gradient(prog: Program, p: Arrays, s: Arrays | None, d: Arrays,
                h: float = 1e-6) -> Arrays:
    """Central differences of the loss (or of what its gradient is taken of), element by
    element (the state held fixed)."""
    grads = {}
    for n, w in p.items():
        g = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = _loss(prog, p, s, d)
            w[i] = orig - h
            down = _loss(prog, p, s, d)
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def run(prog: Program, data: Arrays, params: Arrays) -> list[dict[str, Any]]:
    """Per step, the step contract's quantities as the program computes them (and
    loss_total, what the programs print); then the variables and state after the last."""
    opt = prog.optimizer()
    state = prog.state_start(params) if prog.state_start else None
    steps = []
    for k in range(prog.steps):
        fw = prog.forward(params, state, data, prog.options)
        with np.errstate(invalid="ignore"):
            grads = fd_gradient(prog, params, state, data)
            rates = prog.rates(k, list(params))
            new = opt.step({n: w.copy() for n, w in params.items()}, grads, rates)
            if prog.constraint:
                new = prog.constraint(new)
        if prog.state_update and state is not None:
            state = prog.state_update(state, new, k)
        steps.append({
            "variable": {n: w.copy() for n, w in params.items()},
            "layer_output": fw.layers, "loss": fw.loss, "regularization": None,
            "gradient": grads, "applied_gradient": grads, "learning_rate": rates,
            "update": {n: new[n] - params[n] for n in params},
            "state": None if state is None else {n: a.copy() for n, a in state.items()},
            "loss_total": fw.loss,
        })
        params = new
    steps.append({"variable": params, "state": state})
    return steps


def trajectory(program: str) -> list[dict[str, Any]]:
    """The program's steps as its numpy model computes them."""
    data, weights = program_data(program)
    return run(PROGRAMS[program], data, {n: w.copy() for n, w in weights.items()})
