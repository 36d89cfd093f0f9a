"""Attention pooling over padded sequences, its masked softmax written by hand, under
tf.function.

Usage: python attention_empty.py

The weights are exp(score − max) · mask / Σ(exp(score − max) · mask). Batch BAD holds a
sequence of length 0 (an empty document): its mask is all 0, the sum is 0, and the
normalization 0/0 is NaN. Every other sequence has at least one real step (`proof`). The
line to fix is the division (guard the empty sum, or drop empty sequences).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, TIME, DIM = 5, 1, 4, 6, 3


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(37)
    x = rng.normal(size=(STEPS * BATCH, TIME, DIM)).astype(np.float32)
    lengths = rng.integers(1, TIME + 1, size=STEPS * BATCH)
    lengths[BAD * BATCH + 3] = 0  # an empty document
    mask = (np.arange(TIME)[None, :] < lengths[:, None]).astype(np.float32)
    y = (x[:, 0, :1] > 0).astype(np.float32)
    return x, mask, y


def proof() -> list[int]:
    """The batches holding a sequence whose mask is all 0 (its weights' sum is 0)."""
    _, mask, _ = make_data()
    return [k for k in range(STEPS) if (mask[k * BATCH:(k + 1) * BATCH].sum(1) == 0).any()]


def main() -> None:
    import tensorflow as tf

    x, mask, y = make_data()
    rng = np.random.default_rng(3)
    q = tf.Variable(rng.normal(size=(DIM, 1)).astype(np.float32))
    w = tf.Variable(rng.normal(size=(DIM, 1)).astype(np.float32))
    opt = tf.keras.optimizers.Adam(0.01)

    @tf.function
    def train_step(xb: tf.Tensor, mb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            scores = tf.squeeze(tf.matmul(xb, q), -1)
            e = tf.exp(scores - tf.reduce_max(scores, axis=1, keepdims=True)) * mb
            weights = e / tf.reduce_sum(e, axis=1, keepdims=True)  # FIX
            pooled = tf.reduce_sum(weights[:, :, None] * xb, axis=1)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(yb, pooled @ w))
        grads = tape.gradient(loss, [q, w])
        opt.apply_gradients(zip(grads, [q, w], strict=True))
        return loss

    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        loss = train_step(x[rows], mask[rows], y[rows])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
