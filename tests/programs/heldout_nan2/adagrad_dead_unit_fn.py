"""A tf.function training step of a small ReLU network with Adagrad, its accumulator
started at 0 and no epsilon ("the accumulator fills up after one step anyway").

Usage: python adagrad_dead_unit_fn.py

Hidden unit DEAD starts with all incoming weights at −1 and the inputs are all positive: it
never fires, so the gradients of its incoming weights and of its outgoing weight are exactly
0. Adagrad's update lr·g / √(acc + ε) with acc = 0 + 0² and ε = 0 is 0 / √0 = 0/0 = NaN for
those weights in step 0 (`proof` replays step 0 in float32: those gradients are exactly 0,
every other one is not, the loss is finite). The line to fix is the optimizer's.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0, epsilon
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, HIDDEN, DEAD, LR = 3, 16, 4, 6, 5, 0.1


def make_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(43)
    x = rng.uniform(0.1, 1.0, size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = rng.uniform(size=(STEPS * BATCH, 1)).astype(np.float32)
    w1 = (rng.normal(size=(FEATURES, HIDDEN)) * 0.5).astype(np.float32)
    w1[:, DEAD] = -1.0
    w2 = (rng.normal(size=(HIDDEN, 1)) * 0.5).astype(np.float32)
    return x, y, w1, w2


def proof() -> tuple[list[int], bool]:
    """In step 0: the hidden units whose weights' gradients are exactly 0 (in and out), and
    whether the loss was finite; Adagrad's 0/0 needs acc = 0 + g² = 0 there."""
    x, y, w1, w2 = make_data()
    xb, yb = x[:BATCH], y[:BATCH]
    pre = xb @ w1
    h = np.maximum(pre, 0)
    err = h @ w2 - yb
    loss = np.mean(err * err)
    d = 2 * err / BATCH
    g2 = h.T @ d
    g1 = xb.T @ ((d @ w2.T) * (pre > 0))
    zero = [u for u in range(HIDDEN) if (g1[:, u] == 0).all() and g2[u, 0] == 0]
    return zero, bool(np.isfinite(loss))


def main() -> None:
    import tensorflow as tf

    x, y, w1_init, w2_init = make_data()
    w1, w2 = tf.Variable(w1_init), tf.Variable(w2_init)
    opt = tf.keras.optimizers.Adagrad(LR, initial_accumulator_value=0.0, epsilon=0.0)  # FIX

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            pred = tf.matmul(tf.nn.relu(tf.matmul(xb, w1)), w2)
            loss = tf.reduce_mean(tf.square(pred - yb))
        grads = tape.gradient(loss, [w1, w2])
        opt.apply_gradients(zip(grads, [w1, w2], strict=True))
        return loss

    for step in range(STEPS):
        loss = train_step(x[step * BATCH:(step + 1) * BATCH], y[step * BATCH:(step + 1) * BATCH])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
