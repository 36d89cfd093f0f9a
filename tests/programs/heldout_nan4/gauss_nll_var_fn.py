"""A regression that learns its noise level, trained by a tf.function step on the Gaussian
negative log-likelihood ½·log(var) + (y − μ)²/(2·var), the variance a raw variable.

Usage: python gauss_nll_var_fn.py

Nothing keeps `var` positive (no softplus, no log-variance). Once μ fits the data, the
residuals are small and the likelihood pulls var down by LR·(var − r²)/(2·var²) a step:
the closer to 0, the larger the step, until a step jumps past 0 and log(var) of a negative
number is NaN in step BAD (`proof` replays SGD in numpy). The line to change is the loss,
which should take the variance as exp of a learned log-variance.
"""
# EXPECT origin_op: Log
# EXPECT cause: negative
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR, NOISE = 60, 32, 3, 0.05, 0.05
BAD = 25  # the step that reads var < 0 (`proof`: 0.082 → −0.199 in step 24)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(403)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = x @ np.array([[0.4], [-0.3], [0.2]]) + 0.1 + NOISE * rng.normal(size=(STEPS * BATCH, 1))
    return x, y.astype(np.float32)


def proof() -> tuple[list[bool], list[float]]:
    """For each step, whether the loss is finite, and var as the step reads it (numpy
    float32: μ = x·w + b, the NLL, SGD on w, b and var)."""
    x, y = make_data()
    w, b, var = np.zeros((FEATURES, 1), np.float32), np.float32(0), np.float32(1)
    lr = np.float32(LR)
    finite: list[bool] = []
    seen: list[float] = []
    with np.errstate(invalid="ignore"):
        for s in range(STEPS):
            xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
            r = (yb - (xb @ w + b)).astype(np.float32)
            loss = np.mean(np.float32(0.5) * np.log(var) + r * r / (np.float32(2) * var))
            finite.append(bool(np.isfinite(loss)))
            seen.append(float(var))
            if not finite[-1]:
                break
            g = (-r / (var * np.float32(BATCH))).astype(np.float32)  # d loss / d μ
            gvar = np.float32(0.5) / var - np.mean(r * r) / (np.float32(2) * var * var)
            w = (w - lr * (xb.T @ g)).astype(np.float32)
            b = np.float32(b - lr * g.sum())
            var = np.float32(var - lr * gvar)
    return finite, seen


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable(tf.zeros([FEATURES, 1]))
    b = tf.Variable(0.0)
    var = tf.Variable(1.0)  # the noise variance, learned
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            r = yb - (tf.matmul(xb, w) + b)
            loss = tf.reduce_mean(0.5 * tf.math.log(var) + tf.square(r) / (2.0 * var))  # FIX
        grads = tape.gradient(loss, [w, b, var])
        opt.apply_gradients(zip(grads, [w, b, var], strict=True))
        return loss

    for step in range(STEPS):
        loss = train_step(tf.constant(x[step * BATCH:(step + 1) * BATCH]),
                          tf.constant(y[step * BATCH:(step + 1) * BATCH]))
        print(f"step {step}: loss {float(loss):.4g}, var {float(var.numpy()):.4g}")


if __name__ == "__main__":
    main()
