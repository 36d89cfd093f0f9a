"""Test program: record a little, say "ready", then block until killed (SIGKILL test)."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

import dumper

dumper.enable(sys.argv[1], mode="FULL_HEALTH", flush_interval=0.2)


@tf.function
def f(v: tf.Tensor) -> tf.Tensor:
    return tf.math.log(v) + 1.0


for _ in range(3):
    f(tf.constant([1.0, 0.0]))
print("ready", flush=True)
sys.stdin.read()
