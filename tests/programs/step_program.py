"""A tiny training run whose first NaN/∞ is in a step chosen by construction.

Usage: python step_program.py LOGDIR FORM BAD_STEP [--steps N] [--mode MODE]
FORM: eager | function | fit | session
Every batch is finite and small except batch BAD_STEP (0-based), whose inputs are 1e20: the
model's output is then ~1e20, its square in the loss overflows float32 to +∞, and the
gradients and weights go NaN from there. Steps before it are clean, so the first alert is
in step BAD_STEP of the run, whatever form the training took. For `fit`, BAD_STEP counts
batches over all epochs (4 batches an epoch).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH = 4
PER_EPOCH = 4  # fit: batches an epoch


def batches(n: int, bad: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    out = []
    for k in range(n):
        x = rng.uniform(0.1, 1.0, size=(BATCH, 3)).astype(np.float32)
        if k == bad:
            x = np.full_like(x, 1e20)
        y = x.sum(axis=1, keepdims=True).astype(np.float32)
        out.append((x, y))
    return out


def custom(n: int, bad: int, compiled: bool) -> None:
    w = tf.Variable(tf.fill([3, 1], 0.5), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")
    opt = tf.keras.optimizers.SGD(0.01)

    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        return loss

    step = tf.function(train_step) if compiled else train_step
    for x, y in batches(n, bad):
        step(tf.constant(x), tf.constant(y))


def fit(n: int, bad: int) -> None:
    tf.keras.utils.set_random_seed(0)
    data = batches(n, bad)
    x = np.concatenate([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    # one pass over the n batches, PER_EPOCH an epoch: the iterator goes on across epochs
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    model.fit(dataset, epochs=n // PER_EPOCH, steps_per_epoch=PER_EPOCH, verbose=0)


def session(n: int, bad: int) -> None:
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = v1.placeholder(tf.float32, [None, 1])
        w = v1.Variable(tf.fill([3, 1], 0.5))
        pred = tf.matmul(x, w)
        loss = tf.reduce_mean(tf.square(pred - y))
        train = v1.train.GradientDescentOptimizer(0.01).minimize(loss)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for bx, by in batches(n, bad):
                sess.run(train, {x: bx, y: by})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("form", choices=["eager", "function", "fit", "session"])
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--mode", default="FULL_HEALTH")
    a = p.parse_args()
    if a.form == "session":
        tf.compat.v1.disable_eager_execution()
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode=a.mode, circular_buffer_size=-1)
    if a.form in ("eager", "function"):
        custom(a.steps, a.bad_step, a.form == "function")
    elif a.form == "fit":
        fit(a.steps, a.bad_step)
    else:
        session(a.steps, a.bad_step)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
