"""Writing a run's Parquet shard: the task `tfdbg-tui index` maps over file sets on an engine
(a local process pool or Dask workers, on whichever machine). Where shards live and when one
is trusted is `reader.index.shard_store`'s; this side only writes what that side will check.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import re
import signal
import stat
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from reader.cache.snapshot import ALL_FILES
from reader.index.lazy_shard import IN_ORDER_KEY, executions_in_order
from reader.index.parquet_shards import ShardError, write
from reader.index.shard_store import (
    EXT,
    identities,
    listing,
    load,
    portable,
    shard_path,
)
from reader.index.shards import index_fileset
from reader.io.discovery import FileSet
from reader.io.remote import filesystem, is_remote, normalize, source
from reader.io.remote_errors import error_for
from reader.io.remote_listing import one_pass, seed_pass, stat_file


# ------------------------------------------------------------------ the task
@dataclass
class TaskResult:
    """What indexing one file set did: `status` "indexed", "current" (its shard was up to
    date: nothing read) or "failed" (`error` says why, one line)."""

    name: str
    status: str
    error: str = ""
    rows: int = 0
    bytes: int = 0
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


Seen = dict[str, dict[str, Any]]  # folder URL → name → RemoteStat (a listing's entries)


def seen_by_driver(path: str, filesets: list[FileSet], where: str) -> list[Seen | None]:
    """For a remote logdir: what one listing of the run's folder and one of its shard
    folder say of each file set's objects and shard, to be given to its task (`seed_pass`:
    a task never lists a folder of thousands of hosts). None for each file set of a local
    logdir."""
    if not is_remote(path):
        return [None] * len(filesets)
    out: list[Seen | None] = []
    with one_pass():
        shards = listing(where)
        for fs in filesets:
            objects = {}
            for s in ALL_FILES:
                try:
                    objects[fs.path(s).rsplit("/", 1)[1]] = stat_file(fs.path(s))
                except OSError:
                    continue
            mine = {}
            if fs.name + EXT in shards:
                try:
                    mine[fs.name + EXT] = stat_file(shard_path(where, fs))
                except OSError:
                    pass
            out.append({normalize(path): objects, normalize(where): mine})
    return out


def index_task(path: str, run_id: str, fs: FileSet, where: str, expected_source: str,
               force: bool = False, seen: Seen | None = None) -> TaskResult:
    """The task an engine runs for one file set, on whichever machine: skip it when its
    shard is current and its files unchanged; else index it (the shard function), check
    that no file changed meanwhile, and write the shard. Never raises for a problem of the
    file set: the result says it. One look at the bucket (`one_pass`): the task's
    listings answer every `stat` of it — the identities saved are the versions listed, and
    every read of an object is conditional on the version listed (`reader.io.remote`), so a
    shard never holds bytes of another version than it names."""
    with one_pass(), _ended_by_sigterm():
        for url, entries in (seen or {}).items():
            seed_pass(url, entries)
        return _index_task(path, run_id, fs, where, expected_source, force)


@contextlib.contextmanager
def _ended_by_sigterm() -> Iterator[None]:
    """In a worker process of `tfdbg-tui index` (one of a local pool: a child, running the
    task in its main thread), SIGTERM — which the command sends its workers when it is
    itself ended by one, and the kernel when it is killed (`die_with_parent`) — removes the
    shard temporary being written and ends the worker at once with status 143 (no further
    task; `reader.io.lifeline.ended_by_signal`: no exception a library could swallow). In a
    Dask worker (the task in a thread of its own) see `_dask_worker_terminated`; in the
    command's own process nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        _dask_worker_terminated()
        yield
        return
    if multiprocessing.parent_process() is None:
        yield
        return
    from reader.io.lifeline import ended_by_signal

    old = signal.signal(signal.SIGTERM, ended_by_signal)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


_TERM_SET: set[int] = set()  # the processes whose SIGTERM handler is set (a fork copies it)


def _dask_worker_terminated() -> None:
    """In a Dask worker process, SIGTERM (a batch system preempting the worker, an
    operator's `kill`) removes the shard temporaries the process is writing, then ends it as
    SIGTERM would have (the Nanny restarts it, Dask runs the task again). Why: the task runs
    in a thread, which a signal cannot unwind, and the process died at once, its
    `.NAME.parquet.tmp-…` left in the shard folder for good. The handler can only be set in
    the main thread — the worker's event loop's, asked here and waited for; a worker whose
    loop is not in its main thread (threads, not processes) keeps Dask's behaviour."""
    if os.getpid() in _TERM_SET or "distributed" not in sys.modules:
        return
    try:
        from distributed import get_worker

        loop = get_worker().loop
    except (ImportError, ValueError, AttributeError):  # not in a Dask worker
        return
    done = threading.Event()

    def install() -> None:
        try:
            if threading.current_thread() is threading.main_thread():
                previous = signal.getsignal(signal.SIGTERM)
                if previous in (signal.SIG_DFL, None):
                    signal.signal(signal.SIGTERM, _remove_then_die)
            _TERM_SET.add(os.getpid())
        finally:
            done.set()

    loop.add_callback(install)
    done.wait(60.0)  # (the loop answers at once; never block a task for ever on it)


