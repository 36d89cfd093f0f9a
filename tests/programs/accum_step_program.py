"""A TF1 run that accumulates the gradients of two micro-batches before each update, whose
first NaN/∞ is in a micro-batch chosen by construction.

Usage: python accum_step_program.py LOGDIR BAD_MICRO_BATCH [--steps N] [--mode MODE]
Each step zeroes non-trainable accumulators, adds the gradients of 2 micro-batches into them
(a `Session.run` each) and applies their mean (one `Session.run` of the optimizer): N updates,
2N gradient runs. Every micro-batch is small and finite except BAD_MICRO_BATCH (0-based over
the run), whose inputs are 1e20: its loss overflows to +∞ and the weights go NaN at the
update that follows. A training step is an update of the trained variables, so the first
alert is in step BAD_MICRO_BATCH // 2 of N — not in the BAD_MICRO_BATCH-th gradient run.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import numpy as np
import tensorflow as tf

MICRO = 2
BATCH = 4


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("logdir")
    p.add_argument("bad", type=int)
    p.add_argument("--steps", type=int, default=4)
    p.add_argument("--mode", default="FULL_HEALTH")
    a = p.parse_args()
    v1 = tf.compat.v1
    v1.disable_eager_execution()
    tf.debugging.experimental.enable_dump_debug_info(
        a.logdir, tensor_debug_mode=a.mode, circular_buffer_size=-1)
    rng = np.random.default_rng(0)
    x = v1.placeholder(tf.float32, [None, 3])
    y = v1.placeholder(tf.float32, [None, 1])
    w = v1.Variable(tf.fill([3, 1], 0.5))
    b = v1.Variable(tf.zeros([1]))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    accumulators = [v1.Variable(tf.zeros(v.shape), trainable=False) for v in (w, b)]
    zero = tf.group(*[acc.assign(tf.zeros_like(acc)) for acc in accumulators])
    grads = tf.gradients(loss, [w, b])
    accumulate = tf.group(*[acc.assign_add(g) for acc, g in zip(accumulators, grads, strict=True)])
    apply = v1.train.MomentumOptimizer(0.01, momentum=0.9).apply_gradients(
        [(acc / MICRO, v) for acc, v in zip(accumulators, (w, b), strict=True)])
    with v1.Session() as sess:
        sess.run(v1.global_variables_initializer())
        for step in range(a.steps):
            sess.run(zero)
            for i in range(MICRO):
                bx = rng.uniform(0.1, 1.0, size=(BATCH, 3)).astype(np.float32)
                if step * MICRO + i == a.bad:
                    bx = np.full_like(bx, 1e20)
                sess.run(accumulate, {x: bx, y: bx.sum(axis=1, keepdims=True)})
            sess.run(apply)
    tf.debugging.experimental.disable_dump_debug_info()


if __name__ == "__main__":
    main()
