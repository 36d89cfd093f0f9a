"""A tiny training run whose forward op goes non-finite, and its gradient with it.

Usage: python grad_pair_program.py LOGDIR FORM CASE BAD_STEP [--steps N]
FORM: eager | function | fit;  CASE: log | recip | cosh | two
The model is one weight w = 1 scaling the inputs, p = x · w. Every batch is small and positive
except batch BAD_STEP (0-based), one of whose inputs is 0 (log, recip, two) or 200 (cosh):
- log:   -mean(log(p)): log(0) = −∞, and its gradient takes 1/p = 1/0 = ∞ (Reciprocal);
- recip: mean(1 / p): 1/0 = ∞, and its gradient divides −1 by p twice: −1/0 = −∞ (RealDiv);
- cosh:  mean(cosh(p)): cosh(200) overflows float32, and so does its gradient's sinh(200);
- two:   both log(p) and 1 / p, written on two lines: two forward origins, each with its own
  gradient (both gradients read the same p: only which forward op each differentiates tells
  them apart).
The gradient op reads the forward op's own input (never its output), so it is an origin of
its own by dataflow: each forward line is one bug, born in the forward pass and again in its
backward. The lines marked `# NAN <case>` are where each forward op is written. For `fit`,
BAD_STEP counts batches over all epochs (4 batches an epoch).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH = 4
PER_EPOCH = 4  # fit: batches an epoch


def batches(n: int, bad: int, case: str) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for k in range(n):
        x = rng.uniform(0.5, 1.5, size=(BATCH, 1)).astype(np.float32)
        if k == bad:
            x[1, 0] = 200.0 if case == "cosh" else 0.0
        out.append(x)
    return out


def loss_of(case: str, p: tf.Tensor) -> tf.Tensor:
    if case == "log":
        return -tf.reduce_mean(tf.math.log(p))  # NAN log
    if case == "recip":
        return tf.reduce_mean(1.0 / p)  # NAN recip
    if case == "cosh":
        return tf.reduce_mean(tf.math.cosh(p))  # NAN cosh
    a = tf.math.log(p)  # NAN two-log
    b = 1.0 / p  # NAN two-recip
    return tf.reduce_mean(b - a)


def custom(n: int, bad: int, case: str, compiled: bool) -> None:
    w = tf.Variable(1.0, name="w")
    opt = tf.keras.optimizers.SGD(0.01)

    def train_step(x: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = loss_of(case, x * w)
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        return loss

    step = tf.function(train_step) if compiled else train_step
    for x in batches(n, bad, case):
        step(tf.constant(x))


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape: tuple[int, ...]) -> None:
        self.w = self.add_weight(shape=(), initializer="ones", name="w")

    def call(self, x: tf.Tensor) -> tf.Tensor:
        return x * self.w


def fit(n: int, bad: int, case: str) -> None:
    tf.keras.utils.set_random_seed(0)
    x = np.concatenate(batches(n, bad, case))
    y = np.zeros_like(x)
    model = tf.keras.Sequential([tf.keras.Input((1,)), Scale()])

    def loss(y_true: tf.Tensor, y_pred: tf.Tensor) -> tf.Tensor:
        return loss_of(case, y_pred)

    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss=loss)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    model.fit(dataset, epochs=n // PER_EPOCH, steps_per_epoch=PER_EPOCH, verbose=0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("form", choices=["eager", "function", "fit"])
    p.add_argument("case", choices=["log", "recip", "cosh", "two"])
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=4)
    a = p.parse_args()
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    if a.form == "fit":
        fit(a.steps, a.bad_step, a.case)
    else:
        custom(a.steps, a.bad_step, a.case, a.form == "function")
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
