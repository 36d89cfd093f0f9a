"""The data and starting weights both sides of tests/compare/test_layer_stages.py read, and
numpy models of each program (the proof the test checks before any tool is run).

Two models, neither an upscaling CNN nor a bag of words:
- `pool`: a sequence classifier — x [8, 6, 3] (8 series of 6 frames of 3 features), a
  per-frame projection `relu(x·W + b)` to 5 features, the **max over the frames**
  (`reduce_max(h, axis=1)`, Keras' `GlobalMaxPooling1D`), a 5 → 2 softmax layer, the sparse
  cross-entropy; gradient descent at 0.2;
- `shrink`: an image regressor — x [4, 6, 6, 1], a 3×3 conv 1 → 2 (same, relu), a bilinear
  **downscale** to 4×4, flatten [4, 32], a 32 → 1 linear layer, the mean squared error;
  gradient descent at 0.1.
"""
import numpy as np


def pool_data():
    rng = np.random.RandomState(11)
    x = rng.randn(8, 6, 3).astype("float32")
    y = np.array([0, 1, 1, 0, 1, 0, 0, 1], "int32")
    w = {"frame/kernel": 0.7 * rng.randn(3, 5), "frame/bias": 0.1 * rng.randn(5),
         "out/kernel": 0.7 * rng.randn(5, 2), "out/bias": np.zeros(2)}
    return x, y, {k: v.astype("float32") for k, v in w.items()}


def shrink_data():
    rng = np.random.RandomState(12)
    x = rng.rand(4, 6, 6, 1).astype("float32")
    y = rng.rand(4, 1).astype("float32")
    w = {"conv1/kernel": 0.5 * rng.randn(3, 3, 1, 2), "conv1/bias": np.full(2, 0.05),
         "out/kernel": 0.3 * rng.randn(32, 1), "out/bias": np.zeros(1)}
    return x, y, {k: v.astype("float32") for k, v in w.items()}


# ---------------------------------------------------------------- numpy models (step 0)
def pool_forward(x, w, activation="relu", pooling="max"):
    """(frames, pooled, logits) at the given weights."""
    a = x.astype("float64") @ w["frame/kernel"] + w["frame/bias"]
    h = np.maximum(a, 0) if activation == "relu" else np.tanh(a)
    pooled = h.max(axis=1) if pooling == "max" else h.mean(axis=1)
    return h, pooled, pooled @ w["out/kernel"] + w["out/bias"]


def pool_loss(logits, y):
    """The mean sparse softmax cross-entropy."""
    z = logits - logits.max(axis=1, keepdims=True)
    return float(np.mean(np.log(np.exp(z).sum(axis=1)) - z[np.arange(len(y)), y]))


def _conv_same(x, k, b):
    n, hh, ww, _ = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    out = np.zeros((n, hh, ww, k.shape[3]))
    for i in range(hh):
        for j in range(ww):
            out[:, i, j, :] = np.einsum("nabc,abcd->nd", p[:, i:i + 3, j:j + 3, :], k)
    return out + b


def _bilinear(x, size, half_pixel):
    """TF's ResizeBilinear (align_corners=False): source coordinate `i·s` (TF 1.x's grid)
    or `(i + ½)·s − ½` (half-pixel centers), s = in/out, clamped at the edges."""
    n, hh, ww, c = x.shape
    out = np.zeros((n, size, size, c))

    def coords(m, o):
        s = m / o
        src = (np.arange(o) + 0.5) * s - 0.5 if half_pixel else np.arange(o) * s
        src = np.clip(src, 0, None)
        lo = np.minimum(np.floor(src).astype(int), m - 1)
        hi = np.minimum(lo + 1, m - 1)
        return lo, hi, src - np.floor(src)

    ly, hy, fy = coords(hh, size)
    lx, hx, fx = coords(ww, size)
    for i in range(size):
        for j in range(size):
            top = x[:, ly[i], lx[j]] * (1 - fx[j]) + x[:, ly[i], hx[j]] * fx[j]
            bot = x[:, hy[i], lx[j]] * (1 - fx[j]) + x[:, hy[i], hx[j]] * fx[j]
            out[:, i, j] = top * (1 - fy[i]) + bot * fy[i]
    return out


def cnn_data():
    rng = np.random.RandomState(13)
    x = rng.rand(4, 6, 6, 1).astype("float32")
    y = rng.rand(4, 1).astype("float32")
    w = {"conv1/kernel": 0.5 * rng.randn(3, 3, 1, 3), "conv1/bias": np.full(3, 0.05),
         "out/kernel": 0.3 * rng.randn(27, 1), "out/bias": np.zeros(1)}
    return x, y, {k: v.astype("float32") for k, v in w.items()}


def cnn_forward(x, w, activation="relu"):
    """(features, pooled, output): a 3×3 same conv 1 → 3, relu or tanh, a 2×2 max pool
    (stride 2), flatten [4, 27], a 27 → 1 linear layer."""
    a = _conv_same(x.astype("float64"), w["conv1/kernel"], w["conv1/bias"])
    f = np.maximum(a, 0) if activation == "relu" else np.tanh(a)
    n, hh, ww, c = f.shape
    p = f.reshape(n, hh // 2, 2, ww // 2, 2, c).max(axis=(2, 4))
    return f, p, p.reshape(n, -1) @ w["out/kernel"] + w["out/bias"]


def shrink_forward(x, w, half_pixel=False):
    """(features, resized, output) at the given weights."""
    f = np.maximum(_conv_same(x.astype("float64"), w["conv1/kernel"], w["conv1/bias"]), 0)
    r = _bilinear(f, 4, half_pixel)
    return f, r, r.reshape(len(x), -1) @ w["out/kernel"] + w["out/bias"]
