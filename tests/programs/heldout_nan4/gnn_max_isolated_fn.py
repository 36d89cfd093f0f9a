"""A one-layer graph network trained by a tf.function step: each node takes the feature-wise
max of its in-neighbours' features (`tf.math.unsorted_segment_max` over the edges), and a
linear head predicts the node's target from it.

Usage: python gnn_max_isolated_fn.py

Graph BAD has a node no edge points to. An empty segment's max is not 0 nor an error: it
is float32's lowest finite value, −3.4e38, for every feature. Nothing is non-finite yet;
the head's x·w (|Σw| < 1) stays finite too, but its squared error overflows to +∞ in step
BAD (`proof` replays the graphs and SGD in numpy). The line to change is the aggregation
(`tf.maximum(…, 0)` for nodes without neighbours, or a segment-wise mask), where the
−3.4e38 was made from finite features: not the square's.
"""
# EXPECT origin_op: Square
# EXPECT cause: overflow
# EXPECT kind: forward
# EXPECT fix_op: UnsortedSegmentMax

from __future__ import annotations

import numpy as np

STEPS, BAD, NODES, EDGES, FEATURES, LR = 16, 6, 12, 30, 3, 0.05
ISOLATED = 4  # graph BAD's node with no in-edge
W_TRUE = np.array([[0.3], [-0.2], [0.25]], np.float32)


def make_graphs() -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Each step's graph: node features, edge sources and destinations, node targets.
    Every node has an in-edge (a ring) but graph BAD's node ISOLATED."""
    rng = np.random.default_rng(407)
    graphs = []
    for s in range(STEPS):
        x = rng.normal(size=(NODES, FEATURES)).astype(np.float32)
        ring = np.arange(NODES)
        src = np.concatenate([(ring + 1) % NODES, rng.integers(0, NODES, EDGES - NODES)])
        dst = np.concatenate([ring, rng.integers(0, NODES, EDGES - NODES)])
        if s == BAD:
            keep = dst != ISOLATED
            src, dst = src[keep], dst[keep]
        agg = np.full((NODES, FEATURES), np.finfo(np.float32).min, np.float32)
        for a, b in zip(src, dst, strict=True):
            agg[b] = np.maximum(agg[b], x[a])
        y = np.where(np.isin(ring, dst)[:, None], agg @ W_TRUE, 0).astype(np.float32)
        graphs.append((x, src.astype(np.int32), dst.astype(np.int32), y))
    return graphs


def proof() -> tuple[list[bool], list[float]]:
    """For each step, whether the loss is finite, and |Σw| as the step reads it (numpy
    float32: the max aggregation, x·w + b, the squared error, SGD on w and b)."""
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    lr = np.float32(LR)
    finite: list[bool] = []
    wsum: list[float] = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x, src, dst, y in make_graphs():
            agg = np.full((NODES, FEATURES), np.finfo(np.float32).min, np.float32)
            for a, c in zip(src, dst, strict=True):
                agg[c] = np.maximum(agg[c], x[a])
            r = (agg @ w + b - y).astype(np.float32)
            finite.append(bool(np.isfinite(r).all() and np.isfinite(r * r).all()))
            wsum.append(float(np.abs(w).sum()))
            if not finite[-1]:
                break
            g = (np.float32(2) * r / np.float32(NODES)).astype(np.float32)
            w = (w - lr * (agg.T @ g)).astype(np.float32)
            b = np.float32(b - lr * g.sum())
    return finite, wsum


def main() -> None:
    import tensorflow as tf

    w = tf.Variable(tf.zeros([FEATURES, 1]))
    b = tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(LR)

    @tf.function
    def train_step(x: tf.Tensor, src: tf.Tensor, dst: tf.Tensor, y: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            agg = tf.math.unsorted_segment_max(tf.gather(x, src), dst, NODES)  # FIX
            loss = tf.reduce_mean(tf.square(tf.matmul(agg, w) + b - y))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        return loss

    for step, (x, src, dst, y) in enumerate(make_graphs()):
        loss = train_step(tf.constant(x), tf.constant(src), tf.constant(dst), tf.constant(y))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
