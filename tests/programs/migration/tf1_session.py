"""The TF1 side of the migration: a graph-mode model trained with `Session.run`.

Usage: python tf1_session.py [--variant equivalent|logged]
       (recorded with `tfdbg-tui run --mode MODE -- tf1_session.py ...`)

Written as a TF1.x user wrote it, minus `tf.compat.v1.layers.dense` (gone with Keras 3):
placeholders, `get_variable` for each layer's kernel and bias (named as `layers.dense` named
them), softmax cross entropy, `polynomial_decay` on the global step, gradient descent,
`migration_common.STEPS` calls of `Session.run` on one fixed batch. No debugging code.
`--variant logged` adds what TF1 users write to watch training: after each step, a second
`Session.run` fetching the loss (a forward pass on the updated weights) and the learning rate
(the schedule at the incremented global step) for a print. It trains exactly the same.

Lines a TF2 rewrite's mistake corresponds to carry `# MIGRATION-A: <variant> ...`; the
mistaken lines of the rewrites carry `# MIGRATION-BUG: <variant>`.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf
from migration_common import DECAY, IN, LR0, LR_END, POWER, STEPS, C, make_data
from tensorflow.compat import v1


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--variant", choices=("equivalent", "logged"), default="equivalent")
    args = p.parse_args()
    v1.disable_eager_execution()
    d = make_data()
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, (None, IN), name="x")
        y = v1.placeholder(tf.float32, (None, C), name="y")
        w1 = v1.get_variable("dense/kernel", initializer=d["w1"])  # MIGRATION-A: initializer
        b1 = v1.get_variable("dense/bias", initializer=d["b1"])
        w2 = v1.get_variable("dense_1/kernel", initializer=d["w2"])
        b2 = v1.get_variable("dense_1/bias", initializer=d["b2"])  # MIGRATION-A: nobias
        w3 = v1.get_variable("dense_2/kernel", initializer=d["w3"])  # MIGRATION-A: dtype
        b3 = v1.get_variable("dense_2/bias", initializer=d["b3"])  # MIGRATION-A: dtype
        h1 = tf.nn.relu(tf.matmul(x, w1) + b1)
        h2 = tf.matmul(h1, w2) + b2  # MIGRATION-A: relu nobias
        logits = tf.matmul(h2, w3) + b3
        loss = v1.losses.softmax_cross_entropy(y, logits)  # MIGRATION-A: from_logits
        step = v1.train.get_or_create_global_step()
        lr = v1.train.polynomial_decay(LR0, step, DECAY, LR_END, POWER)  # MIGRATION-A: end_lr
        train = v1.train.GradientDescentOptimizer(lr).minimize(loss, global_step=step)  # MIGRATION-A: momentum  # noqa: E501
        init = v1.global_variables_initializer()
    config = v1.ConfigProto(inter_op_parallelism_threads=1, intra_op_parallelism_threads=1)
    with v1.Session(graph=graph, config=config) as sess:
        sess.run(init)
        for _ in range(STEPS):
            sess.run([train, loss], feed_dict={x: d["x"], y: d["y"]})
            if args.variant == "logged":
                print(sess.run({"loss": loss, "lr": lr}, feed_dict={x: d["x"], y: d["y"]}))


if __name__ == "__main__":
    main()
