"""Row kinds: what repeats from row to row, stored once; and columns computed on access.

A training run traces the same few thousand op outputs every step: each graph-trace row's
graph, op name, op type, slot, mode, device and file set are one of a few thousand tuples. The
index interns each distinct tuple as a *kind* and stores one 4-byte kind id per row instead of
seven columns (26 bytes); the same goes for executions. A row's own column (`table.op_name`)
is then a `LazyColumn`: indexing it (`[i]`, `[a:b]`, `[rows]`) looks only those rows' kinds
up, so a slice costs what the slice costs; whole-column arithmetic materializes it once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from reader.index.columns import Table


class KindTable:
    """Distinct tuples of small ints, each interned to a kind id (its row here)."""

    def __init__(self, spec: dict[str, str]) -> None:
        self.table = Table(spec)
        self.fields = tuple(spec)
        self._ids: dict[tuple[int, ...], int] = {}

    def __len__(self) -> int:
        return len(self.table)

    def intern(self, values: tuple[int, ...]) -> int:
        """The kind id of `values` (in `fields` order), adding it if new."""
        kind = self._ids.get(values)
        if kind is None:
            kind = self._ids[values] = len(self.table)
            self.table.extend({f: [v] for f, v in zip(self.fields, values, strict=True)})
        return kind

    def col(self, name: str) -> np.ndarray:
        return self.table.col(name)

    def patch(self, name: str, kinds: np.ndarray, value: int) -> None:
        """Set one field of some kinds (an op type learnt late); kinds stay distinct."""
        self.table.set(name, kinds, value)
        self._rebuild()

    def adopt(self, columns: Mapping[str, np.ndarray], rows: int) -> None:
        """Start from saved kinds (the index cache's)."""
        self.table.adopt({k: np.array(v) for k, v in columns.items()}, rows)
        self._rebuild()

    def _rebuild(self) -> None:
        cols = [self.table.col(f).tolist() for f in self.fields]
        self._ids = {tuple(t): i for i, t in enumerate(zip(*cols, strict=True))}


class LazyColumn(NDArrayOperatorsMixin):
    """A read-only column whose values are computed for the rows asked for.

    `fetch(rows)` returns the values of those rows (an int64 index array). Indexing with an
    int, a slice or an index/boolean array fetches only those rows; numpy functions and
    operators on the whole column fetch all of it. `span(a, b)`, when given, returns rows
    a…b-1 without an index array (8 bytes a row: a slice of ten million rows, or the whole
    column, asked an 80 MB `arange` first).
    """

    def __init__(self, n: int, dtype: np.dtype, fetch: Callable[[np.ndarray], np.ndarray],
                 span: Callable[[int, int], np.ndarray] | None = None) -> None:
        self._n = n
        self.dtype = np.dtype(dtype)
        self._fetch = fetch
        self._span = span

    def __len__(self) -> int:
        return self._n

    @property
    def shape(self) -> tuple[int]:
        return (self._n,)

    @property
    def size(self) -> int:
        return self._n

    def _rows(self, key: Any) -> np.ndarray:
        if isinstance(key, slice):
            return np.arange(*key.indices(self._n), dtype=np.int64)
        rows = np.asarray(key)
        if rows.dtype == bool:
            if rows.shape != (self._n,):
                raise IndexError("boolean index of the wrong length")
            return np.flatnonzero(rows)
        rows = rows.astype(np.int64, copy=False)
        rows = np.where(rows < 0, rows + self._n, rows)
        if rows.size and (int(rows.min()) < 0 or int(rows.max()) >= self._n):
            raise IndexError("row out of range")
        return rows

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, (int, np.integer)):
            i = int(key) + (self._n if int(key) < 0 else 0)
            if not 0 <= i < self._n:
                raise IndexError("row out of range")
            return self._fetch(np.array([i], dtype=np.int64))[0]
        if isinstance(key, slice) and self._span is not None:
            a, b, step = key.indices(self._n)
            if step == 1:
                out = self._span(a, max(a, b))
                out.flags.writeable = False
                return out
        rows = self._rows(key)
        out = self._fetch(rows.reshape(-1)).reshape(rows.shape)
        out.flags.writeable = False
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = (self._span(0, self._n) if self._span is not None
               else self._fetch(np.arange(self._n, dtype=np.int64)))
        return out if dtype is None else out.astype(dtype)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        inputs = tuple(np.asarray(x) if isinstance(x, LazyColumn) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __iter__(self) -> Any:
        return iter(np.asarray(self))

    def astype(self, dtype: Any) -> np.ndarray:
        return np.asarray(self).astype(dtype)

    def tolist(self) -> list[Any]:
        return np.asarray(self).tolist()

    def __getattr__(self, name: str) -> Any:
        """Any other ndarray method (`max`, `sum`, `nonzero`, ...) on the whole column."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(np.asarray(self), name)

    def __repr__(self) -> str:
        return f"LazyColumn(n={self._n}, dtype={self.dtype})"


def kind_column(kinds: KindTable, field: str, kind_ids: Callable[[], np.ndarray]) -> LazyColumn:
    """The per-row column of one kind field: `kinds.field[kind_ids[rows]]`."""
    ids = kind_ids()
    values = kinds.col(field)
    return LazyColumn(len(ids), values.dtype, lambda rows: values[ids[rows]],
                      lambda a, b: values[ids[a:b]])
