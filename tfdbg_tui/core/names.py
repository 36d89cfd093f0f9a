"""Short names people read: devices, graphs, what kind of run this is.

Why: TensorFlow's full device names (`/job:localhost/replica:0/task:0/device:CPU:1`) do not
fit a list row, yet on a MirroredStrategy run the device is the only thing telling replica
traces apart; a TF1 program's outermost graph has no name, only a UUID; and a TF1 Session
run records no eager executions at all, which is not "nothing yet". Plain strings here; the
panes pass them through the sanitizer (`textutil.lit`).
"""

from __future__ import annotations

import re
from typing import Any
from weakref import WeakKeyDictionary

from reader import GRAPH, DebugLogdir, ReaderError

SESSION_GRAPH = "(Session graph)"
EAGER_CONTEXT = "(eager)"  # the unnamed outermost graph of a TF2 program's tf.function calls
GRAPH_MODE_TIMELINE = "graph mode (TF1 Session): no eager executions are recorded"
_DEVICE = re.compile(r"(?:^|/)device:([^/]+)$", re.IGNORECASE)
_TASK = re.compile(r"/job:([^/]+)/(?:replica:\d+/)?task:(\d+)")


def short_device(device: str | None) -> str:
    """`/job:localhost/replica:0/task:0/device:CPU:1` → `CPU:1` (the task too when not 0)."""
    if not device:
        return ""
    m = _DEVICE.search(device)
    if m is None:
        return device
    short = m.group(1)
    task = _TASK.search(device)
    if task is not None and (task.group(1) != "localhost" or task.group(2) != "0"):
        return f"{task.group(1)}:{task.group(2)}/{short}"
    return short


def trace_device(logdir: DebugLogdir, index: int) -> str:
    """The full device name of graph trace `index` ("" when not recorded)."""
    try:
        return logdir.strings[int(logdir.traces.device[index])] or ""
    except (IndexError, KeyError, ValueError):
        return ""


def graph_label(logdir: DebugLogdir, graph_id: str | None) -> str:
    """A graph's name for people: its name; for the unnamed outermost graph "(Session graph)"
    in a TF1 program (no eager execution) and "(eager)" in a TF2 one, where it is only the
    eager context tf.functions are called from; the id when nothing better is known."""
    outermost = SESSION_GRAPH if not len(logdir.executions) else EAGER_CONTEXT
    if not graph_id:
        return outermost
    g = logdir.graph(graph_id)
    if g is not None and g.name:
        return g.name
    if g is not None and not g.outer_id:
        return outermost
    return graph_id


def graph_mode_run(logdir: DebugLogdir, executions: int, traces: int) -> bool:
    """True for a run with graph traces and no eager execution (TF1 `Session.run`): a TF2
    program records every tf.function call as an execution."""
    return executions == 0 and traces > 0


def tensor_device(logdir: DebugLogdir, kind: int, index: int, slot: int = 0) -> str:
    """The full device name of a graph trace (kind GRAPH) or an eager output ("" unknown)."""
    if kind == GRAPH:
        return trace_device(logdir, index)
    try:
        ids = logdir.read_execution(index).output_device_ids
    except ReaderError:
        return ""
    if 0 <= slot < len(ids):
        return logdir.graphs.devices.get(int(ids[slot]), "")
    return ""


_HOSTS: WeakKeyDictionary[DebugLogdir, tuple[int, int]] = WeakKeyDictionary()


def num_hosts(logdir: DebugLogdir) -> int:
    """How many hosts wrote the run's file sets (counted again only when file sets were
    added: rows are drawn many times a second, and a run may have 40,000 file sets)."""
    n = len(logdir.filesets)
    seen = _HOSTS.get(logdir)
    if seen is None or seen[0] != n:
        seen = _HOSTS[logdir] = (n, len({fs.host for fs in logdir.filesets[:n]}))
    return seen[1]


def row_host(logdir: DebugLogdir, filesets: Any, i: int) -> str:
    """The host whose file set holds row `i` of a table (`filesets`: its `fileset` column),
    when the run has several hosts; "" for a one-host run (nothing to tell apart)."""
    sets = logdir.filesets
    if num_hosts(logdir) < 2:
        return ""
    fsi = int(filesets[i])
    return sets[fsi].host if 0 <= fsi < len(sets) else ""
