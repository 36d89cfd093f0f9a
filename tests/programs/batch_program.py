"""A newcomer's NaN: one bad batch fed at a chosen step, to a small Keras classifier.

Usage: python batch_program.py LOGDIR FORM KIND BAD_STEP
FORM: eager (a train_step run eagerly) | function (the same step as a tf.function) | fit
(model.fit on numpy arrays, the most common form, unshuffled). KIND:
- nan: one feature of one example of batch BAD_STEP is NaN, every other value finite: the
  data is the one origin, and the first NaN of the training is in step BAD_STEP;
- zero: batch BAD_STEP is all zeros: the model's hand-written standardisation
  (x - mean) / std divides 0 by 0 there (std of a constant column) — one origin, a RealDiv,
  in step BAD_STEP.
Steps before BAD_STEP are clean by construction (small random features, a 1e-3 Adam).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

STEPS, BATCH = 6, 8


class Standardize(tf.keras.layers.Layer):
    def call(self, x: tf.Tensor) -> tf.Tensor:
        mean = tf.reduce_mean(x, axis=0, keepdims=True)
        std = tf.math.reduce_std(x, axis=0, keepdims=True)
        return (x - mean) / std


def main() -> None:
    logdir, form, kind, bad = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    tf.keras.utils.set_random_seed(1)
    rng = np.random.default_rng(1)
    xs = rng.normal(size=(STEPS * BATCH, 5)).astype("float32")
    ys = rng.integers(0, 3, STEPS * BATCH)
    if kind == "nan":
        xs[bad * BATCH + 3, 2] = np.nan
    else:
        xs[bad * BATCH:(bad + 1) * BATCH] = 0.0
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    model = tf.keras.Sequential([tf.keras.Input((5,)), Standardize(),
                                 tf.keras.layers.Dense(16, activation="relu"),
                                 tf.keras.layers.Dense(3)])
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = tf.keras.optimizers.Adam(1e-3)
    if form == "fit":
        model.compile(optimizer=opt, loss=loss_fn)
        model.fit(xs, ys, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    else:
        def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        step = tf.function(train_step) if form == "function" else train_step
        for k in range(STEPS):
            step(xs[k * BATCH:(k + 1) * BATCH], ys[k * BATCH:(k + 1) * BATCH])
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
