"""The alerts table's parts that are not plain columns of the index: the health counts of
each alert's tensor (`AlertCounts`, gathered from reads the other tables make anyway) and the
diagnosis columns of the first alerts (from the report's entries)."""

from __future__ import annotations

from typing import Any

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.commands.export import arrow

ALERT_COUNTS = ("size", "nan", "neg_inf", "pos_inf")
Health = dict[str, np.ndarray]


class AlertCounts:
    """The alerts' health counts (`ALERT_COUNTS`), gathered from the health blocks that
    `graph_traces` and `eager_outputs` read anyway: an alert is a graph trace row or an
    eager output row. Complete for a kind once every block of its table went by."""

    def __init__(self, logdir: DebugLogdir) -> None:
        a = logdir.alerts()
        kind = np.asarray(a.kind, np.int8)
        index = np.asarray(a.index, np.int64)
        self.values = {c: np.full(len(kind), -1, np.int64) for c in ALERT_COUNTS}
        # per kind: the tensor rows of its alerts, sorted, and which alert each is
        self._rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k in (GRAPH, EAGER):
            which = np.flatnonzero(kind == k)
            rows = index[which]
            if k == EAGER:  # an eager alert is an execution and a slot: its output row
                rows = logdir.executions.first_output[rows] + np.asarray(a.slot)[which]
            order = np.argsort(rows, kind="stable")
            self._rows[k] = (rows[order], which[order])
        self._covered = {GRAPH: 0, EAGER: 0}

    def take(self, kind: int, start: int, h: Health) -> None:
        """The health `h` of tensor rows [start, start + len) of `kind`'s table."""
        rows, which = self._rows[kind]
        stop = start + len(h["bad"])
        lo, hi = np.searchsorted(rows, [start, stop])
        for c in ALERT_COUNTS:
            self.values[c][which[lo:hi]] = h[c][rows[lo:hi] - start]
        self._covered[kind] += stop - start

    def complete(self, logdir: DebugLogdir) -> bool:
        return (self._covered[GRAPH] == len(logdir.traces)
                and self._covered[EAGER] == len(logdir.outputs))


_EXTRA_INT = ("user_line", "origin_row", "fix_line")


def diagnosis_columns(pa: Any, names: tuple[str, ...], diagnosed: list[dict[str, Any]],
                      n: int) -> dict[str, Any]:
    """user_file … fix_line for the first alerts (null for the others, and where unknown)."""
    out: dict[str, list[Any]] = {c: [] for c in names}
    for entry in diagnosed[:n]:
        uf = entry.get("user_frame") or {}
        out["user_file"].append(uf.get("file"))
        out["user_line"].append(uf.get("line"))
        out["user_function"].append(uf.get("function"))
        diag = entry.get("diagnosis") or {}
        out["diagnosis"].append(diag.get("explanation") or entry.get("diagnosis_error"))
        origin = diag.get("origin") or {}
        out["origin_kind"].append(origin.get("kind"))
        out["origin_row"].append(origin.get("index"))
        out["origin_op"].append(origin.get("op_name") or origin.get("op_type"))
        fix = origin.get("fix_frame") or {}
        out["fix_file"].append(fix.get("file"))
        out["fix_line"].append(fix.get("line"))
    return {c: (arrow.optional_ints(pa, v, n) if c in _EXTRA_INT else arrow.strings(pa, v, n))
            for c, v in out.items()}
