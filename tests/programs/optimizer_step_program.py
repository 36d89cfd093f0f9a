"""A small Keras 3 training run, with the optimizer a user picks, whose first NaN/∞ is in a
step chosen by construction.

Usage: python optimizer_step_program.py LOGDIR OPTIMIZER FORM BAD [--steps N] [--mode MODE]
                                        [--setup fresh|made_before|restored]
OPTIMIZER: one of OPTIMIZERS (`lso`: mixed_float16 and a LossScaleOptimizer around SGD with
momentum). FORM:
- eager: a `train_step` run eagerly (no tf.function), the optimizer's `apply_gradients`;
- function: the same `train_step` in a `tf.function`;
- fit_accum: `model.fit` with the optimizer's `gradient_accumulation_steps=2`;
- two_functions: a `tf.function` adding a micro-batch's gradients into accumulators and
  another applying their mean, 2 micro-batches a step.
SETUP (eager and function forms): fresh (everything made while dumping), made_before (the
model and optimizer made before dumping starts: no initial value recorded) or restored (the
model built by a first call, then its weights set again, while dumping).
Every batch is small and finite except batch BAD (0-based; counted in micro-batches for the
accumulating forms), whose inputs are 1e20: the target (their sum) is 3e20, so the squared
error overflows float32 to +∞ whatever the model predicts (under mixed_float16 the inputs
are already +∞ once cast). Steps before it are clean, so the first alert is in step BAD (BAD
// 2 when accumulating). The program checks what it can of that itself (the loss of every
step before BAD finite, the loss at BAD not; a loss-scaled step skipped, the weights finite
after it) and exits non-zero if not, so a test never expects a step the run did not have.
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH = 4
MICRO = 2  # micro-batches a step in the accumulating forms

OPTIMIZERS = ("sgd", "sgd_momentum", "sgd_nesterov", "adam", "adamw", "rmsprop", "adagrad",
              "adamax", "nadam", "lion", "ftrl", "adadelta", "lso")


def optimizer(name: str, accumulate: int | None = None) -> tf.keras.optimizers.Optimizer:
    o = tf.keras.optimizers
    kw = {"gradient_accumulation_steps": accumulate} if accumulate else {}
    made = {"sgd": lambda: o.SGD(0.01, **kw),
            "sgd_momentum": lambda: o.SGD(0.01, momentum=0.9, **kw),
            "sgd_nesterov": lambda: o.SGD(0.01, momentum=0.9, nesterov=True, **kw),
            "adam": lambda: o.Adam(1e-3, **kw),
            "adamw": lambda: o.AdamW(1e-3, weight_decay=0.004, **kw),
            "rmsprop": lambda: o.RMSprop(1e-3, **kw),
            "adagrad": lambda: o.Adagrad(0.01, **kw),
            "adamax": lambda: o.Adamax(1e-3, **kw),
            "nadam": lambda: o.Nadam(1e-3, **kw),
            "lion": lambda: o.Lion(1e-4, **kw),
            "ftrl": lambda: o.Ftrl(0.01, **kw),
            "adadelta": lambda: o.Adadelta(1.0, **kw),
            # a scale of 2**10, not the default 2**15: the first clean step's float16
            # gradients overflow at 2**15 (a skip, and alerts, before the bad step)
            "lso": lambda: tf.keras.mixed_precision.LossScaleOptimizer(
                o.SGD(0.01, momentum=0.9, **kw), initial_scale=2.0 ** 10)}
    return made[name]()


def batches(n: int, bad: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    out = []
    for k in range(n):
        x = rng.uniform(0.1, 1.0, size=(BATCH, 3)).astype(np.float32)
        if k == bad:
            x = np.full_like(x, 1e20)
        out.append((x, x.sum(axis=1, keepdims=True).astype(np.float32)))
    return out


def model() -> tf.keras.Model:
    tf.keras.utils.set_random_seed(0)
    return tf.keras.Sequential([tf.keras.Input((3,)),
                                tf.keras.layers.Dense(4, activation="relu"),
                                tf.keras.layers.Dense(1)])


def mse(pred: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
    return tf.reduce_mean(tf.square(tf.cast(pred, tf.float32) - y))


def check(losses: list[float], bad: int) -> None:
    """The construction holds: every loss before BAD finite, the loss at BAD not."""
    finite = np.isfinite(np.asarray(losses))
    if not finite[:bad].all() or finite[bad]:
        sys.exit(f"losses {losses}: the bad batch {bad} is not the first non-finite one")


def custom(name: str, n: int, bad: int, compiled: bool,
           made: tuple[tf.keras.Model, tf.keras.optimizers.Optimizer] | None,
           restored: bool) -> None:
    net, opt = made or (model(), optimizer(name))
    scaled = name == "lso"
    if restored:  # built by a first call, then given its weights (a checkpoint's, say)
        net(tf.zeros((1, 3)))
        net.set_weights([w * 1.0 for w in net.get_weights()])

    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = mse(net(x, training=True), y)
            target = opt.scale_loss(loss) if scaled else loss
        grads = tape.gradient(target, net.trainable_variables)
        opt.apply_gradients(zip(grads, net.trainable_variables, strict=True))
        return loss

    step = tf.function(train_step) if compiled else train_step
    losses = [float(step(tf.constant(x), tf.constant(y))) for x, y in batches(n, bad)]
    check(losses, bad)
    if scaled:  # the bad step was skipped (its gradients not finite): the weights are finite
        if not all(np.isfinite(v.numpy()).all() for v in net.trainable_variables):
            sys.exit("the loss-scaled step was applied: weights not finite")
        if int(opt.inner_optimizer.iterations.numpy()) != n - 1:
            sys.exit(f"{int(opt.inner_optimizer.iterations.numpy())} updates, not {n - 1}")


def fit_accum(name: str, n: int, bad: int) -> None:
    net = model()
    net.compile(optimizer=optimizer(name, MICRO), loss="mse")
    data = batches(n * MICRO, bad)
    x = np.concatenate([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    history = net.fit(tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH), epochs=1,
                      verbose=0)
    if np.isfinite(history.history["loss"][-1]):
        sys.exit("the bad batch left the loss finite")
    updates = int(net.optimizer.iterations.numpy())
    print(f"iterations {updates}")


def two_functions(name: str, n: int, bad: int) -> None:
    net, opt = model(), optimizer(name)
    net.build((None, 3))
    weights = net.trainable_variables
    acc = [tf.Variable(tf.zeros_like(v), trainable=False) for v in weights]

    @tf.function
    def accumulate(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = mse(net(x, training=True), y)
        for a, g in zip(acc, tape.gradient(loss, weights), strict=True):
            a.assign_add(g)
        return loss

    @tf.function
    def apply() -> None:
        opt.apply_gradients([(a / MICRO, v) for a, v in zip(acc, weights, strict=True)])
        for a in acc:
            a.assign(tf.zeros_like(a))

    losses = []
    data = batches(n * MICRO, bad)
    for s in range(n):
        for x, y in data[s * MICRO:(s + 1) * MICRO]:
            losses.append(float(accumulate(tf.constant(x), tf.constant(y))))
        apply()
    check(losses, bad)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("optimizer", choices=OPTIMIZERS)
    p.add_argument("form", choices=["eager", "function", "fit_accum", "two_functions"])
    p.add_argument("bad", type=int)
    p.add_argument("--steps", type=int, default=5)
    p.add_argument("--mode", default="FULL_HEALTH")
    p.add_argument("--setup", choices=["fresh", "made_before", "restored"], default="fresh")
    a = p.parse_args()
    if a.optimizer == "lso":
        tf.keras.mixed_precision.set_global_policy("mixed_float16")
    # made_before: the model and optimizer made before dumping starts (their variables'
    # values unrecorded); restored: weights set again after a first call, while dumping
    made = (model(), optimizer(a.optimizer)) if a.setup == "made_before" else None
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode=a.mode, circular_buffer_size=-1)
    if a.form in ("eager", "function"):
        custom(a.optimizer, a.steps, a.bad, a.form == "function", made,
               a.setup == "restored")
    elif a.form == "fit_accum":
        fit_accum(a.optimizer, a.steps, a.bad)
    else:
        two_functions(a.optimizer, a.steps, a.bad)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
