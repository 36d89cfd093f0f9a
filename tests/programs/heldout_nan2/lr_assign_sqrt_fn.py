"""A tf.function training step with a hand-written SGD whose learning rate, a tf.Variable,
is set at the start of each step from a square-root decay meant to reach 0 at step TOTAL.

Usage: python lr_assign_sqrt_fn.py

lr = BASE·√(1 − s/TOTAL) is 0 at s = TOTAL; the loop runs past it (the step count was
raised, TOTAL was not), and in step BAD = TOTAL + 1 the square root of a negative number is
NaN. It is assigned before the forward pass, whose loss is finite; the update then writes
NaN into the weights (`proof` replays the rates in float32 and the training before them).
The line to fix is the assignment.
"""
# EXPECT origin_op: Sqrt
# EXPECT cause: negative
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, BASE, TOTAL = 8, 8, 2, 0.1, 5
BAD = TOTAL + 1


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(67)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.5], [-0.5]]) + 0.2).astype(np.float32)
    return x, y


def rates() -> list[float]:
    out = []
    for s in range(STEPS):
        left = np.float32(1.0) - np.float32(s) / np.float32(TOTAL)
        with np.errstate(invalid="ignore"):
            out.append(float(np.float32(BASE) * np.sqrt(left)))
    return out


def proof() -> tuple[int, list[float]]:
    """The first step whose learning rate is not finite, and the losses up to it."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    losses = []
    for s, lr in enumerate(rates()):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w + b - yb
        losses.append(float(np.mean(err * err)))
        if not np.isfinite(lr):
            return s, losses
        w = w - np.float32(lr) * (2 * xb.T @ err / BATCH)
        b = b - np.float32(lr) * np.float32(2 * err.mean())
    return -1, losses


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    lr = tf.Variable(BASE)

    @tf.function
    def train_step(step: tf.Tensor, xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        lr.assign(BASE * tf.sqrt(1.0 - tf.cast(step, tf.float32) / TOTAL))  # FIX
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(lr * gw)
        b.assign_sub(lr * gb)
        return loss

    for step in range(STEPS):
        loss = train_step(tf.constant(step), x[step * BATCH:(step + 1) * BATCH],
                          y[step * BATCH:(step + 1) * BATCH])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
