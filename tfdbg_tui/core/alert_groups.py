"""The Alerts pane's rows grouped by incident: a header per origin, its alerts beneath.

Why: one bad op makes hundreds of alerts downstream; listing them in time order hides that
they are one problem. Grouped, the pane reads "incident 1: Log in cross_entropy, step 2,
115 alerts downstream", then those alerts; a second origin is a second group instead of
rows interleaved with the first's.

Rows stay row ids of one `VirtualList` (never an object per row): alert positions 0…n−1
and, after them, one id per incident (n + k for incident k), laid out in display order by
numpy. Each alert belongs to the incident it is counted with (`Incidents.incident_of`: the
diagnosed alert before it in time). Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

import numpy as np

from reader.diagnosis.incidents import Incident, Incidents


@dataclass(frozen=True)
class AlertGroups:
    """Alerts `0…n-1` grouped by `incidents`; `incident_of[p]` is alert p's incident (its
    0-based place in `items`)."""

    n: int
    items: list[Incident]
    incident_of: np.ndarray

    @classmethod
    def of(cls, incidents: Incidents, n: int) -> AlertGroups | None:
        """The groups of `n` alerts, None when the incidents are not those alerts'."""
        if not incidents.items or incidents.total != n or not incidents.of_alert:
            return None
        starts = np.array(sorted(incidents.of_alert), np.int64)
        numbers = np.array([incidents.of_alert[int(s)] for s in starts], np.int64)
        at = np.searchsorted(starts, np.arange(n, dtype=np.int64), "right") - 1
        return cls(n, incidents.items, numbers[np.maximum(at, 0)] - 1)

    def is_header(self, row: int) -> bool:
        return row >= self.n

    def header(self, k: int) -> int:
        """The row id of incident k's header."""
        return self.n + k

    def incident_at(self, row: int) -> int:
        """The incident (0-based) of a header or an alert row."""
        return row - self.n if row >= self.n else int(self.incident_of[row])

    def count(self) -> int:
        """Row ids in all: the alerts and one header per incident."""
        return self.n + len(self.items)

    def rows(self, view: np.ndarray | None, collapsed: Collection[int]) -> np.ndarray:
        """Row ids in display order: each incident's header, then (unless `collapsed`) its
        alerts among `view` (sorted alert positions; None: all) in time order. With a view,
        an incident none of whose alerts is in it is left out."""
        positions = np.arange(self.n, dtype=np.int64) if view is None else np.asarray(
            view, np.int64)
        inc = self.incident_of[positions]
        order = np.argsort(inc, kind="stable")
        grouped, sorted_inc = positions[order], inc[order]
        bounds = np.searchsorted(sorted_inc, np.arange(len(self.items) + 1))
        parts: list[np.ndarray] = []
        for k in range(len(self.items)):
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
        return np.bincount(inc, minlength=len(self.items))[: len(self.items)]
