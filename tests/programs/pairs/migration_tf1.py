"""The migration guide's TF1 side: a graph-mode model trained with `Session.run`.

Usage: python migration_tf1.py LOGDIR MODE

Placeholders, `tf.compat.v1` variables, three dense layers written as `tf.matmul` + bias
(`tf.compat.v1.layers.dense` is gone with Keras 3), softmax cross entropy, gradient descent,
`migration_data.STEPS` steps of `Session.run`. `migration_tf2.py` is the same model in TF2.
Lines the tests look for carry `# line: <name>`.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow as tf
from migration_data import LEARNING_RATE, SIZES, STEPS, make_data


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("mode")
    args = p.parse_args()
    tf.compat.v1.disable_eager_execution()
    d = make_data()
    graph = tf.Graph()
    with graph.as_default():
        tf.debugging.experimental.enable_dump_debug_info(
            args.logdir, tensor_debug_mode=args.mode, circular_buffer_size=-1)
        x = tf.compat.v1.placeholder(tf.float32, [None, SIZES[0]], name="x")
        y = tf.compat.v1.placeholder(tf.float32, [None, SIZES[-1]], name="y")
        w1 = tf.compat.v1.Variable(d["w1"], name="w1")  # line: w1
        b1 = tf.compat.v1.Variable(d["b1"], name="b1")
        w2 = tf.compat.v1.Variable(d["w2"], name="w2")
        b2 = tf.compat.v1.Variable(d["b2"], name="b2")
        w3 = tf.compat.v1.Variable(d["w3"], name="w3")
        b3 = tf.compat.v1.Variable(d["b3"], name="b3")
        h1 = tf.nn.relu(tf.matmul(x, w1) + b1)  # line: layer1
        h2 = tf.nn.relu(tf.matmul(h1, w2) + b2)  # line: layer2
        logits = tf.matmul(h2, w3) + b3  # line: layer3
        loss = tf.reduce_mean(  # line: loss
            tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.compat.v1.train.GradientDescentOptimizer(LEARNING_RATE).minimize(loss)
        init = tf.compat.v1.global_variables_initializer()
    config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=1,
                                      intra_op_parallelism_threads=1)
    with tf.compat.v1.Session(graph=graph, config=config) as sess:
        sess.run(init)
        for _ in range(STEPS):
            sess.run([train, loss], feed_dict={x: d["x"], y: d["y"]})
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
