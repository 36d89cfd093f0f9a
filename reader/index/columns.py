"""Growable numpy columns and a string interning table.

The index holds millions of rows; a Python object per row would cost ~1 KB each (that is
TensorFlow's reader). Instead each table is a set of numpy columns that grow by doubling.
Rows are appended in batches (one chunk of a file at a time) from packed buffers, so the
per-record cost during a scan stays in C.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


class StringTable:
    """Interns strings to small ints: a repeated graph id, op name or device costs 4 bytes a row."""

    __slots__ = ("_ids", "_strings")

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._strings: list[str] = []

    def intern(self, s: str) -> int:
        i = self._ids.get(s)
        if i is None:
            i = len(self._strings)
            self._ids[s] = i
            self._strings.append(s)
        return i

    def lookup(self, s: str) -> int:
        """The id of `s`, or -1 if it was never interned."""
        return self._ids.get(s, -1)

    def __getitem__(self, i: int) -> str:
        return self._strings[i] if i >= 0 else ""

    def __len__(self) -> int:
        return len(self._strings)

    def all(self) -> list[str]:
        """Every string, by id (for the index cache)."""
        return list(self._strings)

    def adopt(self, strings: list[str]) -> None:
        """Start from these strings (an index cache's), ids in list order."""
        self._strings = list(strings)
        self._ids = {s: i for i, s in enumerate(self._strings)}


class Table:
    """A set of same-length numpy columns that grow in batches.

    `spec` maps column name → numpy dtype. Column views (`table.col("wall_time")`, or the
    typed properties of the subclasses in `reader.index.schema`) are slices of the backing
    arrays: cheap, and still valid after later growth (they keep the old buffer alive and
    simply do not see new rows).
    """

    def __init__(self, spec: dict[str, str], growth: float = 2.0) -> None:
        self._spec = {k: np.dtype(v) for k, v in spec.items()}
        self.growth = growth  # the capacity's factor when a batch does not fit
        self._cap = 0
        self._n = 0
        self.rows_added_last = 0
        # bumped whenever rows already there change (patched, or replaced by `adopt`); a
        # reader that checked a prefix of a column once (is it sorted?) knows to look again
        self.version = 0
        # its first rows known to be in nondecreasing order of `wall_time`, without NaN, by
        # the code that put them there (an open from shards merges them so): readers that
        # ask whether they are (the alerts, the diagnosis) need not read every one to know
        self.ordered_rows = 0
        self._data: dict[str, np.ndarray] = {k: np.empty(0, dt) for k, dt in self._spec.items()}

    def __len__(self) -> int:
        return self._n

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(self._spec)

    def reserve(self, rows: int) -> None:
        """Make room for `rows` rows in all, so a big read grows the columns once, not log n
        times (each doubling briefly holds the old and the new array: the peak we avoid)."""
        if rows > self._cap:
            self._grow(rows)

    def _grow(self, cap: int) -> None:
        for k in self._spec:
            grown = np.empty(cap, self._spec[k])
            grown[: self._n] = self._data[k][: self._n]
            self._data[k] = grown
        self._cap = cap

    def extend(self, batch: Mapping[str, Any]) -> None:
        """Append a batch of rows given as equal-length sequences per column."""
        arrays = {k: np.asarray(batch[k], dtype=self._spec[k]) for k in self._spec}
        m = len(next(iter(arrays.values()))) if arrays else 0
        if m == 0:
            return
        for k, a in arrays.items():
            if len(a) != m:
                raise ValueError(f"column {k} has {len(a)} rows in a batch of {m}")
        need = self._n + m
        if need > self._cap:
            self._grow(max(need, int(self._cap * self.growth), 1024))
        for k, a in arrays.items():
            self._data[k][self._n : need] = a
        self._n = need
        self.rows_added_last = m

    def col(self, name: str) -> np.ndarray:
        """A read-only view of one column's rows."""
        view = self._data[name][: self._n]
        view.flags.writeable = False
        return view

    def set(self, name: str, rows: np.ndarray, values: np.ndarray | int) -> None:
        """Patch values in place (used when late-arriving graph data resolves op types)."""
        self._data[name][rows] = values
        self.version += 1
        self.ordered_rows = 0

    def column_dtype(self, name: str) -> np.dtype:
        return self._spec[name]

    def adopt(self, columns: Mapping[str, np.ndarray], rows: int, grown: bool = False) -> None:
        """Take these arrays (exactly `rows` long, of this table's dtypes; e.g. memory-mapped
        from the index cache) as the table's rows; growing later copies them. `grown`: they
        hold the rows already there, unchanged, and more after them (a spool's columns,
        `reader.index.column_spool`), so what readers checked of those rows still holds."""
        if grown and rows < self._n:
            raise ValueError(f"{rows} rows where {self._n} were")
        data = {}
        for k, dt in self._spec.items():
            a = columns[k]
            if a.dtype != dt or a.shape != (rows,):
                raise ValueError(f"column {k}: {a.dtype}{a.shape} for {dt}({rows},)")
            data[k] = a
        added = rows - self._n
        self._data, self._n, self._cap = data, rows, rows
        if grown:
            self.rows_added_last = added
        else:
            self.version += 1
            self.ordered_rows = 0

    def nbytes(self) -> int:
        return sum(int(a.nbytes) for a in self._data.values())
