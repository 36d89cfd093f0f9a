"""Data, initial weights and the numpy reference of the fixed-mixing pairs
(tests/compare/test_fixed_mixing.py): a per-time-step projection (3 -> 4, no bias) whose
rows are then smoothed over time by a FIXED causal moving average S (each step the mean of
itself and the two before it: a constant matrix, no variable), a bias and tanh, then a linear
output per step (4 -> 1); the mean squared error over 8 steps; plain gradient descent at
RATE, three steps on one sequence, float64 numpy.

Variants of the smoothing matrix the TF2 rewrite multiplies by:
- `same`: S, as TF1 (which writes the smoothing as an einsum over time, not a matmul);
- `transposed`: S.T — each step averaged with the two AFTER it (a look-ahead window);
- `unnormalized`: the window's 0/1 pattern, summing instead of averaging.

`reference(variant)`: per step the loss, the smoothed rows (`mixed`), the hidden activations,
and the weights after the update.
"""
import numpy as np

rng = np.random.RandomState(3131)
T = 8
X = rng.randn(T, 3).astype("float32")
Y = rng.randn(T, 1).astype("float32")
NAMES = ["proj/kernel", "mix/bias", "out/kernel", "out/bias"]
INIT = [(0.6 * rng.randn(3, 4)).astype("float32"), (0.2 * rng.randn(4)).astype("float32"),
        (0.6 * rng.randn(4, 1)).astype("float32"), (0.1 * rng.randn(1)).astype("float32")]
RATE = 0.1
WINDOW = np.zeros((T, T), np.float32)
for t in range(T):
    WINDOW[t, max(0, t - 2):t + 1] = 1.0
S = (WINDOW / WINDOW.sum(axis=1, keepdims=True)).astype("float32")
MATRIX = {"same": S, "transposed": np.ascontiguousarray(S.T), "unnormalized": WINDOW}
VARIANTS = tuple(MATRIX)


def reference(variant: str, steps: int = 3) -> list[dict]:
    m = MATRIX[variant].astype(np.float64)
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        z = x @ w[0]
        mixed = m @ z
        h = np.tanh(mixed + w[1])
        pred = h @ w[2] + w[3]
        loss = float(np.mean((pred - y) ** 2))
        dpred = 2.0 * (pred - y) / pred.size
        dh = dpred @ w[2].T
        da = dh * (1.0 - h ** 2)
        grads = [x.T @ (m.T @ da), da.sum(0), h.T @ dpred, dpred.sum(0)]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "mixed": mixed.tolist(), "hidden": h.tolist(),
                    "weights": [q.tolist() for q in w]})
    return out
