"""Keras fit over one epoch whose batch BAD_STEP (0-based) holds features of 3e38: the first
Dense's MatMul overflows float32 there (to −∞ in the units whose weights are −1), and so
does, on its own finite inputs, the loss's Square (and its gradient, a Mul). Every other
batch is standard normal, so no step before BAD_STEP holds a NaN/∞.

Usage: python overflow_fit_program.py LOGDIR BAD_STEP [--steps N]
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

BATCH = 4


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=6)
    a = p.parse_args()
    rng = np.random.default_rng(11)
    x = rng.normal(size=(BATCH * a.steps, 3)).astype(np.float32)
    y = rng.normal(size=(BATCH * a.steps, 1)).astype(np.float32)
    x[BATCH * a.bad_step:BATCH * (a.bad_step + 1)] = 3e38  # BAD BATCH
    # two hidden units that go to −∞ on the bad batch (ReLU makes them 0), two that stay
    # finite (9e37) and overflow the loss's Square and the first kernel's gradient
    k1 = np.array([[-1.0, -1.0, 0.1, 0.1]] * 3, np.float32)
    model = tf.keras.Sequential([
        tf.keras.Input((3,)),
        tf.keras.layers.Dense(4, activation="relu",
                              kernel_initializer=tf.keras.initializers.Constant(k1)),
        tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(optimizer="sgd", loss="mse")  # LEARNING RATE
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
