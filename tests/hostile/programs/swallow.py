"""Test program: the first NaN happens inside `try: … except BaseException: pass`, and the
program goes on as if nothing happened (a pattern in retry loops and training harnesses)."""

from __future__ import annotations

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import tensorflow as tf

for attempt in range(3):
    try:
        y = tf.math.log(tf.constant([0.0, 1.0]))  # log 0 = −∞
        print(f"attempt {attempt}: {y.numpy().tolist()}", flush=True)
    except BaseException:
        pass
for _ in range(5):
    tf.math.log(tf.constant([2.0]))
print("program finished", flush=True)
