"""One part of one host's shard (its traces, executions or outputs) read a row group at a
time, and the windows of wall time the merge takes from all of them (`shard_stream`).

Apart from the merge because this is the reading side: a batch decoded by a thread ahead
of the merge (Arrow decodes without the GIL), rows held until taken, a part that fails
stopped with its reason — and the rule that makes the merge exact: a window ends at the
earliest time any part still being read has reached, so no later batch can hold an earlier
row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future

import numpy as np

from reader.index.lazy_shard import LazyShard
from reader.index.parquet_shards import ShardError

Columns = dict[str, np.ndarray]


class Rows:
    """One part's rows of one host, read a batch at a time: those read and not yet taken."""

    def __init__(self, lazy: LazyShard, part: str, fix: Callable[[Columns], Columns]) -> None:
        self.batches = lazy.batches(part)
        self.fix = fix
        self.buf: Columns = {}
        self.base = 0  # the shard's row number of buf's first row
        self.ended = False
        self.error = ""
        # the thread that reads (decodes) the next batch while this one is merged
        self.ahead: Executor | None = None
        self._next: Future[Columns | None] | None = None

    def __len__(self) -> int:
        return len(next(iter(self.buf.values()))) if self.buf else 0

    def pull(self) -> None:
        """Read the next batch onto the rows not yet taken (and start reading the one
        after it, when there is a thread to read ahead)."""
        try:
            ahead, self._next = self._next, None
            # a batch the thread has not started on (it reads other hosts' first) is
            # read here rather than waited for
            batch = (next(self.batches, None) if ahead is None or ahead.cancel()
                     else ahead.result())
            fixed = self.fix(batch) if batch is not None else None
        except ShardError as exc:
            fixed, self.error = None, str(exc)
        if fixed is None:
            self.ended = True
            return
        if self.ahead is not None:  # Arrow decodes without the GIL: beside the merge
            self._next = self.ahead.submit(next, self.batches, None)
        self.buf = ({c: np.concatenate([self.buf[c], fixed[c]]) for c in fixed}
                    if len(self) else fixed)

    def last(self) -> float:
        """How far the rows read reach (NaN times, last, reach past everything)."""
        t = float(self.buf["wall_time"][-1])
        return np.inf if np.isnan(t) else t

    def before(self, until: float) -> int:
        """How many of the rows not yet taken are earlier than `until` (NaN: all)."""
        if np.isnan(until) or not len(self):
            return len(self)
        return int(np.searchsorted(self.buf["wall_time"], until, "left"))

    def take(self, n: int) -> Columns:
        rows = {c: a[:n] for c, a in self.buf.items()}
        self.buf = {c: a[n:] for c, a in self.buf.items()}
        self.base += n
        return rows

    def stop(self, why: str) -> None:
        self.ended, self.error, self.buf = True, why, {}


def windows(streams: list[Rows]) -> Iterator[float]:
    """Window after window, the time before which every stream's rows have all been read
    (the rows to take next); NaN (take everything left) once every one is read."""
    while True:
        for r in streams:
            while not r.ended and not len(r):
                r.pull()
        live = [r for r in streams if not r.ended]
        if not live:
            if any(len(r) for r in streams):
                yield np.nan
            return
        until = min(r.last() for r in live)
        if any(r.before(until) for r in streams):
            yield until
        else:  # every stream read so far stops at `until` or later: read on where it stops
            for r in live:
                if r.last() <= until:
                    r.pull()
