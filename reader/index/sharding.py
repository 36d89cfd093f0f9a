"""The shard function over a run's file sets in several processes: this one and workers
(forked when this process has no other thread, else spawned: `start_method`).

Scheduling, measured on 8 hosts on 2 cores: a pool that is handed every file set up front
queues one ahead per worker, so at the end this process waits for a worker's last shard or
two while a core idles; here each worker is handed the next file set only when it finishes
one (from the front of the queue), and this process takes file sets from the back between
the moments it looks, so the two meet in the middle at most one shard apart. This process
working too means no core waits while the workers start up, and its own shards are never
copied between processes; the workers' come back through shared memory
(`reader.index.spool`).

A worker that dies (killed, out of memory) breaks its pool: this process goes on with the
file sets nobody had started, and the ones the dead pool held are read again by a new single
worker, one after another, so the one it dies on is known; that one is left out with a
one-line warning, never the other hosts. An exception in the shard function loses only its
file set, with a one-line warning.

Workers never outlive this process, and the shards' folder in /dev/shm goes with them even
when this process is killed (`reader.io.lifeline`).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TYPE_CHECKING

from reader.index.shards import (
    MAX_SHARDS,
    SMALL,
    Shard,
    big_bytes,
    index_fileset,
    merge,
    reorder,
    workers,
)
from reader.index.spool import spool_dir, unspool
from reader.io.discovery import FileSet
from reader.io.lifeline import die_with_parent, worker_context, worker_pool

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir


def start_method() -> str:
    """How workers start: forked when this process has no other thread (the `report` and
    `export` commands: a fork costs milliseconds, a spawn ~0.3 s of importing numpy and the
    reader again, a fifth of indexing 8 hosts on 2 cores); spawned otherwise (the TUI's
    reading threads: a fork copies locks another thread may hold) and off Linux."""
    if sys.platform == "linux" and threading.active_count() == 1:
        return "fork"
    return "spawn"


class Sharding:
    """Index `filesets` of `logdir` as shards in `n` processes (`run`)."""

    def __init__(self, logdir: DebugLogdir, filesets: list[FileSet], total: int,
                 progress: Callable[[int, int], None] | None) -> None:
        self.logdir, self.filesets, self.total, self.progress = logdir, filesets, total, progress
        self.shards: dict[int, Shard] = {}
        self.done = 0
        self.spool = ""
        self._lock = threading.Lock()
        self._queue: list[int] = []
        self._head = self._tail = 0
        self._running = 0
        self._idle = threading.Event()
        self._results: list[tuple[int, Future[Shard]]] = []

    def run(self, n: int) -> list[Shard]:
        import shutil

        pending = list(range(len(self.filesets)))
        procs = n - 1
        self.spool, reaper = spool_dir()  # the reaper removes it if this process is killed
        try:
            while pending:
                broken = self._round(pending, procs)
                if broken and procs == 1:  # one worker, in order: it died on the first
                    self._lose(broken[0], "its worker process died")
                    broken = broken[1:]
                pending, procs = broken, 1
        finally:
            shutil.rmtree(self.spool, ignore_errors=True)
            reaper.close()
        return [self.shards[i] for i in sorted(self.shards)]

    def _args(self, i: int) -> tuple[type[DebugLogdir], str, str, FileSet]:
        return type(self.logdir), self.logdir.path, self.logdir.run_id, self.filesets[i]

    def _got(self, i: int, shard: Shard) -> None:
        if shard.spooled is not None:
            shard.columns, shard.spooled = unspool(shard.spooled), None
        self.shards[i] = shard
        self.done += sum(c.offset for c in shard.cursors.values())
        if self.progress is not None:
            self.progress(self.done, self.total)

    def _lose(self, i: int, why: str) -> None:
        self.logdir.warn(f"{self.filesets[i].name}: not indexed: {why}")

    def _claim(self, front: bool) -> int | None:
        """The next file set nobody has taken: from the front (a worker) or the back."""
        with self._lock:
            if self._head >= self._tail:
                return None
            if front:
                self._head += 1
                return self._queue[self._head - 1]
            self._tail -= 1
            return self._queue[self._tail]

    def _round(self, pending: list[int], procs: int) -> list[int]:
        """Index `pending` file sets with `procs` workers and this process; returns those
        lost to a worker that died, in queue order."""
        # imported here: a one-host report never pays for importing them
        from concurrent.futures.process import BrokenProcessPool

        self._queue, self._head, self._tail = list(pending), 0, len(pending)
        self._results, self._running = [], 0
        self._idle.clear()
        ctx = worker_context(start_method())
        with worker_pool()(max_workers=procs, mp_context=ctx, initializer=die_with_parent,
                           initargs=(os.getpid(),)) as pool:

            def feed() -> None:
                """Hand a worker the next file set (called again as each one finishes)."""
                i = self._claim(front=True)
                with self._lock:
                    if i is None:
                        if self._running == 0:
                            self._idle.set()
                        return
                    self._running += 1
                try:
                    fut = pool.submit(index_fileset, *self._args(i), None,
                                      self.logdir.digests, self.spool)
                except Exception as exc:  # the pool broke meanwhile: read again later
                    fut = Future()
                    fut.set_exception(BrokenProcessPool(str(exc)))
                with self._lock:
                    self._results.append((i, fut))
                fut.add_done_callback(finished)

            def finished(fut: Future[Shard]) -> None:
                with self._lock:
                    self._running -= 1
                if fut.exception() is None:
                    feed()
                else:  # a broken pool takes no more work; this process does the rest
                    with self._lock:
                        if self._running == 0:
                            self._idle.set()

            for _ in range(procs):
                feed()
            while (i := self._claim(front=False)) is not None:
                self._got(i, index_fileset(*self._args(i), None, self.logdir.digests))
            self._idle.wait()
        broken: list[int] = []
        for i, fut in sorted(self._results, key=lambda r: self._queue.index(r[0])):
            try:
                self._got(i, fut.result())
            except BrokenProcessPool:
                broken.append(i)
            except Exception as exc:  # a bug in the shard function: that host only
                text = " ".join(str(exc).split())[:200]  # one line, whatever it says
                self._lose(i, f"{type(exc).__name__}: {text}")
        return broken


def read_sharded(logdir: DebugLogdir, progress: Callable[[int, int], None] | None = None
                 ) -> int:
    """The first read of a run with several file sets: shards, merged. Returns the bytes
    the big files gave (as `read_files` does). Current Parquet shards of the run
    (`tfdbg-tui index`) are used for their file sets (`reader.index.shard_open`)."""
    from reader.index.shard_open import open_from_shards

    done = open_from_shards(logdir, progress)
    if done is not None:
        return done
    filesets = list(logdir.filesets)
    few = 1 < workers(len(filesets), 1 << 62) and len(filesets) <= MAX_SHARDS
    total = big_bytes(filesets) if few else 0
    n = workers(len(filesets), total) if few else 0
    if n == 0:  # read here, file set after file set
        done = logdir.read_files(progress=progress)
        reorder(logdir)
        return done
    logdir.read_files(SMALL)
    shards = Sharding(logdir, filesets, total, progress).run(n)
    merge(logdir, shards, n)
    return sum(c.offset for s in shards for c in s.cursors.values())
