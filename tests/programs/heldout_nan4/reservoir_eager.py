"""An echo-state network trained eagerly: a fixed random recurrent reservoir, scaled to
spectral radius RHO, run over each sequence by hand; only the linear readout learns. The
sequences grow with a curriculum, LENGTH0 + GROW·step time steps.

Usage: python reservoir_eager.py

The tanh went to the readout's input, not into the state update: h ← h·U + x_t·W_in is
linear, and with RHO = 2 (a radius past 1 is bounded by tanh, not without it) the state
grows about 2× a time step (the readout, fed tanh(h), stays small). Short sequences stay
finite; the first sequence long enough for |h| to pass float32's range is
step BAD's, where the recurrent product h·U is ±∞ (`proof` runs the reservoir in numpy on
each step's sequences). The line to change is the state update (put the tanh in it).
"""
# EXPECT origin_op: MatMul|AddV2
# EXPECT cause: overflow
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, INPUTS, UNITS, RHO = 14, 4, 2, 8, 2.0
LENGTH0, GROW = 20, 10
BAD = 11  # the first step whose state passes float32's range (`proof`)


def length(step: int) -> int:
    return LENGTH0 + GROW * step


def make_data() -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray]:
    """Each step's sequences (BATCH, length, INPUTS) and targets, the input weights and
    the reservoir, scaled to spectral radius RHO."""
    rng = np.random.default_rng(404)
    xs = [rng.normal(size=(BATCH, length(s), INPUTS)).astype(np.float32)
          for s in range(STEPS)]
    ys = [x.sum(axis=(1, 2))[:, None].astype(np.float32) for x in xs]
    w_in = rng.normal(size=(INPUTS, UNITS)).astype(np.float32)
    u = rng.normal(size=(UNITS, UNITS))
    u = (u * RHO / np.abs(np.linalg.eigvals(u)).max()).astype(np.float32)
    return xs, ys, w_in, u


def proof() -> list[float]:
    """For each step until the first overflow, the largest |h| its reservoir reaches
    (numpy, float32, the program's update); ∞ in the step that overflows."""
    xs, _, w_in, u = make_data()
    peaks: list[float] = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x in xs:
            h = np.zeros((BATCH, UNITS), np.float32)
            peak = 0.0
            for t in range(x.shape[1]):
                h = (h @ u + x[:, t] @ w_in).astype(np.float32)
                peak = max(peak, float(np.abs(h).max()))
            peaks.append(peak if np.isfinite(h).all() else float("inf"))
            if not np.isfinite(peaks[-1]):
                break
    return peaks


def main() -> None:
    import tensorflow as tf

    xs, ys, w_in_np, u_np = make_data()
    w_in, u = tf.constant(w_in_np), tf.constant(u_np)
    readout = tf.Variable(tf.zeros([UNITS, 1]))
    opt = tf.keras.optimizers.SGD(0.01)
    for step in range(STEPS):
        x, y = tf.constant(xs[step]), tf.constant(ys[step])
        h = tf.zeros([BATCH, UNITS])
        for t in range(x.shape[1]):
            h = tf.matmul(h, u) + tf.matmul(x[:, t], w_in)  # FIX
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(tf.tanh(h), readout) - y))
        opt.apply_gradients([(tape.gradient(loss, readout), readout)])
        print(f"step {step} (length {x.shape[1]}): loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
