"""An eager training loop over raw tf.Variables whose weight goes NaN at one step and is read
NaN by every step after it: one bug, at the bad step.

Usage: python stale_weight_program.py LOGDIR READ UPDATE BAD_STEP [--steps N]
READ: how the model reads its weights — as a user writes a model without layers:
- mul:    p = x * w                  (w a scalar; TensorFlow 2.21 records no ReadVariableOp
                                      for this read: the Mul reads a value no op made)
- square: p = x * tf.square(w)       (no ReadVariableOp recorded either: the Square reads it)
- matmul: p = tf.matmul(x, w)        (w of shape (2, 1), x of shape (4, 2); the read is
                                      recorded, a ReadVariableOp)
- add:    p = x * (w + b)            (w + b of two scalars: both reads recorded)
UPDATE: how the gradient is written into the weights:
- keras:  tf.keras.optimizers.SGD(0.01).apply_gradients
- assign: w.assign_sub(0.01 * g)     (a hand-written update)
- numpy:  w.assign(w.numpy() - 0.01 * g.numpy())   (an update computed in numpy: the value
          written is made by no recorded op, so what w holds is not in the record)
- function: w.assign_sub(0.01 * g) inside a tf.function (the write is an op of its graph,
          recorded as a graph trace; the eager `x * w` reads what that call wrote)
- fnkeras: the Keras SGD's apply_gradients inside a tf.function
The loss is -mean(log(p)). Every batch is positive except batch BAD_STEP (0-based), one of
whose rows is 0, so that p = 0 there: log(0) = −∞ (the line marked `# NAN log`), and the
gradient of every weight that multiplies the row is 0 · ∞ = NaN, which the update writes into
the weights. Every later step reads the weights, as the line marked `# READ <READ>` does
(for mul and square through a value no recorded op made), and goes NaN there again —
downstream of the one bug at step BAD_STEP, not a bug of its own.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH = 4
LR = 0.01


def batches(n: int, bad: int, width: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    out = []
    for k in range(n):
        x = rng.uniform(0.5, 1.5, size=(BATCH, width)).astype(np.float32)
        if k == bad:
            x[1, :] = 0.0
        out.append(x)
    return out


def model(read: str) -> tuple[list[tf.Variable], int]:
    """The weights a READ form trains, and the width of its inputs."""
    if read == "matmul":
        return [tf.Variable(tf.ones((2, 1)), name="w")], 2
    if read == "add":
        return [tf.Variable(1.0, name="w"), tf.Variable(0.0, name="b")], 1
    return [tf.Variable(1.0, name="w")], 1


def forward(read: str, x: tf.Tensor, weights: list[tf.Variable]) -> tf.Tensor:
    if read == "matmul":
        return tf.matmul(x, weights[0])  # READ matmul
    if read == "add":
        w, b = weights
        return x * (w + b)  # READ add
    if read == "square":
        return x * tf.square(weights[0])  # READ square
    return x * weights[0]  # READ mul


def train(n: int, bad: int, read: str, update: str) -> None:
    weights, width = model(read)
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def apply_in_function(grads: list[tf.Tensor]) -> None:
        if update == "fnkeras":
            opt.apply_gradients(zip(grads, weights, strict=True))
        else:
            for g, v in zip(grads, weights, strict=True):
                v.assign_sub(LR * g)  # WRITE function

    for x in batches(n, bad, width):
        with tf.GradientTape() as tape:
            p = forward(read, tf.constant(x), weights)
            loss = -tf.reduce_mean(tf.math.log(p))  # NAN log
        grads = tape.gradient(loss, weights)
        if update == "keras":
            opt.apply_gradients(zip(grads, weights, strict=True))
        elif update in ("function", "fnkeras"):
            apply_in_function(grads)
        elif update == "numpy":
            for g, v in zip(grads, weights, strict=True):
                v.assign(v.numpy() - LR * g.numpy())  # WRITE numpy
        else:
            for g, v in zip(grads, weights, strict=True):
                v.assign_sub(LR * g)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("read", choices=["mul", "square", "matmul", "add"])
    p.add_argument("update", choices=["keras", "assign", "numpy", "function", "fnkeras"])
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=4)
    a = p.parse_args()
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    train(a.steps, a.bad_step, a.read, a.update)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
