"""Test program: a TF1 graph that saves and restores a checkpoint.

Usage: dumper_tf1_saver.py CHECKPOINT_DIR. Recorded under `tfdbg-tui run`; TensorFlow's
dumping callback used to hand `tf.compat.v1.train.Saver` the debug identity of a resource
variable's read, and both Saver forms failed; a reference variable (`use_resource=False`, what
`disable_v2_behavior()` makes) could not even be created (dumper/graph_vars.py). Prints one
JSON line: the values after one step (fetched, saved), after a second step, and after
restoring each Saver.
"""

from __future__ import annotations

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np
import tensorflow as tf


def main() -> None:
    out = sys.argv[1]
    tf.compat.v1.disable_eager_execution()
    x = tf.compat.v1.placeholder(tf.float32, [None, 2], name="x")
    w = tf.compat.v1.get_variable("w", initializer=tf.constant([[1.0], [2.0]]))
    b = tf.Variable([0.5], name="b")
    c = tf.compat.v1.get_variable("c", initializer=tf.constant([0.25]), use_resource=False)
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b + c))
    train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)
    by_default = tf.compat.v1.train.Saver()
    by_name = tf.compat.v1.train.Saver({"w": w, "b": b, "c": c})
    feed = {x: np.array([[1.0, 1.0], [2.0, 0.0]], np.float32)}

    def values(sess: tf.compat.v1.Session) -> list[list[float]]:
        return [v.ravel().tolist() for v in sess.run([w, b, c])]

    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        sess.run(train, feed)
        saved = values(sess)
        first = by_default.save(sess, os.path.join(out, "default.ckpt"))
        second = by_name.save(sess, os.path.join(out, "by_name.ckpt"))
        sess.run(train, feed)
        moved = values(sess)
        by_default.restore(sess, first)
        restored_default = values(sess)
        sess.run(train, feed)
        by_name.restore(sess, second)
        restored_by_name = values(sess)
    print(json.dumps({"saved": saved, "moved": moved, "restored_default": restored_default,
                      "restored_by_name": restored_by_name}))


if __name__ == "__main__":
    main()
