"""A softmax regression under tf.function, its softmax written by hand (no max subtracted).

Usage: python hand_softmax.py

Batch BAD holds a row in the wrong units (×1000): one of its logits is in the hundreds,
past 88.72 where float32's exp overflows, so `tf.exp(logits)` is +∞ and the normalization
∞/∞ is NaN. The training is replayed in `proof`: every other batch's logits stay below 10.
The line to fix is the exp (subtract the row's max, or use tf.nn.softmax).
"""
# EXPECT origin_op: Exp
# EXPECT cause: overflow
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES, CLASSES, LR = 6, 3, 8, 5, 3, 0.1


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(13)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    labels = rng.integers(0, CLASSES, size=STEPS * BATCH)
    y = np.eye(CLASSES, dtype=np.float32)[labels]
    w0 = rng.normal(scale=0.2, size=(FEATURES, CLASSES)).astype(np.float32)
    x[BAD * BATCH + 1] *= 1000.0
    return x, y, w0


def proof() -> list[float]:
    """Each step's largest logit up to step BAD, the training replayed (the gradient of
    −mean(Σ y·log p) with respect to the logits is (p − y) / BATCH)."""
    x, y, w = make_data()
    w = w.astype(np.float64)
    out = []
    for s in range(BAD + 1):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        z = xb @ w
        out.append(float(z.max()))
        e = np.exp(z - z.max(1, keepdims=True))
        p = e / e.sum(1, keepdims=True)
        w = w - LR * xb.T @ (p - yb) / BATCH
    return out


def main() -> None:
    import tensorflow as tf

    x, y, w0 = make_data()
    w = tf.Variable(w0)
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            e = tf.exp(tf.matmul(xb, w))  # FIX
            p = e / tf.reduce_sum(e, axis=1, keepdims=True)
            loss = -tf.reduce_mean(tf.reduce_sum(yb * tf.math.log(p + 1e-9), axis=1))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        return loss

    for step in range(STEPS):
        loss = train_step(x[step * BATCH:(step + 1) * BATCH], y[step * BATCH:(step + 1) * BATCH])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
