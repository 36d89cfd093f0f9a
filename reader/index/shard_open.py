"""Opening a run from its Parquet shards (`tfdbg-tui index`), when they are current.

The first read of a run with several file sets (`reader.index.sharding.read_sharded`) asks
here first: the current shards found in the run's shard folder (`reader.index.shard_store`)
are merged as the shards of a direct read are (same columns, same order, the same alerts),
their graph traces read a row group at a time and merged in wall-time order as they come
(`reader.index.shard_stream`: the first alerts show before the last shard is read), so
whatever opens from shards says exactly what a direct read says. File sets without a
current shard (none written, one grown stale or forged, a host that started after the
index) are read here from the logdir, and merged with the rest (when they are most of the
run, the run is read directly instead, in parallel); a dropped shard is said in a warning.
The cursors the shards carry let `update()` read on what was appended since.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from reader.index.lazy_shard import LazyShard
from reader.index.shard_store import close
from reader.index.shard_stream import merge_streaming
from reader.index.shards import SMALL, big_bytes, index_fileset
from reader.io.discovery import FileSet

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

MAX_NAMED = 3  # dropped shards named one per warning; more are summed up in one


def open_from_shards(logdir: DebugLogdir,
                     progress: Callable[[int, int], None] | None = None) -> int | None:
    """Read `logdir` (nothing of its big files read yet) from its current shards; None when
    it has none (the caller reads it directly). Returns the bytes the shards cover plus the
    bytes read for the other file sets."""
    from reader.index.shard_store import find

    filesets = list(logdir.filesets)
    stored = find(logdir.path, logdir.run_id, filesets)
    try:
        _warn_dropped(logdir, stored.dropped, stored.where)
        if not stored.shards:
            return None
        rest = [i for i in range(len(filesets)) if i not in stored.shards]
        if len(rest) > max(1, len(stored.shards)):  # mostly unindexed: the parallel read
            return None
        return _open(logdir, filesets, stored.shards, rest, progress)
    finally:
        for lazy in stored.shards.values():
            close(lazy)
        if stored.shards:
            give_back()


def _open(logdir: DebugLogdir, filesets: list[FileSet], found: dict[int, LazyShard],
          rest: list[int], progress: Callable[[int, int], None] | None) -> int:
    logdir.read_files(SMALL)
    shards = dict(found)
    covered = sum(c.offset for s in shards.values() for c in s.shard.cursors.values())
    total = covered + big_bytes([filesets[i] for i in rest])
    # no progress told before there is something to show (the TUI shows the first at
    # once, the next ones 0.25 s apart)
    done = 0
    for i in rest:  # a few hosts without a current shard: read here, as a direct read does
        shard = index_fileset(type(logdir), logdir.path, logdir.run_id, filesets[i], None,
                              logdir.digests)
        shards[i] = LazyShard.of(shard)
        done += sum(c.offset for c in shard.cursors.values())
        if progress is not None:
            progress(done, total)
    read_here = done
    order = sorted(shards)

    def merged(share: float) -> None:
        if progress is not None:
            progress(read_here + int(share * covered), total)

    def fallback(k: int, why: str) -> LazyShard:
        """The k-th file set read here: its shard's first rows were not right."""
        i = order[k]
        close(shards[i])
        logdir.warn(f"{filesets[i].name}.parquet: shard not used: {why}; its host was read "
                    "from the logdir (`tfdbg-tui index` writes it anew)")
        shards[i] = LazyShard.of(index_fileset(type(logdir), logdir.path, logdir.run_id,
                                               filesets[i], None, logdir.digests))
        return shards[i]

    merge_streaming(logdir, [shards[i] for i in order], 2, fallback, merged)
    return sum(c.offset for s in shards.values() for c in s.shard.cursors.values())


def give_back() -> None:
    """Return to the system what the merge freed but the allocators keep: Arrow's pool (the
    row groups decoded), and glibc's heaps (the shards' footers, the windows' temporaries
    in the reading threads' arenas): ~60 MB of 12.5M records on 10 hosts, which stayed
    resident under everything the app or the report does next. A no-op without glibc."""
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except Exception:  # an allocator without it: nothing to give back
        pass
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
        except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
            pass


def _warn_dropped(logdir: DebugLogdir, dropped: list[str], where: str) -> None:
    """One warning per dropped shard, or one for all of them when there are many (every
    shard is stale after an upgrade of tfdbg-tui)."""
    if len(dropped) <= MAX_NAMED:
        for line in dropped:
            logdir.warn(f"{where}/{line}; shard not used: its host was read from the logdir "
                        "(`tfdbg-tui index` writes it anew)")
        return
    logdir.warn(f"{where}: {len(dropped)} shards not used (the first: {dropped[0]}); their "
                "hosts were read from the logdir (`tfdbg-tui index` writes them anew)")
