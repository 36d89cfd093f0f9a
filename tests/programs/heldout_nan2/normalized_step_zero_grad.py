"""An eager loop training a linear classifier on a hinge loss with a hand-written
"normalized gradient descent" update, w ← w − lr·g/‖g‖ (every step the same length).

Usage: python normalized_step_zero_grad.py

The hinge loss mean(max(0, 1 − y·x·w)) has a gradient of exactly 0 when every example of
the batch is classified with a margin above 1. Batch BAD holds only points far from the
boundary: its gradient is exactly 0, ‖g‖ is 0, and g/‖g‖ is 0/0 = NaN in step BAD — the
forward pass and the gradient are finite (`proof` replays the training in float32: every
earlier step has ‖g‖ > 0.05). The line to fix is the update (divide by ‖g‖ + ε, or skip).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, LR = 6, 3, 8, 0.1


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(47)
    x = rng.uniform(-1, 1, size=(STEPS * BATCH, 2)).astype(np.float32)
    x[BAD * BATCH:(BAD + 1) * BATCH, 0] = np.where(
        x[BAD * BATCH:(BAD + 1) * BATCH, 0] < 0, -20.0, 20.0)  # far from the boundary
    y = np.where(x[:, :1] > 0, 1.0, -1.0).astype(np.float32)
    return x, y


def proof() -> list[float]:
    """Each step's ‖g‖, the training replayed in float32 until ‖g‖ is 0."""
    x, y = make_data()
    w = np.array([[0.5], [0.0]], np.float32)
    norms = []
    for s in range(STEPS):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        margin = yb * (xb @ w)
        active = (1 - margin > 0).astype(np.float32)
        g = -(xb.T @ (yb * active)) / BATCH
        norms.append(float(np.sqrt((g * g).sum())))
        if norms[-1] == 0:
            break
        w = (w - LR * g / np.float32(norms[-1])).astype(np.float32)
    return norms


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable([[0.5], [0.0]])
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.nn.relu(1.0 - yb * tf.matmul(xb, w)))
        g = tape.gradient(loss, w)
        w.assign_sub(LR * g / tf.norm(g))  # FIX
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
