"""Recordings that lose or hide what the user needs, the way real programs make them.

Usage: python diag_recording.py LOGDIR CASE
- thread:    dumping is enabled in the main thread, the training loop runs in a worker
             thread (as a data-parallel or server program does): TensorFlow records the
             tf.function's graph but none of its ops, executions or tensors.
- buffer:    dumping with TensorFlow's default circular buffer (1000) over a run that makes
             more graph traces than that: the beginning, with the first NaN, is dropped.
- autograph: a function converted ahead of time with tf.autograph.to_graph and called from
             a tf.function with autograph off: its ops' stacks point into AutoGraph's
             generated file, not the user's source.
"""

from __future__ import annotations

import os
import sys
import threading

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf


def thread_case(logdir: str) -> None:
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    w = tf.Variable(np.ones((3, 1), np.float32))

    @tf.function
    def step(x):
        return tf.reduce_mean(tf.math.log(tf.matmul(x, w)))

    def worker() -> None:
        for _ in range(3):
            step(tf.constant([[1.0, -2.0, 0.5]]))

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    tf.debugging.experimental.disable_dump_debug_info()


def buffer_case(logdir: str) -> None:
    tf.debugging.experimental.enable_dump_debug_info(logdir, tensor_debug_mode="FULL_HEALTH")

    @tf.function
    def normalize(x):
        centered = x - tf.reduce_mean(x)
        return centered / tf.math.reduce_std(x)

    batches = np.random.RandomState(0).rand(200, 8).astype("float32")
    batches[0] = 1.0  # the first batch is constant: std 0, 0/0
    for b in batches:
        normalize(tf.constant(b))
    tf.debugging.experimental.disable_dump_debug_info()


def normalize_rows(x):
    total = tf.reduce_sum(x)
    if total > 0:
        x = x / total
    return tf.math.log(x)


def autograph_case(logdir: str) -> None:
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    converted = tf.autograph.to_graph(normalize_rows)

    @tf.function(autograph=False)
    def features(x):
        return converted(x)

    features(tf.constant([1.0, 0.0, 3.0]))
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    {"thread": thread_case, "buffer": buffer_case,
     "autograph": autograph_case}[sys.argv[2]](sys.argv[1])
