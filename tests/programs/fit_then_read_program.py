"""Keras fit over one epoch, then an eager read of the trained kernel: `probe * kernel`.

Usage: python fit_then_read_program.py LOGDIR BAD_STEP

Batch BAD_STEP (0-based, batch size 4, 4 batches) holds one NaN feature: the loss and the
gradients of that step are NaN, and the optimizer's update (inside fit's compiled step,
one_step_on_data, called by multi_step_on_iterator) writes NaN into the kernel. After fit,
the line marked `# READ kernel` multiplies the kernel eagerly; TensorFlow records no
ReadVariableOp for that read, so the Mul reads a tensor no recorded op made — what the
compiled update wrote. One bug: the bad batch.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH, STEPS = 4, 4


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("bad_step", type=int)
    a = p.parse_args()
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, size=(BATCH * STEPS, 2)).astype(np.float32)
    y = rng.uniform(0.5, 1.5, size=(BATCH * STEPS, 1)).astype(np.float32)
    x[BATCH * a.bad_step + 1, 0] = np.nan  # BAD BATCH
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    probe = tf.constant([[1.0, 2.0]])
    tf.reduce_sum(probe * model.layers[0].kernel.value)  # READ kernel
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
