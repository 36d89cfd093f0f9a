"""The migration guide's TF2 side: Keras `Dense` layers and a custom train step.

Usage: python migration_tf2.py LOGDIR MODE [--perturb]

The same model as `migration_tf1.py`, with the same initial weights set explicitly, trained
for the same steps with a `tf.GradientTape` train step in a `tf.function`. `--perturb`
changes one initial weight of the first layer, so the runs must diverge there.
Lines the tests look for carry `# line: <name>`.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras
import tensorflow as tf
from migration_data import LEARNING_RATE, SIZES, STEPS, make_data


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("mode")
    p.add_argument("--perturb", action="store_true")
    args = p.parse_args()
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    d = make_data(args.perturb)
    layers = [keras.layers.Dense(SIZES[1], activation="relu"),
              keras.layers.Dense(SIZES[2], activation="relu"),
              keras.layers.Dense(SIZES[3])]
    for k, layer in enumerate(layers):
        layer.build((None, SIZES[k]))
        layer.set_weights([d[f"w{k + 1}"], d[f"b{k + 1}"]])
    variables = [v for layer in layers for v in layer.trainable_variables]
    optimizer = keras.optimizers.SGD(LEARNING_RATE)

    @tf.function
    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            h1 = layers[0](x)  # line: layer1
            h2 = layers[1](h1)  # line: layer2
            logits = layers[2](h2)  # line: layer3
            loss = tf.reduce_mean(  # line: loss
                tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables, strict=True))
        return loss

    tf.debugging.experimental.enable_dump_debug_info(
        args.logdir, tensor_debug_mode=args.mode, circular_buffer_size=-1)
    x, y = tf.constant(d["x"]), tf.constant(d["y"])
    for _ in range(STEPS):
        train_step(x, y)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
