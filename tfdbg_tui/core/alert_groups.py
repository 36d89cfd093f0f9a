"""The Alerts pane's rows grouped by incident: a header per origin, its alerts beneath.

Why: one bad op makes hundreds of alerts downstream; listing them in time order hides that
they are one problem. Grouped, the pane reads "incident 1: Log in cross_entropy, step 2,
115 alerts downstream", then those alerts; a second origin is a second group instead of
rows interleaved with the first's.

Rows stay row ids of one `VirtualList` (never an object per row): alert positions 0…n−1
and, after them, one id per incident (n + k for incident k), laid out in display order by
numpy. Each alert belongs to the incident it is counted with (`Incidents.incident_of`: the
diagnosed alert before it in time), so an incident's alerts are runs of consecutive
positions, kept as runs (`core.row_runs`: 5.5M alerts cost a few ranges, not arrays of
5.5M). Nothing here imports Textual.

A live run grows between two findings of its incidents: the groups are kept over the grown
list (`grown`, the alerts found since in a last group, "new, not yet grouped") rather than
falling back to time order whenever an alert arrives, until the incidents are found again.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from reader import Alerts
from reader.diagnosis.incidents import Incident, Incidents
from tfdbg_tui.core.row_runs import Runs, Segments


class AlertGroups:
    """Alerts `0…n-1` grouped by `incidents`; alert p's incident (its 0-based place in
    `items`) is `runs.value(p)` — kept as runs of positions (`core.row_runs`): an
    incident's alerts are consecutive but where a live run grew."""

    def __init__(self, n: int, items: list[Incident], incident_of: np.ndarray | Runs,
                 fresh: int = 0) -> None:
        self.n, self.items, self.fresh = n, items, fresh
        self.runs = incident_of if isinstance(incident_of, Runs) else Runs.of(incident_of)

    @classmethod
    def of(cls, incidents: Incidents, n: int) -> AlertGroups | None:
        """The groups of `n` alerts, None when the incidents are not those alerts'."""
        if not incidents.items or incidents.total != n or not incidents.of_alert:
            return None
        starts = np.array(sorted(incidents.of_alert), np.int64)
        numbers = np.array([incidents.of_alert[int(s)] for s in starts], np.int64)
        starts[0] = 0  # the alerts before the first diagnosed one are counted with it
        keep = np.concatenate([[True], numbers[1:] != numbers[:-1]])
        return cls(n, incidents.items, Runs(starts[keep], numbers[keep] - 1, n))

    @property
    def incident_of(self) -> np.ndarray:
        """Every alert's incident, one int each (tests; a live list's growth)."""
        return self.runs.dense()

    def grown(self, moved: np.ndarray, n: int) -> AlertGroups:
        """These groups over a grown list of `n` alerts, alert p now at `moved[p]`; the
        alerts not among them go to the "not yet grouped" group (their incident is not
        known before they are diagnosed: a new one may begin with them)."""
        inc = np.full(n, len(self.items), np.int64)
        inc[moved] = self.incident_of
        return AlertGroups(n, self.items, inc, int(np.count_nonzero(inc == len(self.items))))

    @property
    def groups(self) -> int:
        """The incidents, and the "not yet grouped" group when there are such alerts."""
        return len(self.items) + (1 if self.fresh else 0)

    def incident(self, k: int) -> Incident | None:
        """Incident k (None: the "not yet grouped" group)."""
        return self.items[k] if 0 <= k < len(self.items) else None

    def first_of(self, k: int) -> int | None:
        """The first alert (in time) of group k."""
        hits = np.flatnonzero(self.runs.values == k)
        return int(self.runs.starts[hits[0]]) if len(hits) else None

    def is_header(self, row: int) -> bool:
        return row >= self.n

    def header(self, k: int) -> int:
        """The row id of incident k's header."""
        return self.n + k

    def incident_at(self, row: int) -> int:
        """The incident (0-based) of a header or an alert row."""
        return row - self.n if row >= self.n else self.runs.value(row)

    def count(self) -> int:
        """Row ids in all: the alerts and one header per group."""
        return self.n + self.groups

    def rows(self, view: np.ndarray | None, collapsed: Collection[int]) -> np.ndarray | Segments:
        """Row ids in display order: each incident's header, then (unless `collapsed`) its
        alerts among `view` (sorted alert positions; None: all) in time order. With a view,
        an incident none of whose alerts is in it is left out. Without one, the order is
        ranges of positions (`Segments`), never an array of every alert."""
        if view is None:
            return self._all_rows(collapsed)
        positions = np.asarray(view, np.int64)
        inc = self.runs.at(positions)
        order = np.argsort(inc, kind="stable")
        grouped, sorted_inc = positions[order], inc[order]
        del order, inc
        bounds = np.searchsorted(sorted_inc, np.arange(self.groups + 1))
        parts: list[np.ndarray] = []
        for k in range(self.groups):
            a, b = int(bounds[k]), int(bounds[k + 1])
            if a == b:
                continue
            parts.append(np.array([self.n + k], np.int64))
            if k not in collapsed:
                parts.append(grouped[a:b])
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def _all_rows(self, collapsed: Collection[int]) -> Segments:
        r = self.runs
        by_group = np.argsort(r.values, kind="stable")  # a group's runs in time order
        lengths = r.lengths()
        bounds = np.searchsorted(r.values[by_group], np.arange(self.groups + 1))
        starts: list[np.ndarray] = []
        lens: list[np.ndarray] = []
        for k in range(self.groups):
            starts.append(np.array([self.n + k], np.int64))
            lens.append(np.ones(1, np.int64))
            if k not in collapsed:
                js = by_group[int(bounds[k]): int(bounds[k + 1])]
                starts.append(r.starts[js])
                lens.append(lengths[js])
        return Segments(np.concatenate(starts), np.concatenate(lens))

    def shown(self, view: np.ndarray | None) -> np.ndarray:
        """Alerts per incident among `view` (None: all)."""
        if view is None:
            return self.runs.count(self.groups)[: self.groups]
        inc = self.runs.at(np.asarray(view, np.int64))
        return np.bincount(inc, minlength=self.groups)[: self.groups]


def positions_in(old: Alerts, new: Alerts) -> np.ndarray | None:
    """Where each alert of `old` is in `new`, a list it grew into (a live run read further);
    None when one of them is not there (the run was rewritten, not grown). Alerts are
    mostly appended (one comparison of the common part); records of two files may sort
    new alerts between old ones (then every alert is looked up, by its kind/index/slot)."""
    m = len(old)
    if m > len(new):
        return None
    cols = ("kind", "index", "slot")
    if all(np.array_equal(np.asarray(getattr(old, c)), np.asarray(getattr(new, c))[:m])
           for c in cols):
        return np.arange(m, dtype=np.int64)
    keys_new = np.rec.fromarrays([np.asarray(getattr(new, c), np.int64) for c in cols])
    keys_old = np.rec.fromarrays([np.asarray(getattr(old, c), np.int64) for c in cols])
    order = np.argsort(keys_new, kind="stable")
    at = np.searchsorted(keys_new[order], keys_old)
    at = np.minimum(at, max(len(new) - 1, 0))
    if not len(new) or not np.array_equal(keys_new[order][at], keys_old):
        return None if m else np.zeros(0, np.int64)
    return order[at].astype(np.int64)
