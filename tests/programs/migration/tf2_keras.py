"""TF2 rewrite through Keras itself: a functional model trained by `fit` or `train_on_batch`.

Usage: python tf2_keras.py [--api fit|train_on_batch] [--variant NAME]

The layers are defined the functional way, one line each, so each layer's variables are
created on its line. Same initial weights as `tf1_session.py` (Constant initializers over the
same arrays), the same schedule and plain SGD, `compile(..., jit_compile=False)` so that the
ops run as TensorFlow ops (XLA would fuse them away). `--variant`:
  equivalent   a faithful rewrite;
  initializer  layer 1's kernel left to a (seeded) Glorot initializer;
  nobias       layer 2 without its bias;
  dtype        the output layer in float16;
  momentum     SGD with momentum 0.9 (the same update at step 0, a different one from step 1).
Each mistake is one line marked `# MIGRATION-BUG: <variant>`. No debugging code.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import numpy as np
import tensorflow as tf
from keras.initializers import Constant, GlorotUniform
from keras.layers import Dense
from keras.optimizers.schedules import PolynomialDecay
from migration_common import BATCH, DECAY, H1, H2, IN, LR0, LR_END, POWER, STEPS, C, make_data

VARIANTS = ("equivalent", "initializer", "nobias", "dtype", "momentum")


def build_model(w: dict[str, np.ndarray], bug: str) -> keras.Model:
    inputs = keras.Input((IN,))
    out_1 = Dense(H1, "relu", kernel_initializer=GlorotUniform(seed=1) if bug == "initializer" else Constant(w["w1"]), bias_initializer=Constant(w["b1"]))(inputs)  # MIGRATION-BUG: initializer  # noqa: E501
    out_2 = Dense(H2, use_bias=bug != "nobias", kernel_initializer=Constant(w["w2"]), bias_initializer=Constant(w["b2"]))(out_1)  # MIGRATION-BUG: nobias  # noqa: E501
    logits = Dense(C, dtype="float16" if bug == "dtype" else None, kernel_initializer=Constant(w["w3"]), bias_initializer=Constant(w["b3"]))(out_2)  # MIGRATION-BUG: dtype  # noqa: E501
    return keras.Model(inputs, logits)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--api", choices=("fit", "train_on_batch"), default="fit")
    p.add_argument("--variant", choices=VARIANTS, default="equivalent")
    args = p.parse_args()
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    d = make_data()
    model = build_model(d, args.variant)
    learning_rate_fn = PolynomialDecay(
        initial_learning_rate=LR0, decay_steps=DECAY, end_learning_rate=LR_END, power=POWER)
    optimizer = keras.optimizers.SGD(learning_rate_fn, momentum=0.9 if args.variant == "momentum" else 0.0)  # MIGRATION-BUG: momentum  # noqa: E501
    model.compile(optimizer=optimizer,
                  loss=keras.losses.CategoricalCrossentropy(from_logits=True),
                  jit_compile=False)
    if args.api == "fit":
        model.fit(d["x"], d["y"], batch_size=BATCH, epochs=STEPS, shuffle=False, verbose=0)
    else:
        for _ in range(STEPS):
            model.train_on_batch(d["x"], d["y"])


if __name__ == "__main__":
    main()
