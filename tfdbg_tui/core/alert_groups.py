"""The Alerts pane's rows grouped by incident: a header per origin, its alerts beneath.

Why: one bad op makes hundreds of alerts downstream; listing them in time order hides that
they are one problem. Grouped, the pane reads "incident 1: Log in cross_entropy, step 2,
115 alerts downstream", then those alerts; a second origin is a second group instead of
rows interleaved with the first's.

Rows stay row ids of one `VirtualList` (never an object per row): alert positions 0…n−1
and, after them, one id per incident (n + k for incident k), laid out in display order by
numpy. Each alert belongs to the incident it is counted with (`Incidents.incident_of`: the
diagnosed alert before it in time). Nothing here imports Textual.

A live run grows between two findings of its incidents: the groups are kept over the grown
list (`grown`, the alerts found since in a last group, "new, not yet grouped") rather than
falling back to time order whenever an alert arrives, until the incidents are found again.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from reader import Alerts
from reader.diagnosis.incidents import Incident, Incidents


@dataclass(frozen=True)
class AlertGroups:
    """Alerts `0…n-1` grouped by `incidents`; `incident_of[p]` is alert p's incident (its
    0-based place in `items`)."""

    n: int
    items: list[Incident]
    incident_of: np.ndarray
    fresh: int = 0  # alerts found after the incidents (group len(items), "not yet grouped")

    @classmethod
    def of(cls, incidents: Incidents, n: int) -> AlertGroups | None:
        """The groups of `n` alerts, None when the incidents are not those alerts'."""
        if not incidents.items or incidents.total != n or not incidents.of_alert:
            return None
        starts = np.array(sorted(incidents.of_alert), np.int64)
        numbers = np.array([incidents.of_alert[int(s)] for s in starts], np.int64)
        at = np.searchsorted(starts, np.arange(n, dtype=np.int64), "right") - 1
        return cls(n, incidents.items, numbers[np.maximum(at, 0)] - 1)

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
        hits = np.flatnonzero(self.incident_of == k)
        return int(hits[0]) if len(hits) else None

    def is_header(self, row: int) -> bool:
        return row >= self.n

    def header(self, k: int) -> int:
        """The row id of incident k's header."""
        return self.n + k

    def incident_at(self, row: int) -> int:
        """The incident (0-based) of a header or an alert row."""
        return row - self.n if row >= self.n else int(self.incident_of[row])

    def count(self) -> int:
        """Row ids in all: the alerts and one header per group."""
        return self.n + self.groups

    def rows(self, view: np.ndarray | None, collapsed: Collection[int]) -> np.ndarray:
        """Row ids in display order: each incident's header, then (unless `collapsed`) its
        alerts among `view` (sorted alert positions; None: all) in time order. With a view,
        an incident none of whose alerts is in it is left out."""
        positions = np.arange(self.n, dtype=np.int64) if view is None else np.asarray(
            view, np.int64)
        inc = self.incident_of[positions]
        order = np.argsort(inc, kind="stable")
        grouped, sorted_inc = positions[order], inc[order]
        bounds = np.searchsorted(sorted_inc, np.arange(self.groups + 1))
        parts: list[np.ndarray] = []
        for k in range(self.groups):
            a, b = int(bounds[k]), int(bounds[k + 1])
            if a == b and view is not None:
                continue
            parts.append(np.array([self.n + k], np.int64))
            if k not in collapsed:
                parts.append(grouped[a:b])
        return np.concatenate(parts) if parts else np.zeros(0, np.int64)

    def shown(self, view: np.ndarray | None) -> np.ndarray:
        """Alerts per incident among `view` (None: all)."""
        inc = self.incident_of if view is None else self.incident_of[np.asarray(view,
                                                                                np.int64)]
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