def _remove_then_die(signum: int, _frame: object) -> None:
    from reader.io.safewrite import remove_live_temporaries

    remove_live_temporaries()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _index_task(path: str, run_id: str, fs: FileSet, where: str, expected_source: str,
                force: bool) -> TaskResult:
    from reader.index.logdir import DebugLogdir

    t0 = time.monotonic()
    src = source(path) if is_remote(path) else ""
    if src != expected_source:  # a worker pointed at another endpoint than the driver
        return TaskResult(fs.name, "failed", "this worker reads the bucket from another "
                          "endpoint or profile than the command (check its AWS_* settings)")
    target = shard_path(where, fs)
    owners = {os.geteuid()}
    if not force and fs.name + EXT in listing(where):
        try:
            load(target, fs, run_id, src, owners, exact=True)
            return TaskResult(fs.name, "current", seconds=time.monotonic() - t0)
        except ShardError:
            pass
    try:
        before = identities(fs)
        shard = index_fileset(DebugLogdir, path, run_id, fs)
        after = identities(fs)
        if any(portable(before[s]) != portable(after[s]) for s in ALL_FILES):
            return TaskResult(fs.name, "failed", "its files changed while it was indexed "
                              "(run index again once the run is written)")
        if shard.failed_read:  # a shard of what a failed read gave would pass for the files'
            return TaskResult(fs.name, "failed", f"a file could not be read whole "
                              f"({shard.failed_read}); run index again",
                              seconds=time.monotonic() - t0, warnings=list(shard.warnings))
        about = {"run": run_id, "fileset": fs.name, "prefix": fs.name, "source": src,
                 "code": _code(), "files": after, "written": time.time(),
                 IN_ORDER_KEY: executions_in_order(shard.columns)}
        _put(target, where, lambda f: write(shard, about, f))
    except (OSError, ShardError, ValueError, MemoryError) as exc:
        text = f"{_shown(exc.filename, target)}: {exc.strerror}" if isinstance(
            exc, OSError) and exc.strerror else f"{type(exc).__name__}: {exc}"
        return TaskResult(fs.name, "failed", " ".join(text.split())[:300],
                          seconds=time.monotonic() - t0)
    rows = sum(len(next(iter(shard.columns[t].values()))) for t in ("traces", "outputs"))
    return TaskResult(fs.name, "indexed", rows=rows,
                      bytes=sum(c.offset for c in shard.cursors.values()),
                      seconds=time.monotonic() - t0, warnings=list(shard.warnings))


def _shown(name: Any, target: str) -> str:
    """The file an error is about as the user knows it: our temporary (`.X.tmp-…`, a random
    name the user never saw: a rename over a folder planted at the shard's name fails with
    it) is the shard it stands for."""
    if not name:
        return target
    if re.fullmatch(r"\..+\.tmp-[0-9a-f]{16}", os.path.basename(str(name))):
        return target
    return str(name)


def _code() -> str:
    from reader.cache.location import code_stamp

    return code_stamp()


def _put(target: str, where: str, fill: Any) -> None:
    """Write a shard file whole: an object in one upload; a local file through a temporary
    of its own, renamed over the old one once complete (`reader.io.safewrite`)."""
    if is_remote(target):
        fs, inner = filesystem(target)
        try:
            f = fs.open(inner, "wb")
            try:
                fill(f)
            except BaseException:  # (a file's `with` would upload what was written so far:
                if hasattr(f, "discard"):  # a cut shard) — its upload is dropped instead
                    f.discard()
                raise
            f.close()
        except Exception as exc:
            raise error_for(target, exc) from None
        return
    from reader.io.safewrite import Replacement, open_folder

    dfd = open_folder(where, [], follow_base=False)  # (`folder`: links resolved or refused)
    try:
        st = os.fstat(dfd)
        if st.st_uid == os.geteuid() and st.st_mode & 0o022:
            os.fchmod(dfd, stat.S_IMODE(st.st_mode) & ~0o022)  # our folder: ours alone
        new = Replacement(dfd, os.path.basename(target), 0o644)
        try:
            os.fchmod(new.fd, 0o644)  # whatever the umask: a shard others can write is
            with os.fdopen(os.dup(new.fd), "wb") as f:  # not trusted (see `_trusted`)
                fill(f)
            new.commit()
        finally:
            new.discard()
    finally:
        os.close(dfd)

