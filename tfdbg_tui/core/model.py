"""Queries the panes need over the reader's numpy columns — no Textual here.

Why a module of its own: these are the parts of the UI that touch millions of rows (filters,
"latest trace of this tensor before row i", "first trace of this tf.function call"), so they
are vectorised, bounded, and testable without a terminal. The reader stays UI-agnostic; the
panes stay thin.
"""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from reader import GRAPH, Alerts, DebugLogdir, ReaderError
from reader.diagnosis import fed_by
from reader.index.graphs import Op

if TYPE_CHECKING:
    from tfdbg_tui.core.journey import Journey

_FIRST_WINDOW = 4096
_MAX_WINDOW = 1 << 20


@dataclass(frozen=True)
class Snapshot:
    """What the index holds at one moment; the UI only looks at rows below these counts.

    The indexing thread appends to the reader's columns while the UI draws. Rows below a
    count published here never change (appends only), so reading them needs no lock.
    """

    executions: int
    traces: int
    outputs: int
    alerts: Alerts
    indexing: bool
    done_bytes: int = 0
    total_bytes: int = 0


def empty_alerts() -> Alerts:
    """An `Alerts` with no rows (before the first snapshot)."""
    z = np.zeros(0, dtype=np.int64)
    return Alerts(z.astype(np.int8), z, z.astype(np.int32), z.astype(np.float64))


def compile_filter(pattern: str) -> re.Pattern[str] | None:
    """The user's `/` filter as a case-insensitive regex; None for an empty pattern.

    Raises `re.error` for a bad expression (the caller shows it in one line).
    """
    if not pattern:
        return None
    return re.compile(pattern, re.IGNORECASE)


class StringMatcher:
    """Which interned strings match a regex, cached and extended as new strings arrive.

    Op names repeat across millions of rows but there are only thousands of distinct ones,
    so a filter tests each distinct string once and then compares integer ids with numpy.
    """

    def __init__(self, logdir: DebugLogdir, regex: re.Pattern[str]) -> None:
        self.logdir = logdir
        self.regex = regex
        self._checked = 0
        self._ids: list[int] = []
        self._array = np.zeros(0, dtype=np.int32)

    def ids(self) -> np.ndarray:
        strings = self.logdir.strings
        n = len(strings)
        if n > self._checked:
            search = self.regex.search
            for i in range(self._checked, n):
                if search(strings[i]):
                    self._ids.append(i)
            self._checked = n
            self._array = np.asarray(self._ids, dtype=np.int32)
        return self._array


def trace_rows(logdir: DebugLogdir, start: int, stop: int, matcher: StringMatcher | None,
               only_bad: bool) -> np.ndarray:
    """Indices in [start, stop) of graph traces passing the filter (op name or type)."""
    t = logdir.traces
    keep = np.ones(stop - start, dtype=bool)
    if only_bad:
        keep &= t.bad[start:stop] == 1
    if matcher is not None:
        ids = matcher.ids()
        keep &= (np.isin(t.op_name[start:stop], ids)
                 | np.isin(t.op_type[start:stop], ids))
    return np.flatnonzero(keep) + start


def execution_bad(logdir: DebugLogdir, n_exec: int, n_outputs: int) -> np.ndarray:
    """Per execution: True when any of its outputs holds NaN/∞."""
    return extend_execution_bad(logdir, np.zeros(0, dtype=bool), 0, n_exec, n_outputs)[0]


def extend_execution_bad(logdir: DebugLogdir, bad: np.ndarray, from_output: int, n_exec: int,
                         n_outputs: int) -> tuple[np.ndarray, int]:
    """`bad` (the flags `execution_bad` gives for the outputs below `from_output`) brought up
    to `n_exec` executions and `n_outputs` outputs, looking only at the outputs added since:
    the Timeline does this on every progress snapshot of a run with millions of outputs.
    Returns the flags and the output row to continue from next time (an output whose
    execution is not counted yet is looked at again then)."""
    out = np.zeros(n_exec, dtype=bool)
    keep = min(len(bad), n_exec)
    out[:keep] = bad[:keep]
    o = logdir.outputs
    rows = np.flatnonzero(o.bad[from_output:n_outputs] == 1) + from_output
    ex = o.execution[rows]
    later = ex >= n_exec
    out[ex[~later]] = True
    return out, int(rows[later][0]) if later.any() else max(from_output, n_outputs)


def execution_rows(logdir: DebugLogdir, start: int, stop: int, n_outputs: int,
                   matcher: StringMatcher | None, only_bad: bool) -> np.ndarray:
    """Indices in [start, stop) of executions passing the filter (op type / function name)."""
    e = logdir.executions
    keep = np.ones(stop - start, dtype=bool)
    if only_bad:
        keep &= execution_bad(logdir, stop, n_outputs)[start:stop]
    if matcher is not None:
        keep &= np.isin(e.op_type[start:stop], matcher.ids())
    return np.flatnonzero(keep) + start


