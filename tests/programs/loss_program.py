"""Training whose loss per step is known by construction (tests/programs/loss_reference.py).

Usage: python loss_program.py LOGDIR FORM BAD_STEP [--steps N] [--mode MODE]
FORM: eager | eager_keras | function | fit | session | session_nofetch
The same model, data and optimizer in every form — a 3→1 linear model (weights 0.5, bias 0),
SGD at 0.01 on the mean squared error, batch BAD_STEP's inputs 1e20 — so each step's loss is
the one `loss_reference.expected_losses` computes with numpy: finite before BAD_STEP, +∞ at
BAD_STEP and the step after, NaN from then on. The forms differ in where the loss lives:
- eager: raw variables and a GradientTape, no tf.function, no names (eager ops have none);
- eager_keras: a Keras layer, loss object and optimizer, called eagerly from a loop;
- function: the same step in tf.function, which does *not* return the loss (a step that
  returns it is tests/programs/step_program.py's);
- fit: Keras `fit`, 4 batches an epoch;
- session: TF1 graph and Session.run fetching the train op and the loss, left unnamed
  ("Mean");
- session_nofetch: the same, fetching the train op alone — then the loss op never runs (the
  gradient starts from a constant and does not need its value): nothing records it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import tensorflow as tf
from loss_reference import BATCH, LR, batches

PER_EPOCH = 4


def raw_step(compiled: bool, n: int, bad: int) -> None:
    w = tf.Variable(tf.fill([3, 1], 0.5), name="w")
    b = tf.Variable(tf.zeros([1]), name="b")

    def train_step(x: tf.Tensor, y: tf.Tensor) -> None:
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(LR * gw)
        b.assign_sub(LR * gb)

    step = tf.function(train_step) if compiled else train_step
    for x, y in batches(n, bad):
        step(tf.constant(x), tf.constant(y))


def eager_keras(n: int, bad: int) -> None:
    layer = tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(0.5))
    layer.build((None, 3))
    loss_fn = tf.keras.losses.MeanSquaredError()
    opt = tf.keras.optimizers.SGD(float(LR))
    for x, y in batches(n, bad):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, layer(x))
        grads = tape.gradient(loss, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables, strict=True))


def fit(n: int, bad: int) -> None:
    data = batches(n, bad)
    x = np.concatenate([d[0] for d in data])
    y = np.concatenate([d[1] for d in data])
    model = tf.keras.Sequential([
        tf.keras.Input((3,)),
        tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(0.5))])
    model.compile(optimizer=tf.keras.optimizers.SGD(float(LR)), loss="mse")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)
    model.fit(dataset, epochs=n // PER_EPOCH, steps_per_epoch=PER_EPOCH, verbose=0)


def session(n: int, bad: int, fetch: bool) -> None:
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        y = v1.placeholder(tf.float32, [None, 1])
        w = v1.Variable(tf.fill([3, 1], 0.5))
        b = v1.Variable(tf.zeros([1]))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        train = v1.train.GradientDescentOptimizer(float(LR)).minimize(loss)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for bx, by in batches(n, bad):
                sess.run([train, loss] if fetch else train, {x: bx, y: by})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("form", choices=["eager", "eager_keras", "function", "fit", "session",
                                    "session_nofetch"])
    p.add_argument("bad_step", type=int)
    p.add_argument("--steps", type=int, default=6)
    p.add_argument("--mode", default="FULL_TENSOR")
    a = p.parse_args()
    if a.form.startswith("session"):
        tf.compat.v1.disable_eager_execution()
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode=a.mode, circular_buffer_size=-1)
    if a.form in ("eager", "function"):
        raw_step(a.form == "function", a.steps, a.bad_step)
    elif a.form == "eager_keras":
        eager_keras(a.steps, a.bad_step)
    elif a.form == "fit":
        fit(a.steps, a.bad_step)
    else:
        session(a.steps, a.bad_step, fetch=a.form == "session")
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
