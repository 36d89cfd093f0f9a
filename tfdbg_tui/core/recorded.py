"""Whether a logdir recorded anything at all — said before any claim about NaN/∞.

Why: a program can turn dumping on and then run no TensorFlow op (it failed before its
first step, or the dumping call sat on a path that never ran). Its logdir is valid and
holds no alert, and "no NaN/∞ found" would read as "the run was clean": a confident
verdict on nothing. `report` and the app both ask here and say that nothing was recorded —
or, when the files that hold the tensors are there but could not be read (a bucket's server
failing, damage), that, with the first warning about them.
"""

from __future__ import annotations

import re

from reader import DebugLogdir

# a warning about one of the files that hold the tensors (`….execution: reading stopped …`)
_TENSOR_FILES = re.compile(r"\.(execution|graph_execution_traces)\b")


def nothing_recorded(logdir: DebugLogdir, executions: int | None = None,
                     traces: int | None = None) -> str | None:
    """None when the logdir holds at least one execution or graph tensor, else one line
    saying that nothing was recorded. `executions`/`traces` are a snapshot's counts
    (default: the index's own)."""
    n_exec = len(logdir.executions) if executions is None else executions
    n_traces = len(logdir.traces) if traces is None else traces
    if n_exec or n_traces:
        return None
    unread = [w for w in list(logdir.warnings) if _TENSOR_FILES.search(w)]
    if unread:  # the tensors are there, but could not be read (a server failing, damage):
        return f"no tensor could be read: {unread[0]}"  # not "the program recorded none"
    return ("nothing was recorded: the program ran no TensorFlow op while dumping was on "
            "(0 executions, 0 graph tensors), so nothing can be said about NaN/∞")
