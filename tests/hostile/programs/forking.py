"""Test program: eager ops, then a fork; the child does a little TensorFlow work of its own
and exits normally, the parent waits for it and goes on (the dump must stay intact and hold
the parent's work only)."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

x = tf.constant([1.0, 2.0, 4.0])
for _ in range(20):
    x = tf.math.sqrt(x) + 1.0
pid = os.fork()
if pid == 0:
    y = tf.constant([9.0])
    for _ in range(7):
        y = tf.math.sqrt(y) * 3.0
    print(f"child done: {y.numpy().tolist()}", flush=True)
    sys.exit(0)
os.waitpid(pid, 0)
for _ in range(20):
    x = tf.math.sqrt(x) + 1.0
print("parent done", flush=True)
