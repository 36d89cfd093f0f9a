"""Test program: eager ops only (no tf.function), one of them log(0)."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

x = tf.constant([3.0, 2.0, 1.0])
for i in range(3):
    y = tf.math.log(x - float(i))  # the third one takes log(0)
    z = tf.reduce_mean(y * 2.0)
print("done", float(z), flush=True)
