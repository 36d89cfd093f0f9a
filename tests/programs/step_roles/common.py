"""The data and starting weights both programs of tests/programs/step_roles/ use, and the
numpy model of their training (Adam on a regression net whose hidden units are Swish-β, the
β of each unit trained through its log): a = x·W1 + b1, h = a·σ(exp(lb)·a), y = h·W2 + b2,
mean squared error."""
import numpy as np

LR, BETA_1, BETA_2, EPSILON, STEPS = 0.02, 0.9, 0.999, 1e-8, 3


def data() -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.RandomState(7)
    x = rng.normal(size=(16, 4)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)
    init = {"w1": rng.normal(size=(4, 3)) * 0.5, "b1": np.array([0.1, -0.2, 0.05]),
            "lb": np.array([0.3, -0.1, 0.2]), "w2": rng.normal(size=(3, 1)),
            "b2": np.array([0.05])}
    return x, y, {k: v.astype(np.float32) for k, v in init.items()}


def forward_backward(x: np.ndarray, y: np.ndarray, w: dict[str, np.ndarray]
                     ) -> tuple[float, dict[str, np.ndarray]]:
    """The loss and every weight's gradient, in float64."""
    a = x @ w["w1"] + w["b1"]
    e = np.exp(w["lb"])
    s = 1.0 / (1.0 + np.exp(-e * a))
    h = a * s
    out = h @ w["w2"] + w["b2"]
    d = 2.0 * (out - y) / out.size
    grads = {"w2": h.T @ d, "b2": d.sum(0)}
    dh = d @ w["w2"].T
    ds = dh * a * s * (1.0 - s)  # d loss / d (e·a)
    grads["lb"] = (ds * a).sum(0) * e
    da = dh * s + ds * e
    grads["w1"], grads["b1"] = x.T @ da, da.sum(0)
    return float(np.mean((out - y) ** 2)), grads


def adam(corrected: bool = True) -> tuple[list[float], list[dict[str, np.ndarray]]]:
    """Losses and the weights each step reads (then the final ones), trained by Adam as
    TF1's kernel has it (not `corrected`: without the first moment's bias correction)."""
    x, y, w = data()
    w = {k: v.astype(np.float64) for k, v in w.items()}
    m = {k: np.zeros_like(v) for k, v in w.items()}
    v = {k: np.zeros_like(a) for k, a in w.items()}
    losses, seen = [], [dict(w)]
    for t in range(1, STEPS + 1):
        loss, g = forward_backward(x, y, w)
        losses.append(loss)
        lr_t = LR * np.sqrt(1 - BETA_2 ** t) / ((1 - BETA_1 ** t) if corrected else 1.0)
        for k in w:
            m[k] = BETA_1 * m[k] + (1 - BETA_1) * g[k]
            v[k] = BETA_2 * v[k] + (1 - BETA_2) * g[k] ** 2
            w[k] = w[k] - lr_t * m[k] / (np.sqrt(v[k]) + EPSILON)
        seen.append(dict(w))
    return losses, seen
