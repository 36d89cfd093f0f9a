"""Test program: a few tf.function steps, then an uncaught exception."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

w = tf.Variable([1.0, 2.0])


@tf.function
def step(x: tf.Tensor) -> tf.Tensor:
    loss = tf.reduce_sum(w * x)
    w.assign_sub(0.1 * x)
    return loss


for i in range(50):
    step(tf.constant([0.5, float(i)]))


def fail() -> None:
    raise RuntimeError("crash after 50 steps")


fail()
