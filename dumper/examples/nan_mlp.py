"""The reference NaN case: an MLP whose hand-written cross entropy hits log(0).

A two-layer perceptron trains on generated, seeded data (no download) with a learning rate a
little too large. After two clean steps the softmax saturates, one probability underflows to
exactly 0 and `tf.math.log(probs)` in `cross_entropy` produces −∞; the loss and every weight
turn NaN from then on. The fix is `tf.math.log(tf.clip_by_value(probs, 1e-6, 1.0))`.

Run it as a script or as `python -m dumper.examples.nan_mlp --steps 5`; record it with
`tfdbg-tui run -- python -m dumper.examples.nan_mlp`. It prints one line per step (flushed), so
callers can tell how far it got.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf

N_FEATURES = 32
N_HIDDEN = 64
N_CLASSES = 10
BATCH = 100  # probs is BATCH x N_CLASSES = 1000 elements, as in the tutorial


@tf.function
def cross_entropy(probs: tf.Tensor, labels: tf.Tensor) -> tf.Tensor:
    """Hand-written cross entropy: the bug. log(0) = −∞ once a probability underflows."""
    return -tf.reduce_sum(labels * tf.math.log(probs)) / BATCH


def main(argv: Sequence[str] | None = None) -> int:
    """Train for `--steps` steps and print the loss of each; returns the exit status."""
    parser = argparse.ArgumentParser(prog="nan_mlp", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5, help="training steps (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lr", type=float, default=0.6, help="learning rate (default 0.6)")
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    centers = rng.normal(0.0, 1.0, (N_CLASSES, N_FEATURES))
    w1 = tf.Variable(
        rng.normal(0.0, N_FEATURES**-0.5, (N_FEATURES, N_HIDDEN)).astype("float32"), name="w1"
    )
    b1 = tf.Variable(np.zeros(N_HIDDEN, "float32"), name="b1")
    w2 = tf.Variable(
        rng.normal(0.0, N_HIDDEN**-0.5, (N_HIDDEN, N_CLASSES)).astype("float32"), name="w2"
    )
    b2 = tf.Variable(np.zeros(N_CLASSES, "float32"), name="b2")
    weights = [w1, b1, w2, b2]
    lr = args.lr

    @tf.function
    def train_step(x: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
            probs = tf.nn.softmax(tf.matmul(hidden, w2) + b2)
            loss = cross_entropy(probs, y)
        grads = tape.gradient(loss, weights)
        for var, grad in zip(weights, grads, strict=True):
            var.assign_sub(lr * grad)
        return loss

    for step in range(args.steps):
        classes = rng.integers(0, N_CLASSES, BATCH)
        x = (centers[classes] + rng.normal(0.0, 1.0, (BATCH, N_FEATURES))) * 3.0
        y = np.eye(N_CLASSES)[classes]
        loss = train_step(tf.constant(x, tf.float32), tf.constant(y, tf.float32))
        print(f"step {step}: loss {float(loss):.4f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
