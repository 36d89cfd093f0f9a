"""The graph traces table written while the logdir is still being read.

Why: the load indexes the traces on one core (the compiled scan), while the other mostly
waits; writing a million trace rows as Parquet is ~0.3 s of work (3 s for ten million) that
would otherwise start only once the load ends. As soon as a whole batch of trace rows has been
indexed and its counts kept (`KeptHealth`), it is built and written on a thread of its own.

What is written early must be what the table would hold at the end, so it happens only when
the rows cannot move (one file set: a run of several hosts is merged into one timeline at the
end, which numbers its rows anew), and `finish` checks, once the load is done, that nothing a
written batch shows changed since: its rows still point at the same records, no kind or row
was patched (an op type learnt late), each graph id still has the name written. Anything else
discards the early part, and the table is written from its first row as before.
"""

from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from reader import DebugLogdir
from tfdbg_tui.commands.export.kept import KeptHealth
from tfdbg_tui.commands.export.out import OutDir
from tfdbg_tui.commands.export.tables import BATCH, Tables


class EarlyTraces:
    """Writes whole batches of `graph_traces` as the load keeps their counts; `finish`
    hands over the writer and the first row not written, or None (write it all anew). The
    file is `out`'s `graph_traces.<fmt>` (a temporary until the export commits it)."""

    def __init__(self, logdir: DebugLogdir, kept: KeptHealth, out: OutDir, fmt: str,
                 prepare: Any, open_writer: Any, batch: int = BATCH) -> None:
        self.logdir, self.kept, self.out, self.fmt = logdir, kept, out, fmt
        self.name = f"graph_traces.{fmt}"
        self.batch = max(1, batch)
        self._prepare, self._open = prepare, open_writer
        self._pool = ThreadPoolExecutor(1, "export-early")
        self._jobs: list[Future[None]] = []
        self._next = 0  # first row of the next batch to write
        self._writer: Any = None
        self._target: Any = None  # the Replacement written (OutDir's, for `name`)
        # per batch written: its rows, the table and kind versions, its graph ids' names
        self._written: list[tuple[int, int, tuple[int, int], dict[int, str | None]]] = []
        self.off = False  # no more batches offered
        self._dropped = False  # nor written
        self.handed_over = 0  # rows `finish` handed over as written (0: none, or dropped)
        self._tables: tuple[tuple[int, int], Tables] | None = None

    @property
    def queued_rows(self) -> int:
        """Rows whose writing was started (from the first row on)."""
        return self._next

    def offer(self) -> None:
        """After the load kept another batch of trace rows (its thread): start writing
        every whole batch of rows now kept from the first row on."""
        if self.off:
            return
        if len(self.logdir.filesets) != 1:
            self.off = True  # several hosts: merged into one timeline at the end
            return
        kept = self.kept.kept_rows("traces")
        while self._next + self.batch <= kept:
            start = self._next
            self._next += self.batch
            self._jobs.append(self._pool.submit(self._write, start, self._next))

    def _write(self, start: int, stop: int) -> None:
        if self._dropped:
            return
        logdir = self.logdir
        t = logdir.traces
        assert t.kinds is not None
        versions = (t.version, t.kinds.table.version)
        rows = np.arange(start, stop, dtype=np.int64)
        health = self.kept.take("traces", rows)
        if health is None:
            raise RuntimeError("trace rows kept, then not")  # (finish: written anew)
        tables = self._tables_now()
        batch = self._prepare(tables.pa, tables.trace_batch(rows, health.result()), self.fmt)
        if self._writer is None:
            self._target = self.out.file(self.name)
            self._writer = self._open(tables.pa, self._target.path, batch.schema, self.fmt)
        self._writer.write_batch(batch)
        gids = np.unique(np.asarray(t.graph_id[rows], np.int64)).tolist()
        self._written.append((start, stop, versions, {g: tables.graph_name(g) for g in gids}))

    def _tables_now(self) -> Tables:
        """Tables over the strings and graphs read so far (made again only when there are
        more of them: a run of a million op names is not copied for every batch)."""
        logdir = self.logdir
        seen = (len(logdir.strings), len(logdir.graphs.graphs))
        if self._tables is None or self._tables[0] != seen:
            self._tables = seen, Tables(logdir, batch=self.batch)
        return self._tables[1]

    def finish(self, tables: Tables) -> tuple[Any, int] | None:
        """Once the load is done: (the writer, the first row not written yet) when what was
        written is still what `tables` (made after the load) would write; else None, with
        the early file removed and its writer closed."""
        self.off = True  # batches offered from now on: none (those queued are written)
        self._pool.shutdown(wait=True)
        ok = self._writer is not None and all(j.exception() is None for j in self._jobs)
        if ok:
            ok = self._unchanged(tables)
        if ok:
            writer, self._writer = self._writer, None  # the caller's, from now on
            self.handed_over = self._written[-1][1]
            return writer, self.handed_over
        self.discard()
        return None

    def _unchanged(self, tables: Tables) -> bool:
        t = self.logdir.traces
        assert t.kinds is not None
        self.kept.recheck()  # rows are checked again against the records, now
        for start, stop, versions, names in self._written:
            if versions != (t.version, t.kinds.table.version):
                return False
            if self.kept.take("traces", np.arange(start, stop, dtype=np.int64)) is None:
                return False
            if any(tables.graph_name(g) != name for g, name in names.items()):
                return False
        return [(s, e) for s, e, _, _ in self._written] == [
            (s, s + self.batch) for s in range(0, len(self._written) * self.batch,
                                               self.batch)]

    def discard(self) -> None:
        """Stop, close the early writer and remove what it wrote (an error, or `finish`
        found it out of date); nothing once the export committed it."""
        self.off = self._dropped = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if self._target is not None:
            self._target.discard()
