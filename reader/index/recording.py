"""Warnings about how a run was recorded, when the counts show that something was lost.

Two ways a recording silently misses the NaN, both seen on real runs:
- TensorFlow dumps per thread: `enable_dump_debug_info` instruments the thread that called it
  (op callbacks are thread-local), but it records every tf.function graph created anywhere.
  Work run in another thread leaves graphs with no ops, no executions and no traces, and a
  report that finds "no NaN/∞" proves nothing.
- The circular buffer (TensorFlow's default keeps the last 1000 executions and the last 1000
  graph traces, written out only at the end) silently drops the beginning of the run —
  usually the first NaN. A file holding exactly that many records is the sign.
"""

from __future__ import annotations

from collections.abc import Iterable

from reader.index.graphs import Graph

DEFAULT_BUFFER = 1000
_HOW_TO_RECORD_ALL = ("record with circular_buffer_size=-1 (the default of tfdbg-tui run) to "
                      "keep everything")


def thread_warning(graphs: Iterable[Graph], n_executions: int, n_traces: int) -> str | None:
    """Graphs recorded without ops: the work ran in a thread that was not dumping."""
    empty = sorted({g.name for g in graphs if g.name and g.outer_id and not g.ops})
    if not empty:
        return None
    names = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
    if not n_executions and not n_traces:
        return (f"tf.function graph(s) {names} were recorded without any op, execution or "
                "tensor: the work ran in a thread other than the one that enabled dumping "
                "(TensorFlow dumps per thread), so nothing it computed was recorded — enable "
                "dumping in the thread that runs the model")
    return (f"tf.function graph(s) {names} were recorded without any op: they were built in "
            "a thread other than the one that enabled dumping (TensorFlow dumps per thread), "
            "so whatever they computed is missing from this logdir")


def buffer_warning(executions: int, traces: int, n_filesets: int) -> str | None:
    """Counts that look like a full circular buffer (only one host: buffers are per host)."""
    if n_filesets != 1:
        return None
    full = [f"{n:,} {what}" for n, what in ((executions, "executions"),
                                              (traces, "graph traces")) if n == DEFAULT_BUFFER]
    if not full:
        return None
    return (f"this run holds exactly {' and '.join(full)}: that is what TensorFlow's circular "
            f"buffer keeps by default (circular_buffer_size={DEFAULT_BUFFER}), so the "
            "beginning of the run — usually the first NaN — was probably dropped; "
            + _HOW_TO_RECORD_ALL)
