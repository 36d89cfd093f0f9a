"""Deterministic logdirs for the TUI tests, written with the TF-free `dumper.writer`.

Why not TensorFlow here: snapshot tests need the same bytes every run (fixed run id, host,
file timestamp, wall times and source paths), and the live and hostile-text tests need to
write records while the app runs. The shape mirrors the reference bug (`tfdbg-tui demo`): a
tf.function `train_step` calls `cross_entropy`, whose `Log` of a softmax with a zero gives −∞.
"""

from __future__ import annotations

import asyncio
import functools
import os
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from textual.app import App
from textual.worker import WorkerCancelled

from dumper.writer import LogdirWriter
from support.slowdown import WAIT

T0 = 1_700_000_000.0
TRAIN_PY = "/home/user/project/train.py"
TF_FILE = "/usr/lib/python3/site-packages/tensorflow/python/ops/gen_math_ops.py"
TRAIN_LINES = [
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
    "    return cross_entropy(probs, labels)",
    "",
    "",
    "for step in range(2):",
    "    train_step(x, w, labels)",
]


def health(tid: int, size: int, *, neg: int = 0, zero: int = 0, pos: int = 0,
           nan: int = 0, ninf: int = 0, pinf: int = 0, rank: int = 2) -> list[float]:
    """A FULL_HEALTH vector: [id, device, dtype, rank, size, −∞, +∞, NaN, −, 0, +]."""
    return [tid, 1, 1, rank, size, ninf, pinf, nan, neg, zero, pos]


@dataclass
class RefLogdir:
    """Handles to a reference-like logdir under construction (for appending live)."""

    writer: LogdirWriter
    outer: str = "g-train-step"
    inner: str = "g-cross-entropy"
    frames: dict[str, list[str]] = field(default_factory=dict)
    wall: float = T0


def start_reference(logdir: str | os.PathLike[str], *, op_prefix: str = "",
                    source_lines: list[str] | None = None) -> RefLogdir:
    """Write metadata, sources, frames and graphs; no executions or traces yet."""
    w = LogdirWriter(logdir, run_id="run-0001", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=int(T0))
    train = w.add_source_file(TRAIN_PY, source_lines or TRAIN_LINES)
    tf_file = w.add_source_file(TF_FILE, ["# generated", "def log(x):", "    return _op(x)"])
    loop = w.add_stack_frame(train, 17, "<module>")
    call = w.add_stack_frame(train, 13, "train_step")
    tf_frame = w.add_stack_frame(tf_file, 3, "log")
    frames = {
        "MatMul": [loop, w.add_stack_frame(train, 11, "train_step"), tf_frame],
        "Softmax": [loop, w.add_stack_frame(train, 12, "train_step"), tf_frame],
        "Log": [loop, call, w.add_stack_frame(train, 6, "cross_entropy"), tf_frame],
        "call": [loop, w.add_stack_frame(train, 17, "<module>", col=4)],
    }
    ref = RefLogdir(w, frames=frames)
    w.add_graph(ref.outer, "train_step")
    w.add_graph(ref.inner, "cross_entropy", ref.outer)
    p = op_prefix
    w.add_op(ref.outer, "Placeholder", "x", [], stack_frame_ids=frames["MatMul"])
    w.add_op(ref.outer, "Placeholder", "w", [], stack_frame_ids=frames["MatMul"])
    w.add_op(ref.outer, "MatMul", f"{p}MatMul", ["x:0", "w:0"], stack_frame_ids=frames["MatMul"])
    w.add_op(ref.outer, "Softmax", f"{p}Softmax", [f"{p}MatMul:0"],
             stack_frame_ids=frames["Softmax"])
    w.add_op(ref.inner, "Placeholder", "probs", [], stack_frame_ids=frames["Log"])
    w.add_op(ref.inner, "Placeholder", "labels", [], stack_frame_ids=frames["Log"])
    w.add_op(ref.inner, "Log", f"{p}Log", ["probs:0"], stack_frame_ids=frames["Log"])
    w.add_op(ref.inner, "Mul", f"{p}mul", ["labels:0", f"{p}Log:0"],
             stack_frame_ids=frames["Log"])
    w.add_op(ref.inner, "Sum", f"{p}Sum", [f"{p}mul:0"], stack_frame_ids=frames["Log"])
    w.flush()
    return ref


