"""Data, initial weights and the numpy reference of the output-activation pairs
(tests/compare/test_output_activation.py): a 4 -> 6 elu -> 3 sigmoid multi-label classifier
on one fixed batch of 12 (three independent 0/1 labels an example), the binary
cross-entropy of the probabilities (the mean over all 36 terms), plain gradient descent at
0.1, three steps.

`reference(eps)` is the training in numpy alone (float64): per step the loss, the logits
and the probabilities the step computed, and the weights after the update; `eps` is TF1's
`log_loss` epsilon (`-y log(p + eps) - (1 - y) log(1 - p + eps)`), 0 for the exact
cross-entropy Keras computes from the logits. `probs_loss(z)` is Keras'
`binary_crossentropy` from probabilities applied to logits (the rewrite's mistake: clipped
to [1e-7, 1 - 1e-7], float32's 1 - 1e-7).
"""
import numpy as np

rng = np.random.RandomState(4242)
X = rng.randn(12, 4).astype("float32")
Y = (rng.rand(12, 3) < 0.5).astype("float32")
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.7 * rng.randn(4, 6)).astype("float32"), (0.1 * rng.randn(6)).astype("float32"),
        (0.5 * rng.randn(6, 3)).astype("float32"), (0.1 * rng.randn(3)).astype("float32")]
RATE = 0.1


def reference(eps: float = 0.0, steps: int = 3) -> list[dict]:
    """Per step: the loss, the logits, the probabilities, the weights after the update."""
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        a = x @ w[0] + w[1]
        h = np.where(a > 0, a, np.expm1(np.minimum(a, 0)))
        z = h @ w[2] + w[3]
        p = 1.0 / (1.0 + np.exp(-z))
        loss = float((-y * np.log(p + eps) - (1 - y) * np.log(1 - p + eps)).mean())
        dp = (-y / (p + eps) + (1 - y) / (1 - p + eps)) / y.size
        dz = dp * p * (1 - p)
        da = (dz @ w[2].T) * np.where(a > 0, 1.0, np.exp(np.minimum(a, 0)))
        grads = [x.T @ da, da.sum(0), h.T @ dz, dz.sum(0)]
        out.append({"loss": loss, "logits": z.tolist(), "probs": p.tolist()})
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out[-1]["weights"] = [q.tolist() for q in w]
    return out


def probs_loss(z: np.ndarray) -> float:
    """Keras' binary cross-entropy of `z` read as probabilities."""
    q = np.clip(z, 1e-7, 1 - float(np.finfo(np.float32).eps))
    return float((-Y * np.log(q) - (1 - Y) * np.log(1 - q)).mean())
