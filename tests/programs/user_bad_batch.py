"""A user's regression with one bad row in its data, trained the ways users train it.

Usage: python user_bad_batch.py LOGDIR FORM KIND BAD_STEP
FORM:
- fit: model.fit on a tf.data pipeline (from_tensor_slices → batch), 2 epochs, an MAE metric;
- fit_arrays: model.fit on the numpy arrays themselves (Keras makes the pipeline), 2 epochs;
- logged: a tf.function train_step in a loop, the loss logged after each call with an eager
  tf.reduce_mean and .numpy() (the user's progress line).
KIND: nan (a missing value: NaN in one feature of one row of batch BAD_STEP) | inf (an
overflowed feature: +∞ there) | huge (a feature in the wrong units: 1e30 there, finite, but
the loss' square of the prediction it makes overflows float32). Every other value is finite
and small, so batch BAD_STEP is the one bad batch (see `bad_batches`): the first NaN/∞ of the
training is in step BAD_STEP, and everything after it (its gradients, the weights it updates,
every later step) comes of it.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np

ROWS, FEATURES, BATCH = 96, 6, 16  # 6 batches an epoch


def make_data(kind: str, bad: int) -> tuple[np.ndarray, np.ndarray]:
    """The table the user loaded: one bad value in row 5 of batch `bad`."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(ROWS, FEATURES)).astype(np.float32)
    y = (x @ rng.normal(size=(FEATURES, 1)) + 0.1).astype(np.float32)
    x[bad * BATCH + 5, 3] = {"nan": np.nan, "inf": np.inf, "huge": 1e30}[kind]
    return x, y


def bad_batches(x: np.ndarray) -> list[int]:
    """The numpy proof: which batches hold a value that is not small (NaN, ∞ or 1e30), in
    the order the run's steps take them."""
    return [k for k in range(ROWS // BATCH)
            if not (np.abs(x[k * BATCH:(k + 1) * BATCH]) < 1e6).all()]


def main() -> None:
    logdir, form, kind, bad = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    import tensorflow as tf

    x, y = make_data(kind, bad)
    assert bad_batches(x) == [bad], bad_batches(x)
    tf.debugging.experimental.enable_dump_debug_info(
        logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                 tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    if form == "fit":
        model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
        model.fit(dataset, epochs=2, verbose=0)
    elif form == "fit_arrays":
        model.compile(optimizer="adam", loss="mse", metrics=["mae"])
        model.fit(x, y, batch_size=BATCH, epochs=2, shuffle=False, verbose=0)
    else:
        opt = tf.keras.optimizers.Adam()
        loss_fn = tf.keras.losses.MeanSquaredError()

        @tf.function
        def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
            with tf.GradientTape() as tape:
                loss = loss_fn(yb, model(xb, training=True))
            grads = tape.gradient(loss, model.trainable_variables)
            opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
            return loss

        for step in range(ROWS // BATCH):
            xb, yb = x[step * BATCH:(step + 1) * BATCH], y[step * BATCH:(step + 1) * BATCH]
            loss = train_step(xb, yb)
            shown = tf.reduce_mean(loss)  # the user's progress line
            print(f"step {step}: loss {shown.numpy():.4g}")
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
