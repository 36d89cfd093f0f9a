"""Data, initial weights and the numpy reference shared by the leftovers pairs
(tests/compare/test_leftovers.py): a 4 -> 3 tanh -> 1 regression on one fixed batch of 8,
three steps, the mean squared error.

`reference(optimizer, steps)` is the training written in numpy alone: per step the loss,
the weights after the update and the exponential moving average of the weights (decay 0.9,
started at the initial weights, updated after each step's update) — what verify.py holds
both programs of a pair to.
"""
import numpy as np

rng = np.random.RandomState(11)
X, Y = rng.randn(8, 4).astype("float32"), rng.randn(8, 1).astype("float32")
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.5 * rng.randn(4, 3)).astype("float32"), np.full(3, 0.1, "float32"),
        (0.5 * rng.randn(3, 1)).astype("float32"), np.full(1, 0.2, "float32")]
DECAY = 0.9  # the moving average's
RATES = {"adamax": 0.05, "adam": 0.05, "momentum": 0.1, "nesterov": 0.1, "sgd": 0.1}


def _grads(w: list[np.ndarray]) -> tuple[float, list[np.ndarray]]:
    x, y = X.astype(np.float64), Y.astype(np.float64)
    h = np.tanh(x @ w[0] + w[1])
    pred = h @ w[2] + w[3]
    loss = float(np.mean((pred - y) ** 2))
    d = 2.0 * (pred - y) / pred.size
    dh = (d @ w[2].T) * (1.0 - h ** 2)
    return loss, [x.T @ dh, dh.sum(0), h.T @ d, d.sum(0)]


def reference(optimizer: str, steps: int = 3, rate: float | None = None) -> list[dict]:
    """Per step: loss, weights after the update, the averages after the step."""
    lr = RATES[optimizer] if rate is None else rate
    w = [a.astype(np.float64) for a in INIT]
    avg = [a.copy() for a in w]
    m = [np.zeros_like(a) for a in w]
    u = [np.zeros_like(a) for a in w]
    out = []
    for t in range(1, steps + 1):
        loss, g = _grads(w)
        for i in range(len(w)):
            if optimizer == "adam":  # Kingma & Ba 1, the step size bias-corrected; eps 1e-8
                m[i] = 0.9 * m[i] + 0.1 * g[i]
                u[i] = 0.999 * u[i] + 0.001 * g[i] ** 2
                step = lr * np.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t)
                w[i] = w[i] - step * m[i] / (np.sqrt(u[i]) + 1e-8)
            elif optimizer == "adamax":  # Kingma & Ba 7.1, epsilon 1e-8
                m[i] = 0.9 * m[i] + 0.1 * g[i]
                u[i] = np.maximum(0.999 * u[i], np.abs(g[i]))
                w[i] = w[i] - lr / (1 - 0.9 ** t) * m[i] / (u[i] + 1e-8)
            elif optimizer == "momentum":  # accumulation 0.9
                m[i] = 0.9 * m[i] + g[i]
                w[i] = w[i] - lr * m[i]
            elif optimizer == "nesterov":  # TF1's form: var -= lr (g + 0.9 accum)
                m[i] = 0.9 * m[i] + g[i]
                w[i] = w[i] - lr * (g[i] + 0.9 * m[i])
            else:
                w[i] = w[i] - lr * g[i]
            avg[i] = DECAY * avg[i] + (1 - DECAY) * w[i]
        out.append({"loss": loss, "weights": [a.tolist() for a in w],
                    "averages": [a.tolist() for a in avg]})
    return out
