"""A logistic regression under tf.function whose cross-entropy is written by hand.

Usage: python xent_log_zero.py   (record it with `tfdbg-tui run -- xent_log_zero.py`)

Batch BAD holds one row in the wrong units (×1e4): its logit is in the thousands, sigmoid
rounds to exactly 1.0 in float32, and `tf.math.log(1 - p)` is log(0) = −∞ (times the row's
label 1 − y = 0: NaN). Every other batch's logits stay small (`proof`). The line to fix is
the hand-written loss (use `tf.keras.losses.BinaryCrossentropy(from_logits=True)`).
"""
# EXPECT origin_op: Log
# EXPECT cause: zero|log(0)
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES, LR = 6, 2, 8, 3, 0.05


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    w0 = rng.normal(scale=0.3, size=(FEATURES, 1)).astype(np.float32)
    y = (x @ np.array([[1.0], [-1.0], [0.5]]) > 0).astype(np.float32)
    row = BAD * BATCH + 3
    x[row] = np.sign(w0[:, 0]) * 1e4  # a row in the wrong units
    y[row] = 1.0
    return x, y, w0


def proof() -> list[float]:
    """Each step's largest |logit|, the training replayed (the gradient of this loss is
    (p − y)·x / BATCH while it is finite)."""
    x, y, w = make_data()
    w = w.astype(np.float64)
    b = 0.0
    out = []
    for s in range(STEPS):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        z = xb @ w + b
        out.append(float(np.abs(z).max()))
        if s == BAD:
            break
        p = 1 / (1 + np.exp(-z))
        w = w - LR * xb.T @ (p - yb) / BATCH
        b = b - LR * float(np.mean(p - yb))
    return out


def main() -> None:
    import tensorflow as tf

    x, y, w0 = make_data()
    w, b = tf.Variable(w0), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            p = tf.sigmoid(tf.matmul(xb, w) + b)
            loss = -tf.reduce_mean(yb * tf.math.log(p) + (1 - yb) * tf.math.log(1 - p))  # FIX
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        return loss

    for step in range(STEPS):
        loss = train_step(x[step * BATCH:(step + 1) * BATCH], y[step * BATCH:(step + 1) * BATCH])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