def find_trace(logdir: DebugLogdir, n: int, graph_id: str, op_name: str, slot: int | None,
               before: int | None = None, after: int | None = None) -> int | None:
    """The latest trace of graph_id/op_name[:slot] before `before`, or the first after `after`.

    The traces of one tensor are those of a few trace kinds (one per device and mode), so
    the kinds are found first, among thousands: a tensor never traced (a function argument,
    a constant) costs nothing, where scanning 10 million rows for it held the screen for a
    second on every follow. The rows are then searched outward in growing windows, on the
    kind column alone, so the common case (the input a few rows up) costs microseconds.
    """
    sid_g = logdir.strings.lookup(graph_id)
    sid_n = logdir.strings.lookup(op_name)
    t = logdir.traces
    if sid_g < 0 or sid_n < 0 or t.kinds is None:
        return None
    wanted = t.kinds_of_op(sid_g, sid_n, slot)
    if not len(wanted):
        return None
    rows = t.kind_ids

    def hits(lo: int, hi: int) -> np.ndarray:
        part = rows[lo:hi]
        return np.flatnonzero(part == wanted[0] if len(wanted) == 1 else np.isin(part, wanted))

    window = _FIRST_WINDOW
    if before is not None:
        hi = min(before, n)
        while hi > 0:
            lo = max(0, hi - window)
            found = hits(lo, hi)
            if len(found):
                return lo + int(found[-1])
            hi = lo
            window = min(window * 4, _MAX_WINDOW)
        return None
    lo = 0 if after is None else after + 1
    while lo < n:
        hi = min(n, lo + window)
        found = hits(lo, hi)
        if len(found):
            return lo + int(found[0])
        lo = hi
        window = min(window * 4, _MAX_WINDOW)
    return None


@dataclass(frozen=True)
class OpLink:
    """One input or consumer of the op of a selected trace, resolved to a trace if possible.

    A function argument (a Placeholder inside a tf.function) is never traced: it is linked
    only when the diagnosis walk resolves it exactly (`argument`). Otherwise it has no trace
    — a guess by dtype and size once showed `Softmax:0` for `labels:0` as if it were fact —
    and `pending` says whether the walk simply has not run yet (during the first read)."""

    label: str  # "probs:0" or "mul (input 1)"
    op: Op | None
    trace: int | None
    argument: bool = False  # a function argument resolved exactly to the caller's tensor
    pending: bool = False  # a function argument not resolved yet (asked again once indexed)


def _exact_feeders(logdir: DebugLogdir, trace: int) -> list[int | None]:
    """The diagnosis walk's answer for which traces fed `trace`'s op (empty if it cannot)."""
    try:
        return fed_by(logdir, trace)
    except ReaderError:
        return []


def input_links(logdir: DebugLogdir, n: int, trace: int, op: Op, *,
                exact: bool = True) -> list[OpLink]:
    """The op's inputs, each with its latest trace before `trace`.

    A function argument (a Placeholder TensorFlow never traces) is resolved to the caller's
    tensor by the diagnosis walk, or left without a trace. `exact=False` skips the walk (the
    UI thread while the first read holds the reader: the walk would wait for it) and marks
    such inputs `pending`; the pane asks again once the logdir is indexed.
    """
    out = []
    fed_list: list[int | None] | None = None
    for i, (name, slot) in enumerate(op.inputs):
        src = logdir.graphs.op(op.graph_id, name)
        hit = find_trace(logdir, n, op.graph_id, name, slot, before=trace)
        argument = pending = False
        if hit is None and src is not None and src.op_type == "Placeholder":
            if fed_list is None:
                fed_list = _exact_feeders(logdir, trace) if exact else []
            fed = fed_list[i] if i < len(fed_list) else None
            if fed is not None and fed < n:
                hit, argument = fed, True
            else:
                pending = not exact
        out.append(OpLink(f"{name}:{slot}", src, hit, argument, pending))
    return out


def consumer_links(logdir: DebugLogdir, n: int, trace: int, op: Op) -> list[OpLink]:
    """The op's consumers, each with its first trace after `trace`."""
    out = []
    for name, index, slot in op.consumers:
        dst = logdir.graphs.op(op.graph_id, name)
        hit = find_trace(logdir, n, op.graph_id, name, None, after=trace)
        out.append(OpLink(f"{name} (input {index} ← :{slot})", dst, hit))
    return out


def graph_subtree(logdir: DebugLogdir, graph_id: str) -> set[str]:
    """`graph_id` and every graph nested in it (while bodies, called functions...)."""
    seen = {graph_id}
    stack = [graph_id]
    while stack:
        g = logdir.graph(stack.pop())
        if g is None:
            continue
        for inner in g.inner_ids:
            if inner not in seen:
                seen.add(inner)
                stack.append(inner)
    return seen


