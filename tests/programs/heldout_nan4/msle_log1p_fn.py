"""A count regression trained by a tf.function step on the mean squared logarithmic error,
written by hand as (log1p(ŷ) − log1p(y))², the prediction ŷ a linear layer's output.

Usage: python msle_log1p_fn.py

The targets are counts (≥ 0), but nothing keeps the prediction above −1 (Keras'
MeanSquaredLogarithmicError clips it; this loss does not). Row OUT_ROW of batch BAD is
an input far out on the side the fitted weights turn negative: its ŷ is below −1 and
log1p(ŷ) of it is NaN in step BAD (`proof` replays SGD in numpy; every earlier ŷ stays
above −1). The line to change is the loss (clip ŷ, or predict through softplus).
"""
# EXPECT origin_op: Log1p
# EXPECT cause: negative
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES, LR = 20, 9, 16, 3, 0.1
OUT_ROW = 5
W_TRUE = np.array([[0.6], [0.3], [-0.4]], np.float32)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(406)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    x[BAD * BATCH + OUT_ROW] = [-6.0, -4.0, 5.0]  # a real but far-out example
    rate = np.exp(np.clip(x @ W_TRUE + 1.0, -3, 3))
    y = rng.poisson(rate).astype(np.float32)
    return x, y


def proof() -> tuple[list[bool], list[float]]:
    """For each step, whether the loss is finite and the batch's smallest ŷ (numpy float32:
    ŷ = x·w + b, the hand MSLE, SGD on w and b)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    lr = np.float32(LR)
    finite: list[bool] = []
    lowest: list[float] = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in range(STEPS):
            xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
            pred = (xb @ w + b).astype(np.float32)
            d = (np.log1p(pred) - np.log1p(yb)).astype(np.float32)
            finite.append(bool(np.isfinite(np.mean(d * d))))
            lowest.append(float(pred.min()))
            if not finite[-1]:
                break
            g = (np.float32(2) * d / (np.float32(1) + pred) / np.float32(BATCH))
            w = (w - lr * (xb.T @ g)).astype(np.float32)
            b = np.float32(b - lr * g.sum())
    return finite, lowest


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable(tf.zeros([FEATURES, 1]))
    b = tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            pred = tf.matmul(xb, w) + b
            loss = tf.reduce_mean(tf.square(tf.math.log1p(pred) - tf.math.log1p(yb)))  # FIX
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        return loss

    for step in range(STEPS):
        loss = train_step(tf.constant(x[step * BATCH:(step + 1) * BATCH]),
                          tf.constant(y[step * BATCH:(step + 1) * BATCH]))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
