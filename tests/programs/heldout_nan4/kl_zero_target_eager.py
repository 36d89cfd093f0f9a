"""An eager distillation loop whose KL divergence KL(p‖q) = Σ p·log(p/q) is written by hand,
the target p a teacher's class histogram.

Usage: python kl_zero_target_eager.py

The teacher's histograms come from counts; row ZERO_ROW of batch BAD never saw class
ZERO_CLASS, so its p has an exact 0 there. p/q = 0, log(0) = −∞ and 0·(−∞) = NaN in step
BAD (every earlier target is positive; the student's softmax q never reaches 0: `proof`
replays the loop in numpy). The line to change is the KL (`tf.math.xlogy`, or
`tf.keras.losses.KLDivergence`, which clips p).
"""
# EXPECT origin_op: Log
# EXPECT cause: zero|log(0)
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES, CLASSES, LR = 12, 5, 8, 6, 4, 0.5
ZERO_ROW, ZERO_CLASS = 3, 2


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(402)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    counts = rng.integers(1, 30, size=(STEPS * BATCH, CLASSES)).astype(np.float32)
    counts[BAD * BATCH + ZERO_ROW, ZERO_CLASS] = 0.0  # a class this example never had
    p = (counts / counts.sum(axis=1, keepdims=True)).astype(np.float32)
    return x, p


def proof() -> list[bool]:
    """For each step, whether the KL is finite (numpy float32: the student, its softmax, the
    KL, and SGD on its gradient (q − p)/BATCH through the logits)."""
    x, p = make_data()
    w, b = np.zeros((FEATURES, CLASSES), np.float32), np.zeros(CLASSES, np.float32)
    finite = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in range(STEPS):
            xb, pb = x[s * BATCH:(s + 1) * BATCH], p[s * BATCH:(s + 1) * BATCH]
            z = xb @ w + b
            e = np.exp(z - z.max(axis=1, keepdims=True))
            q = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
            assert (q > 0).all()
            kl = np.mean(np.sum(pb * np.log(pb / q), axis=1))
            finite.append(bool(np.isfinite(kl)))
            if not finite[-1]:
                break
            g = ((q - pb) / np.float32(BATCH)).astype(np.float32)
            w = (w - np.float32(LR) * (xb.T @ g)).astype(np.float32)
            b = (b - np.float32(LR) * g.sum(axis=0)).astype(np.float32)
    return finite


def main() -> None:
    import tensorflow as tf

    x, p = make_data()
    w = tf.Variable(tf.zeros([FEATURES, CLASSES]))
    b = tf.Variable(tf.zeros([CLASSES]))
    opt = tf.keras.optimizers.SGD(LR)
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        pb = tf.constant(p[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            q = tf.nn.softmax(tf.matmul(xb, w) + b)
            kl = tf.reduce_mean(tf.reduce_sum(pb * tf.math.log(pb / q), axis=1))  # FIX
        grads = tape.gradient(kl, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        print(f"step {step}: kl {float(kl):.4g}")


if __name__ == "__main__":
    main()
