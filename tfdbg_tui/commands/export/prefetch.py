"""Health read back while the logdir is still being read: the export's overlap with the load.

Why: an export is the report's work (reading the logdir) plus reading every tensor's
health back from its record and writing the tables. The rows of a big file arrive chunk by
chunk; once a full batch of them is indexed, its health can be read on another thread
(the compiled read releases the GIL) while the main thread goes on indexing the rest, so
little of that read is left when the load ends.

Rows numbered during the load may be numbered again by the end of it (a run of several
hosts is merged into one timeline): each prefetched batch keeps where its records are, and
is used only when its rows still point at the same records; otherwise it is read again.
At most `LIMIT` batches are held (a 12.5M-row run does not keep all its health in memory).
"""

from __future__ import annotations

from concurrent.futures import Executor, Future

import numpy as np

from reader import DebugLogdir

Health = dict[str, np.ndarray]
LIMIT = 6  # batches held at once (each ~16 MB of health columns at 262,144 rows)
TABLES = ("traces", "outputs")


class Prefetch:
    """Pass `progress` to `DebugLogdir.update`; `take` gives a batch's health if read."""

    def __init__(self, logdir: DebugLogdir, pool: Executor, batch: int) -> None:
        self.logdir, self.pool, self.batch = logdir, pool, batch
        self._next = dict.fromkeys(TABLES, 0)
        self._read: dict[tuple[str, int], tuple[tuple[np.ndarray, ...], Future[Health]]] = {}

    def progress(self, _done: int = 0, _total: int = 0) -> None:
        """After each chunk read (the main thread, the rows below the tables' lengths
        complete): start reading the health of every full batch not started yet."""
        for name in TABLES:
            table = getattr(self.logdir, name)
            while len(self._read) < LIMIT and self._next[name] + self.batch <= len(table):
                start = self._next[name]
                rows = np.arange(start, start + self.batch, dtype=np.int64)
                self._read[(name, start)] = (self._where(name, rows),
                                             self.pool.submit(table.health_columns, rows))
                self._next[name] = start + self.batch

    def take(self, name: str, rows: np.ndarray) -> Future[Health] | None:
        """The health read of `rows` of table `name` (a whole batch), if it was started and
        its rows still point at the records it read; None otherwise (read it again)."""
        if len(rows) != self.batch:
            return None
        entry = self._read.pop((name, int(rows[0])), None)
        if entry is None:
            return None
        where, future = entry
        now = self._where(name, rows)
        if not all(np.array_equal(a, b) for a, b in zip(where, now, strict=True)):
            future.cancel()
            return None
        return future

    def cancel(self) -> None:
        for _, future in self._read.values():
            future.cancel()
        self._read.clear()

    def _where(self, name: str, rows: np.ndarray) -> tuple[np.ndarray, ...]:
        """Where the rows' records are: file set and offset (and output slot)."""
        if name == "traces":
            t = self.logdir.traces
            return np.asarray(t.fileset[rows]), np.asarray(t.offset[rows])
        o, e = self.logdir.outputs, self.logdir.executions
        ex = np.asarray(o.execution[rows], np.int64)
        return (np.asarray(e.fileset[ex]), np.asarray(e.offset)[ex],
                np.asarray(o.slot[rows]))
