"""Whether a logdir recorded anything at all — said before any claim about NaN/∞.

Why: a program can turn dumping on and then run no TensorFlow op (it failed before its
first step, or the dumping call sat on a path that never ran). Its logdir is valid and
holds no alert, and "no NaN/∞ found" would read as "the run was clean": a confident
verdict on nothing. `report` and the app both ask here and say that nothing was recorded.
"""

from __future__ import annotations

from reader import DebugLogdir


def nothing_recorded(logdir: DebugLogdir, executions: int | None = None,
                     traces: int | None = None) -> str | None:
    """None when the logdir holds at least one execution or graph tensor, else one line
    saying that nothing was recorded. `executions`/`traces` are a snapshot's counts
    (default: the index's own)."""
    n_exec = len(logdir.executions) if executions is None else executions
    n_traces = len(logdir.traces) if traces is None else traces
    if n_exec or n_traces:
        return None
    return ("nothing was recorded: the program ran no TensorFlow op while dumping was on "
            "(0 executions, 0 graph tensors), so nothing can be said about NaN/∞")