def add_step(ref: RefLogdir, step: int, *, op_prefix: str = "", bad: bool = True) -> None:
    """One call of train_step: six graph traces and the function call's execution."""
    w, p = ref.writer, op_prefix

    def trace(graph: str, op: str, vec: list[float]) -> None:
        ref.wall += 0.001
        w.add_graph_trace(graph, op, 0, "FULL_HEALTH", vec, wall_time=ref.wall)

    zero = 1 if bad else 0
    trace(ref.outer, f"{p}MatMul", health(3, 12, neg=5, pos=7))
    trace(ref.outer, f"{p}Softmax", health(4, 12, zero=zero, pos=12 - zero))
    trace(ref.inner, f"{p}Log", health(7, 12, ninf=zero, neg=11, zero=1 - zero))
    trace(ref.inner, f"{p}mul", health(8, 12, nan=zero, neg=4, zero=8 - zero))
    trace(ref.inner, f"{p}Sum", health(9, 1, ninf=zero, neg=1 - zero, rank=0))
    ref.wall += 0.001
    w.add_execution("__inference_train_step_42", "FULL_HEALTH",
                    [health(-1, 1, nan=zero, neg=1 - zero, rank=0)], graph_id=ref.outer,
                    input_tensor_ids=[1, 2], output_tensor_ids=[10 + step],
                    stack_frame_ids=ref.frames["call"], wall_time=ref.wall)
    w.flush()


def write_reference(logdir: str | os.PathLike[str], steps: int = 2) -> None:
    """A complete, deterministic reference-like logdir: two steps, the second one bad."""
    ref = start_reference(logdir)
    for step in range(steps):
        add_step(ref, step, bad=step > 0)
    ref.writer.close()


def sync(fn: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test with `asyncio.run` (the project does not use pytest-asyncio)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        asyncio.run(fn(*args, **kwargs))

    return wrapper


def record_notifications(app: App[Any]) -> list[str]:
    """Every notification message `app` posts from now on, in order, kept for the test.

    Textual drops a notification from `app._notifications` once its timeout (5-10 s) has run
    out: on a busy machine that can happen before a test looks, and counting the live ones
    around a key press is then off by the ones that expired meanwhile. This list keeps every
    message `App.notify` (which widgets and threads call too) was given; the app still shows
    each one as usual."""
    said: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        said.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    return said


async def workers_done(app: App[Any], timeout: float = WAIT) -> None:
    """Wait until no worker runs. An exclusive worker replaced by a newer one ends as
    cancelled, which `wait_for_complete` reports as an error: wait again for the newer one.
    A worker that never ends fails the test after `timeout` seconds instead of hanging it."""

    async def wait() -> None:
        while True:
            try:
                await app.workers.wait_for_complete()
                return
            except WorkerCancelled:
                continue

    await asyncio.wait_for(wait(), timeout)


async def follows_done(app: Any, pilot: Any, timeout: float = WAIT) -> None:
    """Wait until the main screen has no follow waiting for its cursor to rest (a debounced
    request runs from a timer: the panes it fills are not drawn before it fires)."""
    async def wait() -> None:
        while getattr(getattr(app, "main", None), "_pending", None) is not None:
            await pilot.pause(0.05)

    await asyncio.wait_for(wait(), timeout)


async def settle(app: Any, pilot: Any, timeout: float = WAIT) -> None:
    """Wait for the first full read, every worker (source loading, diagnosis), every
    debounced follow, a repaint."""
    await asyncio.wait_for(app.indexed.wait(), timeout)
    await workers_done(app, timeout)
    await pilot.pause()
    await follows_done(app, pilot, timeout)
    await workers_done(app, timeout)
    await pilot.pause()


async def follow_first_alert(app: Any, pilot: Any) -> None:
    """Settle, press Enter on the first alert (selected at launch), settle again."""
    await settle(app, pilot)
    await pilot.press("enter")
    await settle(app, pilot)
