"""Data, initial weights and the numpy reference of the loss-after-output pairs
(tests/compare/test_loss_after_output.py): a 3 -> 4 tanh -> 1 regressor of a positive target
whose prediction is the exponential of its last layer (`exp(h·W + b)`), trained under the
Huber loss, plain gradient descent at 0.1, three steps on one fixed batch of 8.

`reference(variant)` is the training in numpy alone (float64): per step the loss as the
program prints it and the weights after the update. Variants: `same` (Huber, delta 1, on
the exponential), `delta` (delta 0.5), `nohalf` (the quadratic branch written without its
½: `e²` where `|e| <= 1`, `|e| - ½` elsewhere) and `linear` (delta 1 on the last layer's
linear output: the exponential left out).
"""
import numpy as np

rng = np.random.RandomState(3131)
X = rng.randn(8, 3).astype("float32")
# positive targets spread so that both branches of the Huber loss are taken at step 0
Y = np.array([[0.3], [0.8], [1.2], [2.0], [2.9], [3.6], [0.5], [4.4]], "float32")
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.6 * rng.randn(3, 4)).astype("float32"), (0.1 * rng.randn(4)).astype("float32"),
        (0.4 * rng.randn(4, 1)).astype("float32"), np.array([0.4], "float32")]
RATE = 0.1


def reference(variant: str = "same", steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update (see the module docstring)."""
    delta = 0.5 if variant == "delta" else 1.0
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        a = x @ w[0] + w[1]
        h = np.tanh(a)
        z = h @ w[2] + w[3]
        p = z if variant == "linear" else np.exp(z)
        e = p - y
        quad = np.abs(e) <= delta
        if variant == "nohalf":
            terms = np.where(quad, e ** 2, np.abs(e) - 0.5)
            dp = np.where(quad, 2.0 * e, np.sign(e))
        else:
            terms = np.where(quad, 0.5 * e ** 2, delta * np.abs(e) - 0.5 * delta ** 2)
            dp = np.where(quad, e, delta * np.sign(e))
        loss = float(terms.mean())
        dz = dp / len(x) * (1.0 if variant == "linear" else p)
        da = (dz @ w[2].T) * (1.0 - h ** 2)
        grads = [x.T @ da, da.sum(0), h.T @ dz, dz.sum(0)]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "weights": [q.tolist() for q in w], "quad": int(quad.sum())})
    return out
