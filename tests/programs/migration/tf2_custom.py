"""TF2 rewrite, the migration guide's form: a `keras.Model` with its own `train_step`.

Usage: python tf2_custom.py [--form eager|function] [--variant NAME]

`--form eager` calls `train_step` eagerly, exactly as the guide does; `--form function` wraps
the same method in `tf.function`. Same initial weights as `tf1_session.py` (Constant
initializers over the same arrays). `--variant`:
  equivalent   a faithful rewrite;
  logged       faithful, plus the guide's hand logging: the schedule evaluated a second time
               per step for the log, the loss and the gradients returned to the loop;
  end_lr       the schedule's end_learning_rate changed (matters from step 1);
  relu         an extra activation after layer 2;
  from_logits  the loss computed with from_logits=False on logits.
Each mistake is one line marked `# MIGRATION-BUG: <variant>`. No debugging code.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import tensorflow as tf
from keras.initializers import Constant
from keras.losses import categorical_crossentropy
from keras.optimizers.schedules import PolynomialDecay
from migration_common import DECAY, H1, H2, LR0, LR_END, POWER, STEPS, C, make_data

VARIANTS = ("equivalent", "logged", "end_lr", "relu", "from_logits")


class SimpleModel(keras.Model):
    def __init__(self, w: dict[str, np.ndarray], bug: str) -> None:
        super().__init__()
        self.bug = bug
        self.dense_1 = keras.layers.Dense(
            H1, kernel_initializer=Constant(w["w1"]), bias_initializer=Constant(w["b1"]))
        self.dense_2 = keras.layers.Dense(
            H2, kernel_initializer=Constant(w["w2"]), bias_initializer=Constant(w["b2"]))
        self.out = keras.layers.Dense(
            C, kernel_initializer=Constant(w["w3"]), bias_initializer=Constant(w["b3"]))
        self.learning_rate_fn = PolynomialDecay(LR0, DECAY, 0.0 if bug == "end_lr" else LR_END, POWER)  # MIGRATION-BUG: end_lr  # noqa: E501
        self.optimizer = keras.optimizers.SGD(self.learning_rate_fn)

    def call(self, inputs: tf.Tensor) -> tf.Tensor:
        out_1 = tf.nn.relu(self.dense_1(inputs))
        out_2 = self.dense_2(out_1)
        out_2 = tf.nn.relu(out_2) if self.bug == "relu" else out_2  # MIGRATION-BUG: relu
        return self.out(out_2)

    def train_step(self, data: tuple[tf.Tensor, tf.Tensor]) -> dict[str, object]:
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x)
            losses = categorical_crossentropy(y, logits, from_logits=self.bug != "from_logits")  # MIGRATION-BUG: from_logits  # noqa: E501
            loss = tf.reduce_mean(losses)
        grads = tape.gradient(loss, self.trainable_weights)
        logs: dict[str, object] = {}
        if self.bug == "logged":  # the guide's hand logging, values returned to the loop
            logs = {"lr": self.learning_rate_fn(self.optimizer.iterations),
                    "loss": loss, "grads": grads}
        self.optimizer.apply_gradients(zip(grads, self.trainable_weights, strict=True))
        return logs


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--form", choices=("eager", "function"), default="eager")
    p.add_argument("--variant", choices=VARIANTS, default="equivalent")
    args = p.parse_args()
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    d = make_data()
    model = SimpleModel(d, args.variant)
    train_step = tf.function(model.train_step) if args.form == "function" else model.train_step
    history: dict[str, list[object]] = {"lr": [], "loss": [], "grads": []}
    for _ in range(STEPS):
        logs = train_step((tf.constant(d["x"]), tf.constant(d["y"])))
        for key, value in logs.items():
            history[key].append(tf.nest.map_structure(np.asarray, value))


if __name__ == "__main__":
    main()
