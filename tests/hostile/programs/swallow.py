"""Test program: the first NaN happens inside `try: … except BaseException: pass`, and the
program goes on as if nothing happened (a pattern in retry loops and training harnesses).

With the argument `quiet`, nothing after the swallowed stop runs a TensorFlow op: the
program just finishes."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

quiet = sys.argv[1:] == ["quiet"]
for attempt in range(1 if quiet else 3):
    try:
        y = tf.math.log(tf.constant([0.0, 1.0]))  # log 0 = −∞
        print(f"attempt {attempt}: {y.numpy().tolist()}", flush=True)
    except BaseException:
        pass
if not quiet:
    for _ in range(5):
        tf.math.log(tf.constant([2.0]))
print("program finished", flush=True)
