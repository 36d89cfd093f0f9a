"""A deterministic logdir with two origins whose alerts interleave in time (for the Alerts
pane's incident groups): every step, `std = sqrt(x - mean)` takes the square root of
negative numbers (NaN), and then `cross_entropy`'s `Log` of a softmax holding a zero (−∞).
Written with the TF-free writer (tests/support/tui.py), so SVG snapshots are stable.
"""

from __future__ import annotations

import os

from support.tui import RefLogdir, health, start_reference

LINES = [
    "import tensorflow as tf",
    "",
    "",
    "@tf.function",
    "def cross_entropy(probs, labels):",
    "    return -tf.reduce_sum(labels * tf.math.log(probs))",
    "",
    "",
    "@tf.function",
    "def train_step(x, w, labels):",
    "    logits = tf.matmul(x, w)",
    "    probs = tf.nn.softmax(logits)",
    "    return cross_entropy(probs, labels) + tf.reduce_sum(tf.sqrt(x - 0.5))",
    "",
    "",
    "for step in range(2):",
    "    train_step(x, w, labels)",
]


def add_ops(ref: RefLogdir) -> None:
    w = ref.writer
    frames = [ref.frames["call"][0], w.add_stack_frame(0, 13, "train_step")]
    w.add_op(ref.outer, "Sub", "centered", ["x:0"], stack_frame_ids=frames)
    w.add_op(ref.outer, "Sqrt", "std", ["centered:0"], stack_frame_ids=frames)
    w.flush()


def add_two_origin_step(ref: RefLogdir, step: int) -> None:
    """One step: Sqrt of negatives (NaN), then the reference's Log of a zero (−∞)."""
    w = ref.writer

    def trace(graph: str, op: str, vec: list[float]) -> None:
        ref.wall += 0.001
        w.add_graph_trace(graph, op, 0, "FULL_HEALTH", vec, wall_time=ref.wall)

    trace(ref.outer, "MatMul", health(3, 12, neg=5, pos=7))
    trace(ref.outer, "centered", health(20, 4, neg=3, pos=1))
    trace(ref.outer, "std", health(21, 4, nan=3, pos=1))
    trace(ref.outer, "Softmax", health(4, 12, zero=1, pos=11))
    trace(ref.inner, "Log", health(7, 12, ninf=1, neg=11))
    trace(ref.inner, "mul", health(8, 12, nan=1, neg=4, zero=7))
    trace(ref.inner, "Sum", health(9, 1, ninf=1, rank=0))
    w.flush()


def write_two_origins(logdir: str | os.PathLike[str], steps: int = 3) -> None:
    ref = start_reference(logdir, source_lines=LINES)
    add_ops(ref)
    for step in range(steps):
        add_two_origin_step(ref, step)
    ref.writer.close()
