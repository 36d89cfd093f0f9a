"""An eager regression on pairs of readings, each row scaled by its own spread, computed
by hand as sqrt(E[x²] − E[x]²).

Usage: python pair_norm_sqrt.py

Batch BAD holds a row whose two readings are large and almost equal: in float32,
E[x²] − E[x]² cancels to a small negative number, and `tf.sqrt` of it is NaN (`proof`
replays those float32 operations: with two elements a mean is one addition and an exact
halving, whatever the order). Every other row's spread is well above 0. The line to fix is
the square root (a variance that cannot go negative: `tf.math.reduce_std`, or a clip).
"""
# EXPECT origin_op: Sqrt
# EXPECT cause: negative
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, LR = 6, 4, 8, 0.01
PAIR = (1066.110595703125, 1066.1187744140625)  # one sensor read twice: nearly equal


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(9)
    x = rng.normal(size=(STEPS * BATCH, 2)).astype(np.float32) * 3
    y = (x[:, :1] - x[:, 1:]).astype(np.float32)
    x[BAD * BATCH + 6] = np.array(PAIR, np.float32)
    return x, y


def variances(x: np.ndarray) -> np.ndarray:
    """E[x²] − E[x]² per row, in float32 as the program computes it."""
    x = x.astype(np.float32)
    m2 = (x[:, 0] * x[:, 0] + x[:, 1] * x[:, 1]) / np.float32(2)
    m = (x[:, 0] + x[:, 1]) / np.float32(2)
    return (m2 - m * m).astype(np.float32)


def proof() -> list[int]:
    """The batches holding a row whose float32 variance is negative."""
    x, _ = make_data()
    v = variances(x)
    return sorted({int(r) // BATCH for r in np.flatnonzero(v < 0)})


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w, b = tf.Variable([[0.5], [-0.5]]), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(LR)
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            mean = tf.reduce_mean(xb, axis=1, keepdims=True)
            var = tf.reduce_mean(xb * xb, axis=1, keepdims=True) - mean * mean
            spread = tf.sqrt(var)  # FIX
            pred = tf.matmul((xb - mean) / (spread + 1e-3), w) + b
            loss = tf.reduce_mean(tf.square(pred - yb))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
