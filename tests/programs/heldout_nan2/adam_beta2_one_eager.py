"""An eager loop with Adam(beta_2=1.0, epsilon=0.0): "keep the whole history of squared
gradients" — Adam's second moment then never takes a gradient in.

Usage: python adam_beta2_one_eager.py

Written after the tool's first contact with the corpus, unlike rmsprop_rho_one (√(v + ε))
and adagrad_dead_unit_fn: Adam's divisor is √v + ε, and its numerator m·α is 0 too, the bias
correction α = lr·√(1 − β₂ᵗ)/(1 − β₁ᵗ) being 0 when β₂ = 1 — every element is 0/0 = NaN in
step 0, though no gradient is 0 (`proof` replays step 0 in float32: every gradient is
non-zero, v and α are 0). The line to fix is the optimizer's.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: 0/0, epsilon, beta_2
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR = 3, 8, 3, 0.01


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(97)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [-1.0], [0.5]]) + 2.0).astype(np.float32)
    return x, y


def proof() -> tuple[bool, bool, bool]:
    """In step 0: whether every gradient is non-zero, v is 0 and Adam's α is 0."""
    x, y = make_data()
    xb, yb = x[:BATCH], y[:BATCH]
    w = np.zeros((FEATURES, 1), np.float32)
    err = xb @ w - yb
    g = 2 * xb.T @ err / BATCH
    v = np.zeros_like(g) + (g * g - 0) * np.float32(1 - 1.0)
    alpha = np.float32(LR) * np.sqrt(np.float32(1) - np.float32(1.0) ** 1) / (1 - 0.9 ** 1)
    return bool((g != 0).all()), bool((v == 0).all()), bool(alpha == 0)


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable(tf.zeros([FEATURES, 1]))
    opt = tf.keras.optimizers.Adam(LR, beta_2=1.0, epsilon=0.0)  # FIX
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) - yb))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
