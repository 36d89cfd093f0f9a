"""One small TF2 training program in variants that differ by one line, for `diff`'s tests.

Usage: python mlp.py LOGDIR MODE VARIANT [--steps N]
VARIANT: base | relu6 | epsilon | nobias | nan

Every run starts from the same seeded data and weights. Each variant swaps exactly one line of
`train_step` for its alternative; both lines carry a `# line: <name>` comment so the tests find
their line numbers by reading this file (never by trusting what the debugger says):
- relu6: the hidden activation (values exceed 6 there, so Relu6 changes them);
- epsilon: the epsilon of the hand-written normalisation;
- nobias: the first layer loses its bias (the BiasAdd disappears);
- nan: a plain division where the base uses `divide_no_nan`; rows of the hidden layer that are
  all zero make 0/0, so NaN appears in this variant only, and its origin is that line's op
  (the ops before it are identical in both runs).
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf
from mlp_data import make_data

VARIANTS = ("base", "relu6", "epsilon", "nobias", "nan")


def build(variant: str) -> tf.types.experimental.PolymorphicFunction:
    d = make_data()
    w1, b1 = tf.Variable(d["w1"]), tf.Variable(d["b1"])
    w2, b2 = tf.Variable(d["w2"]), tf.Variable(d["b2"])
    params = [w1, b1, w2, b2]

    @tf.function
    def train_step(x: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            if variant == "nobias":
                z = tf.matmul(x, w1)  # line: nobias
            else:
                z = tf.nn.bias_add(tf.matmul(x, w1), b1)  # line: bias
            if variant == "relu6":
                h = tf.nn.relu6(z)  # line: relu6
            else:
                h = tf.nn.relu(z)  # line: relu
            peak = tf.reduce_max(h, axis=1, keepdims=True)
            if variant == "nan":
                gate = tf.math.divide(h, peak)  # line: nan
            else:
                gate = tf.math.divide_no_nan(h, peak)  # line: nonan
            mean, var = tf.nn.moments(h, axes=[0])
            if variant == "epsilon":
                hn = (h - mean) / tf.math.sqrt(var + 1e-1)  # line: epsilon
            else:
                hn = (h - mean) / tf.math.sqrt(var + 1e-3)  # line: eps
            feats = hn + 0.1 * gate
            logits = tf.matmul(feats, w2) + b2
            loss = tf.reduce_mean(
                tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        grads = tape.gradient(loss, params)
        for p, g in zip(params, grads, strict=True):
            if g is not None:  # the bias has no gradient in the nobias variant
                p.assign_sub(0.05 * g)
        return loss

    return train_step


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("mode")
    p.add_argument("variant", choices=VARIANTS)
    p.add_argument("--steps", type=int, default=3)
    args = p.parse_args()
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    d = make_data()
    step = build(args.variant)
    tf.debugging.experimental.enable_dump_debug_info(
        args.logdir, tensor_debug_mode=args.mode, circular_buffer_size=-1)
    x, labels = tf.constant(d["x"]), tf.constant(d["labels"])
    for _ in range(args.steps):
        step(x, labels)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
