"""Data, initial weights and the numpy reference of the activity-penalty pairs
(tests/compare/test_activity_penalty.py): a small regressor (3 -> 4 sigmoid -> 2 linear
outputs, 10 examples, the mean squared error over all 20 outputs) whose loss carries a
penalty computed from the model's activations, not from its weights. Plain gradient descent
at RATE, three steps on one batch, float64 numpy.

Penalties (the variant's name says which, and how it is got wrong):
- `hidden_*`: an L1 penalty on the hidden sigmoid's activations, `0.02 * sum|h| / n`
  (Keras' `activity_regularizer=L1(0.02)` divides the layer's L1 by the batch size);
  `hidden_factor`: the batch size divided out twice (`L1(0.02 / n)`: 0.002 * sum|h| / n);
  `hidden_none`: no penalty;
- `output_*`: a penalty on the outputs themselves, `0.1 * mean(pred**2)`; `output_factor`:
  0.01 instead of 0.1; `output_none`: no penalty (the model computes one nobody adds).

`reference(variant)`: per step the loss the program minimizes (data loss + penalty), the
data loss and the penalty apart, and the weights after the update.
"""
import numpy as np

rng = np.random.RandomState(2929)
X = rng.randn(10, 3).astype("float32")
Y = rng.randn(10, 2).astype("float32")
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.7 * rng.randn(3, 4)).astype("float32"), (0.2 * rng.randn(4)).astype("float32"),
        (0.6 * rng.randn(4, 2)).astype("float32"), (0.1 * rng.randn(2)).astype("float32")]
RATE = 0.2
HIDDEN_L1 = 0.02
OUTPUT_L2 = 0.1
VARIANTS = ("hidden_same", "hidden_factor", "hidden_none",
            "output_same", "output_factor", "output_none")
_STRENGTH = {"hidden_same": HIDDEN_L1, "hidden_factor": HIDDEN_L1 / len(X), "hidden_none": 0.0,
             "output_same": OUTPUT_L2, "output_factor": 0.01, "output_none": 0.0}


def reference(variant: str, steps: int = 3) -> list[dict]:
    """Per step: `loss` (what the program minimizes and prints), `data`, `penalty`, the
    hidden activations and outputs, and the weights after the update."""
    c = _STRENGTH[variant]
    on_hidden = variant.startswith("hidden")
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    n = len(x)
    out = []
    for _ in range(steps):
        h = 1.0 / (1.0 + np.exp(-(x @ w[0] + w[1])))
        pred = h @ w[2] + w[3]
        data = float(np.mean((pred - y) ** 2))
        dpred = 2.0 * (pred - y) / pred.size
        dh_extra = np.zeros_like(h)
        if on_hidden:
            penalty = c * float(np.abs(h).sum()) / n
            dh_extra = c * np.sign(h) / n
        else:
            penalty = c * float(np.mean(pred ** 2))
            dpred = dpred + c * 2.0 * pred / pred.size
        dh = dpred @ w[2].T + dh_extra
        da = dh * h * (1.0 - h)
        grads = [x.T @ da, da.sum(0), h.T @ dpred, dpred.sum(0)]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": data + penalty, "data": data, "penalty": penalty,
                    "hidden": h.tolist(), "pred": pred.tolist(),
                    "weights": [q.tolist() for q in w]})
    return out