def first_trace_of_call(logdir: DebugLogdir, n_traces: int, n_exec: int, index: int) -> int | None:
    """The first graph trace the tf.function call `index` produced, or None.

    An execution record is written when the call returns, so the call's traces are those
    after the previous execution's wall time, in the called graph or graphs nested in it.
    """
    e = logdir.executions
    gid = int(e.graph_id[index])
    if gid < 0:
        return None
    graphs = graph_subtree(logdir, logdir.strings[gid])
    sids = np.asarray([logdir.strings.lookup(g) for g in graphs], dtype=np.int32)
    t = logdir.traces
    walls = t.wall_time[:n_traces]
    start = 0
    if index > 0:
        prev = float(e.wall_time[index - 1])
        start = int(np.searchsorted(walls, prev, side="right")) if _sorted(walls) else 0
    lo = start
    window = _FIRST_WINDOW
    while lo < n_traces:
        hi = min(n_traces, lo + window)
        hits = np.flatnonzero(np.isin(t.graph_id[lo:hi], sids))
        if len(hits):
            return lo + int(hits[0])
        lo = hi
        window = min(window * 4, _MAX_WINDOW)
    return None


def _sorted(a: np.ndarray) -> bool:
    return len(a) < 2 or bool(np.all(a[1:] >= a[:-1]))


def alert_position(alerts: Alerts, kind: int, index: int, *, hint: int | None = None,
                   wall: float | None = None) -> int | None:
    """Where alert (kind, index) sits in the sorted alert list.

    Cheap when the caller knows where it was (`hint`: checked first) or its wall time
    (`wall`: the list is in wall-time order, so only the alerts of that time are looked
    at): this runs on every progress snapshot while millions of alerts are indexed, and
    comparing every alert's index costs a fraction of a second there. Without either, or
    if not found that way, every alert is compared."""
    n = len(alerts)
    if hint is not None and 0 <= hint < n and int(alerts.kind[hint]) == kind \
            and int(alerts.index[hint]) == index:
        return hint
    if wall is not None and not math.isnan(wall):
        walls = alerts.wall_time
        lo = bisect.bisect_left(walls, wall)
        hi = bisect.bisect_right(walls, wall, lo)
        hits = np.flatnonzero((np.asarray(alerts.kind[lo:hi]) == kind)
                              & (np.asarray(alerts.index[lo:hi]) == index))
        if len(hits):
            return lo + int(hits[0])
    hits = np.flatnonzero((alerts.kind == kind) & (alerts.index == index))
    return int(hits[0]) if len(hits) else None


def alert_summary(logdir: DebugLogdir, alerts: Alerts, n_traces: int) -> str:
    """One line: how many NaN/∞ events, of which graph/eager, and the top op types.

    From the alerts' count per trace kind when the reader kept one (a few thousand kinds:
    this line is redrawn on every progress snapshot while millions of alerts are indexed),
    else from every alert."""
    n = len(alerts)
    if n == 0:
        return "no NaN/∞ found"
    op_types = logdir.traces.kind_op_types()
    per_kind = alerts.graph_kinds
    if per_kind is not None and op_types is not None:
        kinds = np.flatnonzero(per_kind)
        kinds = kinds[kinds < len(op_types)]
        n_graph = int(per_kind.sum())
        ids, inverse = np.unique(op_types[kinds], return_inverse=True)
        counts = np.bincount(inverse, weights=per_kind[kinds], minlength=len(ids))
    else:
        graph = alerts.index[alerts.kind == GRAPH]
        n_graph = len(graph)
        ids, counts = np.unique(logdir.traces.op_type[graph[graph < len(logdir.traces)]],
                                return_counts=True)
    parts = [f"{n:,} NaN/∞ events"]
    if n_traces:
        parts.append(f"{n_graph:,} of {n_traces:,} graph tensors")
    if n - n_graph:
        parts.append(f"{n - n_graph:,} eager")
    if len(ids):
        order = np.argsort(-counts, kind="stable")[:3]
        parts.append(", ".join(f"{logdir.strings[int(ids[k])] or '?'}×{int(counts[k]):,}"
                               for k in order))
    return " · ".join(parts)


class AppState:
    """What every pane reads: the logdir and the latest published `Snapshot`.

    Mutable on purpose — the app replaces `snapshot` when the indexing thread publishes one,
    and panes read it when they redraw.
    """

    def __init__(self, logdir: DebugLogdir) -> None:
        self.logdir = logdir
        self.snapshot = Snapshot(0, 0, 0, empty_alerts(), indexing=True)
        # steps and incidents of the alerts (`core.journey.Journey`), once the read is done
        self.journey: Journey | None = None
