"""Real TensorFlow programs that write tfdbg2 logdirs for the tests.

Usage: python tf_program.py LOGDIR MODE KIND [--buffer N]
KIND: eager | function | nested | keras | mlp | nan_graph | mixed
Each kind exercises a different shape of logdir; the NaN kinds make sure alerts exist.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf


def eager() -> None:
    x = tf.constant([[1.0, 2.0], [3.0, 0.0]])
    y = tf.matmul(x, x)
    z = tf.math.log(y)  # log(0) → -inf in the last element
    w = tf.math.sqrt(z - 10.0)  # NaN from negatives
    tf.cast(w, tf.int32)
    tf.reduce_sum(x)


def function() -> None:
    @tf.function
    def f(a, b):
        c = a * b
        d = tf.math.reciprocal(c)  # 1/0 → inf
        return tf.reduce_mean(d) + tf.reduce_sum(a)

    a = tf.constant([1.0, 0.0, 3.0])
    for _ in range(3):
        f(a, tf.constant([2.0, 2.0, 2.0]))


def nested() -> None:
    @tf.function
    def inner(x):
        return tf.math.log(x) * 2.0

    @tf.function
    def outer(x):
        y = inner(x) + 1.0
        i = tf.constant(0)
        while i < 2:  # a while loop gives inner graphs
            y = y * 1.5
            i += 1
        return y

    outer(tf.constant([1.0, 0.5, 0.0]))
    outer(tf.constant([2.0, 3.0, 4.0]))


def keras() -> None:
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([
        tf.keras.layers.Input((4,)),
        tf.keras.layers.Dense(8, activation="relu"),
        tf.keras.layers.Dense(2),
    ])
    model.compile(optimizer="sgd", loss="mse")
    x = np.random.RandomState(0).rand(16, 4).astype("float32")
    y = np.random.RandomState(1).rand(16, 2).astype("float32")
    model.fit(x, y, epochs=1, batch_size=8, verbose=0)


def mlp() -> None:
    """The reference case: hand-written cross entropy goes -inf through Log."""
    rng = np.random.RandomState(42)
    x = rng.rand(64, 10).astype("float32")
    labels = np.eye(3, dtype="float32")[rng.randint(0, 3, 64)]
    w1 = tf.Variable(rng.randn(10, 16).astype("float32"))
    w2 = tf.Variable(rng.randn(16, 3).astype("float32") * 8.0)

    @tf.function
    def cross_entropy(probs, labels):
        return -tf.reduce_mean(tf.reduce_sum(labels * tf.math.log(probs), axis=1))

    @tf.function
    def train_step(x, labels):
        with tf.GradientTape() as tape:
            h = tf.nn.relu(tf.matmul(x, w1))
            logits = tf.matmul(h, w2) * 20.0
            probs = tf.nn.softmax(logits)
            loss = cross_entropy(probs, labels)
        grads = tape.gradient(loss, [w1, w2])
        w1.assign_sub(0.1 * grads[0])
        w2.assign_sub(0.1 * grads[1])
        return loss

    for _ in range(2):
        train_step(tf.constant(x), tf.constant(labels))


def nan_graph() -> None:
    @tf.function
    def f(x):
        return tf.math.log(x) + tf.math.sqrt(x - 2.0)

    f(tf.constant([0.0, 1.0, 4.0], dtype=tf.float64))
    f(tf.constant([1.0, 2.0], dtype=tf.float16))


def mixed() -> None:
    """Eager ops, a tf.function, nested functions with a while loop: one logdir, many shapes."""
    eager()
    function()
    nested()


def noop() -> None:
    """Dumping on, then no TensorFlow op at all (a script that stops before its first op)."""


KINDS = {f.__name__: f for f in (eager, function, nested, keras, mlp, nan_graph, mixed, noop)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("mode")
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("--buffer", type=int, default=-1)
    args = p.parse_args()
    tf.debugging.experimental.enable_dump_debug_info(
        args.logdir, tensor_debug_mode=args.mode, circular_buffer_size=args.buffer)
    KINDS[args.kind]()
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
