"""Keras mixed-precision training whose loss goes +∞ at a step chosen by construction
(tests/programs/mixed_reference.py computes every step's loss with numpy).

Usage: python mixed_program.py LOGDIR FORM BAD_STEP [--steps N] [--mode MODE] [--losses F]
FORM: fit | eager | function. The `mixed_float16` policy, a 3→1 Dense layer (kernel 0.5,
bias 0), the mean squared error, SGD at 0.01 in a dynamic LossScaleOptimizer; batch
BAD_STEP's inputs are 1e5 (+∞ in float16). `fit` is Keras' own loop (compile wraps the
optimizer); `eager` a GradientTape loop written as the mixed-precision guide does
(scale_loss, then the gradients applied by the LossScaleOptimizer, which unscales them and
skips a non-finite step); `function` the same step in a tf.function returning nothing.
With `--losses F`, each step's loss as plain TensorFlow computed it (the batch's loss from
the model before the step's update) is written to F, one JSON list, without tfdbg: the
program's own account, to hold against numpy's before tfdbg-tui's is.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import keras
import numpy as np
import tensorflow as tf
from mixed_reference import BATCH, LR, batches


def model_and_optimizer() -> tuple[keras.Model, keras.optimizers.Optimizer]:
    keras.mixed_precision.set_global_policy("mixed_float16")
    model = keras.Sequential([
        keras.Input((3,)),
        keras.layers.Dense(1, kernel_initializer=keras.initializers.Constant(0.5))])
    return model, keras.optimizers.SGD(float(LR))


class BatchLosses(keras.callbacks.Callback):
    """Each batch's loss, computed before its update from the same model (plain TF)."""

    def __init__(self, data: list[tuple[np.ndarray, np.ndarray]]) -> None:
        super().__init__()
        self.data = data
        self.losses: list[float] = []
        self.k = 0

    def on_train_batch_begin(self, batch: int, logs: object = None) -> None:
        x, y = self.data[self.k]
        pred = tf.cast(self.model(x, training=True), tf.float32)
        self.losses.append(float(tf.reduce_mean(tf.square(pred - y))))
        self.k += 1


def fit(n: int, bad: int, losses: BatchLosses | None) -> None:
    data = batches(n, bad)
    model, opt = model_and_optimizer()
    model.compile(optimizer=opt, loss="mse")
    x = np.concatenate([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    model.fit(dataset, epochs=1, steps_per_epoch=n, verbose=0, shuffle=False,
              callbacks=[losses] if losses is not None else [])


def custom(n: int, bad: int, compiled: bool, out: list[float] | None) -> None:
    model, sgd = model_and_optimizer()
    opt = keras.mixed_precision.LossScaleOptimizer(sgd)
    loss_fn = keras.losses.MeanSquaredError()
    seen: list[tf.Tensor] = []

    def train_step(x: tf.Tensor, y: tf.Tensor) -> None:
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
            scaled = opt.scale_loss(loss)
        grads = tape.gradient(scaled, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        if out is not None and not compiled:
            seen.append(loss)

    step = tf.function(train_step) if compiled else train_step
    for x, y in batches(n, bad):
        if out is not None and compiled:  # the batch's loss before the step's update
            out.append(float(loss_fn(y, model(x, training=True))))
        step(tf.constant(x), tf.constant(y))
    if out is not None and not compiled:
        out.extend(float(v) for v in seen)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("form", choices=["fit", "eager", "function"])
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--mode", default="FULL_TENSOR")
    p.add_argument("--losses", default=None)
    a = p.parse_args()
    plain = a.losses is not None  # the program's own account, without tfdbg
    if not plain:
        tf.debugging.experimental.enable_dump_debug_info(
            a.logdir, tensor_debug_mode=a.mode, circular_buffer_size=-1)
    seen: list[float] = []
    if a.form == "fit":
        cb = BatchLosses(batches(a.steps, a.bad_step)) if plain else None
        fit(a.steps, a.bad_step, cb)
        seen = cb.losses if cb is not None else []
    else:
        custom(a.steps, a.bad_step, a.form == "function", seen if plain else None)
    if plain:
        Path(a.losses).write_text(json.dumps(seen))
    else:
        tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
