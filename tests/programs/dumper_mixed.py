"""Test program: eager ops and nested tf.functions, recorded with `dumper.enable` (library).

Usage: dumper_mixed.py LOGDIR MODE. It does not call `dumper.disable()`: the atexit hook
must get everything to disk.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

import dumper


def main() -> None:
    logdir, mode = sys.argv[1], sys.argv[2]
    dumper.enable(logdir, mode=mode)
    x = tf.constant([[1.0, 2.0], [0.0, 4.0]])
    y = tf.math.log(x)  # eager, −∞ in 1 of 4 elements
    tf.size(y)  # an int32 eager output

    @tf.function
    def inner(v: tf.Tensor) -> tf.Tensor:
        return tf.sqrt(v) * 2.0

    @tf.function
    def outer(v: tf.Tensor) -> tuple[tf.Tensor, tf.Tensor]:
        w = inner(v)
        return tf.reduce_sum(w), tf.shape(w)

    for _ in range(3):
        outer(x)
    print("done", flush=True)


main()
