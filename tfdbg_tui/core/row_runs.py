"""Per-alert values and display orders kept as runs of consecutive rows, not per row.

Why: a run of 12.5M records can hold 5.5M alerts. The Alerts pane groups them by incident,
and an incident's alerts are consecutive positions (each alert is counted with the
diagnosed alert before it: `reader.diagnosis.incidents`), so "alert p's incident" is a few
runs, and the grouped display order a few ranges of alert positions between headers. Kept
as one int64 per alert (the incident of each, the rows in display order, the list's
position of each row, and the sorts between them) that was ~44 MB an array and ~300 MB at
the moment the groups were laid out. Nothing here imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_EMPTY = np.zeros(0, np.int64)


@dataclass(frozen=True)
class Runs:
    """Values of positions 0…n-1 as runs: position p holds `values[j]` for the last
    `starts[j] <= p` (`starts` ascending, `starts[0] == 0` when n > 0)."""

    starts: np.ndarray
    values: np.ndarray
    n: int

    @classmethod
    def of(cls, dense: np.ndarray) -> Runs:
        """The runs of a per-position array."""
        a = np.asarray(dense, np.int64)
        if not len(a):
            return cls(_EMPTY, _EMPTY, 0)
        starts = np.concatenate([[0], np.flatnonzero(a[1:] != a[:-1]) + 1]).astype(np.int64)
        return cls(starts, a[starts], len(a))

    def lengths(self) -> np.ndarray:
        return np.diff(np.append(self.starts, self.n))

    def at(self, positions: np.ndarray) -> np.ndarray:
        """The values of `positions` (each in 0…n-1)."""
        j = np.searchsorted(self.starts, np.asarray(positions, np.int64), "right") - 1
        return self.values[j]

    def value(self, p: int) -> int:
        return int(self.values[int(np.searchsorted(self.starts, p, "right")) - 1])

    def dense(self) -> np.ndarray:
        """One value per position (tests, and a list grown live: `AlertGroups.grown`)."""
        return np.repeat(self.values, self.lengths())

    def count(self, minlength: int) -> np.ndarray:
        """Positions per value (values are small non-negative ints)."""
        return np.bincount(self.values, weights=self.lengths(), minlength=minlength
                           ).astype(np.int64)


class Segments:
    """Row ids in display order as ranges: `lengths[j]` rows `starts[j]`, `starts[j]` + 1, …
    shown from position `positions[j]` on. The ranges never overlap, so a row id has one
    position, found by a binary search over the ranges sorted by their first row."""

    def __init__(self, starts: np.ndarray, lengths: np.ndarray) -> None:
        keep = np.asarray(lengths, np.int64) > 0
        self.starts = np.asarray(starts, np.int64)[keep]
        self.lengths = np.asarray(lengths, np.int64)[keep]
        self.positions = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64) \
            if len(self.lengths) else _EMPTY
        self._n = int(self.lengths.sum())
        self._by_row = np.argsort(self.starts, kind="stable")
        self._sorted_starts = self.starts[self._by_row]

    @classmethod
    def of_rows(cls, rows: np.ndarray) -> Segments:
        """The rows of an array in display order, consecutive ids joined into one range."""
        r = np.asarray(rows, np.int64)
        if not len(r):
            return cls(_EMPTY, _EMPTY)
        cut = np.flatnonzero(r[1:] != r[:-1] + 1) + 1
        first = np.concatenate([[0], cut])
        return cls(r[first], np.diff(np.append(first, len(r))))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, position: int) -> int:
        """The row id shown at `position`."""
        if not 0 <= position < self._n:
            raise IndexError("position out of range")
        j = int(np.searchsorted(self.positions, position, "right")) - 1
        return int(self.starts[j] + (position - self.positions[j]))

    def _range_below(self, row: int) -> int:
        """The range whose first row is the greatest at or below `row` (-1: none)."""
        return int(np.searchsorted(self._sorted_starts, row, "right")) - 1

    def position_of(self, row: int) -> int | None:
        """The position of row id `row`, None when it is not shown."""
        k = self._range_below(row)
        if k < 0:
            return None
        j = int(self._by_row[k])
        off = row - int(self.starts[j])
        return int(self.positions[j]) + off if off < int(self.lengths[j]) else None

    def nearest_position(self, row: int) -> int:
        """The position of the shown row with the greatest id at or below `row`, else 0."""
        k = self._range_below(row)
        if k < 0:
            return 0
        j = int(self._by_row[k])
        off = min(row - int(self.starts[j]), int(self.lengths[j]) - 1)
        return int(self.positions[j]) + off

    def to_array(self) -> np.ndarray:
        """Every row id in display order."""
        return np.repeat(self.starts - self.positions, self.lengths) + np.arange(
            self._n, dtype=np.int64)

    def tolist(self) -> list[int]:
        return [int(r) for r in self.to_array()]
