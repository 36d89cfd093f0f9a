"""Health kept while the logdir is read: the export's tensor counts without reading them back.

Why: an export writes every tensor row's counts (NaN, ±∞, size, …), which the index does not
keep (it keeps `bad`; `reader.index.detail` reads the rest back from the records by offset,
~0.4 µs a row). While the load indexes a batch it has each record's summary at hand: set as
the index's `health_sink`, this class is handed every batch with the summaries kept on the
way, and turns them into health columns on a pool thread while the load goes on. Reading a
million rows back cost ~0.4 s of CPU; this costs ~0.1 s, and mostly beside the load.

Only what the load indexed in this process comes here (not an index from the cache, nor the
file sets indexed by worker processes: those are read back as before). Rows numbered during
the load may be numbered again by its end (several hosts merged into one timeline): each
batch keeps where its records are, and is used only while its rows still point at them.
Counts that fit are kept as int32 (a row's health then takes ~40 bytes, not 71), and at most
`LIMIT` rows are kept: past that, the rest is read back (memory stays bounded).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from concurrent.futures import Executor, Future

import numpy as np

from reader import DebugLogdir

Health = dict[str, np.ndarray]
LIMIT = 1 << 24  # rows kept (~50 bytes each, with where their records are); the rest is read back
_NARROW = np.iinfo(np.int32).max
TABLES = ("traces", "outputs")


class Gathered:
    """The health of a block of rows from the batches that hold it (made on the pool; the
    slices are put together when asked for, on the asking thread)."""

    def __init__(self, parts: list[tuple[Future[Health], slice]]) -> None:
        self._parts = parts

    def result(self) -> Health:
        got = [(future.result(), part) for future, part in self._parts]
        if len(got) == 1:
            h, part = got[0]
            return {c: v[part] for c, v in h.items()}
        return {c: np.concatenate([h[c][part] for h, part in got]) for c in got[0][0]}

    def cancel(self) -> bool:
        return False  # shared batches: another block may still want them


class KeptHealth:
    """Set `logdir.health_sink = kept` before the load; `take` then gives a block's health."""

    def __init__(self, logdir: DebugLogdir, pool: Executor, limit: int = LIMIT) -> None:
        self.logdir, self.pool, self.limit = logdir, pool, limit
        self._kept = 0
        # per table, in row order: first row, where its records are, the health being made
        self._batches: dict[str, list[tuple[int, tuple[np.ndarray, ...], Future[Health]]]] = {
            name: [] for name in TABLES}
        self._checked: dict[tuple[str, int], bool] = {}
        self._through = dict.fromkeys(TABLES, 0)  # rows kept without a gap from the first
        self.on_traces: Callable[[], None] | None = None  # told after each batch of traces

    def __call__(self, name: str, first: int, where: tuple[np.ndarray, ...],
                 make: Callable[[], Health]) -> None:
        """The index's `health_sink` (`reader.index.ingest.HealthSink`)."""
        n = len(where[0])
        batches = self._batches.get(name)
        if batches is None or self._kept + n > self.limit:
            return  # read back when written
        if batches and first < batches[-1][0] + len(batches[-1][1][0]):
            return  # rows numbered again (cannot happen in one in-process load): read back
        self._kept += n
        where = tuple(_compact(w) for w in where)
        batches.append((first, where, self.pool.submit(_narrow, make)))
        if first == self._through[name]:
            self._through[name] = first + n
        if name == "traces" and self.on_traces is not None:
            self.on_traces()

    def kept_rows(self, name: str) -> int:
        """How many rows of table `name`, from the first on, were kept so far."""
        return self._through[name]

    def recheck(self) -> None:
        """Check the rows against their records again at the next `take` (the load went on
        since they were checked)."""
        self._checked.clear()

    def take(self, name: str, rows: np.ndarray) -> Gathered | None:
        """The health of `rows` (consecutive, ascending) of table `name` when every one of
        them was kept and still points at the record it was kept for; None otherwise."""
        if not len(rows):
            return None
        return self._span(name, int(rows[0]), int(rows[-1]) + 1)

    def _span(self, name: str, lo: int, hi: int) -> Gathered | None:
        """`take` of rows [lo, hi)."""
        batches = self._batches.get(name) or []
        if hi <= lo or not batches:
            return None
        i = bisect.bisect_right([b[0] for b in batches], lo) - 1
        parts: list[tuple[Future[Health], slice]] = []
        at = lo
        while at < hi:
            if i < 0 or i >= len(batches):
                return None
            first, where, future = batches[i]
            n = len(where[0])
            if not first <= at < first + n or not self._still(name, first, where):
                return None
            stop = min(hi, first + n)
            parts.append((future, slice(at - first, stop - first)))
            at, i = stop, i + 1
        return Gathered(parts)

    def complete(self) -> bool:
        """Was every row of both tables kept, and does each still point at its record?"""
        for name in TABLES:
            n = len(getattr(self.logdir, name))
            if n and self._span(name, 0, n) is None:
                return False
        return True

    def columns(self, name: str, rows: np.ndarray, columns: tuple[str, ...]
                ) -> dict[str, np.ndarray]:
        """`columns` of any `rows` of table `name` (after `complete` said yes)."""
        batches = self._batches[name]
        firsts = np.array([b[0] for b in batches], np.int64)
        which = np.searchsorted(firsts, rows, side="right") - 1
        order = np.argsort(which, kind="stable")  # the rows of each batch together
        bounds = np.searchsorted(which[order], np.arange(len(batches) + 1))
        out = {c: np.full(len(rows), -1, np.int64) for c in columns}
        for i in np.flatnonzero(bounds[1:] > bounds[:-1]).tolist():
            sel = order[bounds[i]:bounds[i + 1]]
            first, _, future = batches[i]
            h = future.result()
            for c in columns:
                out[c][sel] = h[c][rows[sel] - first]
        return out

    def cancel(self) -> None:
        for batches in self._batches.values():
            for _, _, future in batches:
                future.cancel()

    def _still(self, name: str, first: int, where: tuple[np.ndarray, ...]) -> bool:
        """Do rows [first, first + n) still point at the records the batch was kept for?"""
        key = (name, first)
        ok = self._checked.get(key)
        if ok is None:
            rows = np.arange(first, first + len(where[0]), dtype=np.int64)
            now = self._where(name, rows) if rows[-1] < len(getattr(self.logdir, name)) \
                else None
            ok = now is not None and all(np.array_equal(a, b)
                                         for a, b in zip(where, now, strict=True))
            self._checked[key] = ok
        return ok

    def _where(self, name: str, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Where the rows' records are now: file set and offset (and output slot)."""
        if name == "traces":
            t = self.logdir.traces
            return np.asarray(t.fileset[rows]), np.asarray(t.offset[rows])
        o, e = self.logdir.outputs, self.logdir.executions
        ex = np.asarray(o.execution[rows], np.int64)
        return (np.asarray(e.fileset[ex]), np.asarray(e.offset)[ex],
                np.asarray(o.slot[rows]))


def _compact(values: np.ndarray) -> np.ndarray:
    """`values`, as a view of one value when they are all the same (a batch's file set)."""
    if len(values) and bool((values == values[0]).all()):
        return np.broadcast_to(np.array(values[0]), values.shape)
    return values


def _narrow(make: Callable[[], Health]) -> Health:
    """`make()`, its int64 columns as int32 where every value fits (counts of tensors
    under 2**31 elements, ids: nearly always); Arrow gets int64 either way (`arrow.numbers`
    converts the block it writes)."""
    h = make()
    for c, v in h.items():
        if v.dtype == np.int64 and len(v) and int(v.max()) <= _NARROW and int(v.min()) >= -1:
            h[c] = v.astype(np.int32)
    return h
