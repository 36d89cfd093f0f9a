"""`tfdbg-tui index LOGDIR [--engine local|dask[=ADDRESS]] [--out URL]`: a run's shards.

For a run of many hosts in a bucket, every open otherwise starts from the raw records. This
maps the shard function (`reader.index.shards.index_fileset`, wrapped as one task per file
set: `reader.index.shard_store.index_task`) over the run's file sets on an engine that
already schedules Python — this machine's cores (`local`, the default) or a Dask cluster
(`dask=ADDRESS`: `Client(ADDRESS)`; `dask` alone: a `LocalCluster` of one worker process
per core) — and each task writes its file set's shard as Parquet where the data is
(`LOGDIR/.tfdbg-index/`, or `--out`), so no column passes through this process. Then
`report`, the TUI, `diff`, `export` and `tfdbg_tui.open` open the run from its current
shards (docs/scale-out.md). A task that fails is one line naming its file set; the others
still land (exit status 1). Run again, only the file sets whose files changed are indexed.
"""

from __future__ import annotations

import contextlib
import errno
import math
import os
import re
import signal
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from reader.index.shard_task import TaskResult
from tfdbg_tui.commands.args import Parser, UsageError, add_remote_timeout, apply_remote_timeout
from tfdbg_tui.commands.ended import ended_by_signals
from tfdbg_tui.commands.index_pool import end_workers
from tfdbg_tui.commands.index_target import bucket_there, folder_or_nothing
from tfdbg_tui.core.sanitize import error_line, literal

PROG = "tfdbg-tui index"
USAGE = ("tfdbg-tui index LOGDIR [--engine local|dask[=ADDRESS]] [--out URL] [--run ID] [--force]"
         " [--remote-timeout SECONDS]")
HELP = f"""\
usage: {USAGE}

Index a run's file sets (one per host) as Parquet shards, in parallel on an engine:
  --engine local        this machine's cores (the default)
  --engine dask         a Dask LocalCluster on this machine (pip install 'tfdbg-tui[cluster]')
  --engine dask=ADDR    a running Dask scheduler (tcp://host:8786; dask-jobqueue on Slurm…)
  --workers N           processes of the local engine or of the LocalCluster (default: cores)
  --out URL             where the shards go (default LOGDIR/.tfdbg-index); open the run with
                        TFDBG_TUI_SHARDS=URL then
  --run ID              the run to index when the logdir holds several (default: the newest)
  --force               index every file set again, even those whose shard is current
  --remote-timeout S    how long a read from a bucket may wait for the network (default 30,
                        or $TFDBG_TUI_REMOTE_TIMEOUT; the local engine's workers too)
Connecting to a scheduler waits at most $TFDBG_TUI_DASK_TIMEOUT (default 30s).
Then report, diff, export, tfdbg-tui LOGDIR and tfdbg_tui.open read the current shards.
"""

OnResult = Callable[[TaskResult, int, int], None]
# the reader's warnings for a file it could not read (whole): `reader.io.cursors`
_READ_FAILED = re.compile(r": cannot read \(|: reading stopped at byte \d+ \(")


def _parser() -> Parser:
    p = Parser(prog=PROG, usage=USAGE, add_help=False)
    p.add_argument("logdir")
    p.add_argument("--engine", default="local")
    p.add_argument("--out", default=None)
    p.add_argument("--run", default=None)
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--force", action="store_true")
    add_remote_timeout(p)
    return p


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# ------------------------------------------------------------------ engines
def _local(jobs: list[tuple[Any, ...]], workers: int) -> Iterator[TaskResult]:
    """The tasks in a pool of `workers` processes of this machine (forked when this
    process has no other thread). A worker that dies breaks the pool: the tasks it lost are
    run again one by one, each in a pool of its own, so only the one a worker dies on is
    lost (said in its result)."""
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    from reader.index.shard_task import index_task
    from reader.index.sharding import start_method
    from reader.io.lifeline import die_with_parent, worker_context, worker_pool

    if workers < 2:
        for job in jobs:
            try:
                yield index_task(*job)
            except Exception as exc:  # a bug of ours: that file set only, in one line
                yield _failed(job, exc)
        return
    ctx = worker_context(start_method())
    pool_of = worker_pool()  # a ProcessPoolExecutor whose calls Ctrl-C never cuts in half
    broken = []
    # SIGTERM, not SIGKILL, when this process dies (a SIGKILL too): the worker removes the
    # shard temporary it was writing, then ends (`reader.io.lifeline.ended_by_signal`)
    with pool_of(max_workers=workers, mp_context=ctx, initializer=die_with_parent,
                 initargs=(os.getpid(), signal.SIGTERM)) as pool:
        try:
            futures = {pool.submit(index_task, *job): job for job in jobs}
            for fut in as_completed(futures):
                try:
                    yield fut.result()
                except BrokenProcessPool:
                    broken.append(futures[fut])
                except Exception as exc:
                    yield _failed(futures[fut], exc)
        except SystemExit:  # SIGTERM or SIGHUP (`ended_by_signals`): no task started anew,
            end_workers(pool)  # the running ones end, their temporaries removed
            raise
    for job in broken:
        with pool_of(max_workers=1, mp_context=ctx, initializer=die_with_parent,
                     initargs=(os.getpid(), signal.SIGTERM)) as pool:
            try:
                yield pool.submit(index_task, *job).result()
            except BrokenProcessPool:
                yield TaskResult(job[2].name, "failed", "its worker process died (killed, "
                                 "or out of memory)")
            except Exception as exc:
                yield _failed(job, exc)


def _failed(job: tuple[Any, ...], exc: BaseException) -> TaskResult:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())[:300]
    return TaskResult(job[2].name, "failed", text)


def _dask(jobs: list[tuple[Any, ...]], address: str | None, workers: int,
          client: Any = None) -> Iterator[TaskResult]:
    """The tasks on a Dask cluster: `client`, else `Client(address)`, else a LocalCluster
    of `workers` processes (one thread each: the shard function holds the GIL while it
    parses). A task whose worker dies is run again elsewhere by Dask (up to its
    `allowed-failures`); one that kills every worker it runs on fails alone."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError:
        raise ImportError("the dask engine needs Dask's distributed scheduler: pip install "
                          "'tfdbg-tui[cluster]' (or 'dask[distributed]')") from None
    from reader.index.shard_task import index_task
    from reader.io.quiet_workers import tracker_running

    cluster = None
    own = client is None
    if client is None and address:
        try:
            client = Client(address, timeout=_connect_timeout())
        except (OSError, TimeoutError, ValueError) as exc:  # ValueError: not an address
            raise ConnectionError(f"cannot reach the Dask scheduler at {address} "
                                  f"({' '.join(str(exc).split())[:200]})") from None
    try:
        if client is None and not address:
            # SIGINT blocked while the cluster starts: its threads and processes keep it so;
            # multiprocessing's resource tracker started first (starting it unblocks SIGINT
            # in the thread that does: the one that would start the workers)
            tracker_running()
            old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            try:
                cluster = _local_cluster(LocalCluster, workers)
                client = Client(cluster)
            except RuntimeError as exc:  # "Nanny failed to start": a worker killed meanwhile
                raise ConnectionError(f"the Dask LocalCluster could not start its workers "
                                      f"({' '.join(str(exc).split())[:200]}; a worker process "
                                      "ended while starting)") from None
            finally:  # (an interrupt meanwhile lands here, the cluster closed below)
                signal.pthread_sigmask(signal.SIG_SETMASK, old)
        token = f"{time.time_ns():x}"
        keys = [f"tfdbg-index-{job[2].name}-{token}" for job in jobs]
        futures = client.map(index_task, *zip(*jobs, strict=True), key=keys, pure=False)
        job_of = {f.key: job for f, job in zip(futures, jobs, strict=True)}
        for fut in as_completed(futures):
            try:
                yield fut.result()
            except Exception as exc:  # KilledWorker, a worker that could not unpickle …
                yield _failed(job_of[fut.key], exc)
            finally:
                fut.release()
    finally:
        if own and client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def _local_cluster(make: Any, workers: int) -> Any:
    """A LocalCluster of `workers` processes whose stderr is ours (a line per file set that
    failed). Not Dask's warning that its HTTP server moved off a port another scheduler
    holds, nor a worker's heartbeat cut by the close logged as an error; and not, on Ctrl-C
    (SIGINT to the terminal's whole process group), each worker process's "Process Dask
    Worker process (from Nanny):" and two tracebacks: made with SIGINT blocked in this
    thread (the caller's), its event loop thread keeps that mask, and so does every worker
    process it starts (a signal mask survives fork and exec; restarts too). An interrupt
    comes to the command alone, which closes the cluster and its workers with it."""
    import logging

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return make(n_workers=workers, threads_per_worker=1, processes=True,
                    dashboard_address=None, silence_logs=logging.CRITICAL)


def _quiet_cluster_sockets() -> None:
    """No "ResourceWarning: unclosed <socket…>" of Dask's servers on our stderr (with
    PYTHONWARNINGS=default, when a worker died as the LocalCluster started): not the user's
    to act on. Here and in each worker spawned (multiprocessing passes `sys.warnoptions` on
    as -W, which outranks PYTHONWARNINGS); the command's only: `index_logdir` sets none."""
    warnings.filterwarnings("ignore", category=ResourceWarning)
    if "ignore::ResourceWarning" not in sys.warnoptions:
        sys.warnoptions.append("ignore::ResourceWarning")


def _connect_timeout() -> float:
    """Seconds `$TFDBG_TUI_DASK_TIMEOUT` gives to connect to a scheduler (Dask's durations:
    "30s", "2 minutes", 45); UsageError for anything else — Dask's own parser raised a
    KeyError traceback for "abc", OverflowError for "1e400"."""
    text = os.environ.get("TFDBG_TUI_DASK_TIMEOUT", "30s")
    try:
        from dask.utils import parse_timedelta
    except ImportError:  # (the engine says what to install)
        return 30.0
    try:
        value = float(parse_timedelta(text.strip() or "30s"))
    except (KeyError, ValueError, TypeError, OverflowError):
        value = math.nan
    if not 0 < value < 1e6:
        raise UsageError(f"$TFDBG_TUI_DASK_TIMEOUT is not a duration > 0: {text!r} (e.g. 30s)")
    return value


def index_logdir(path: str, run: str | None = None, engine: str = "local",
                 out: str | None = None, force: bool = False, workers: int | None = None,
                 on_result: OnResult | None = None, client: Any = None
                 ) -> tuple[list[TaskResult], str, Any]:
    """Index the run's file sets as shards on `engine` ("local", "dask", "dask=ADDRESS", or
    a given Dask `client`); returns the results, the shard folder and the DebugLogdir listed.
    `on_result(result, done, total)` is called as each file set finishes."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ImportError("tfdbg-tui index writes Parquet: pip install 'tfdbg-tui[export]'"
                          ) from None
    from reader import DebugLogdir
    from reader.index.shard_store import folder
    from reader.index.shard_task import seen_by_driver
    from reader.io.linkguard import foreign_link
    from reader.io.remote import is_remote, source
    from reader.io.remote_listing import relist

    logdir = DebugLogdir(path, run)
    where = folder(logdir.path, out)
    planted = None if is_remote(where) else foreign_link(where)
    if planted is not None:  # shards are written there: no link another user planted
        raise OSError(errno.EPERM, planted, where)
    if is_remote(where):
        bucket_there(where)
    else:
        folder_or_nothing(where, make=client is None and not _engine(engine)[1])
    src = source(logdir.path) if is_remote(logdir.path) else ""
    filesets = list(logdir.filesets)
    seen = seen_by_driver(logdir.path, filesets, where)
    jobs = [(logdir.path, logdir.run_id, fs, where, src, force, s)
            for fs, s in zip(filesets, seen, strict=True)]
    n = max(1, min(workers or cores(), len(jobs)))
    kind, address = _engine(engine)
    if client is not None:
        results = _dask(jobs, None, n, client)
    elif kind == "local":
        results = _local(jobs, n)
    else:
        results = _dask(jobs, address or None, max(1, workers or cores()))
    got: list[TaskResult] = []
    for r in results:
        got.append(r)
        if on_result is not None:
            on_result(r, len(got), len(jobs))
    for changed in (where, logdir.path):  # the tasks wrote shards (and maybe the shard
        if is_remote(changed):  # folder into the logdir): not what this pass listed
            relist(changed)
    return got, where, logdir


def _engine(engine: str) -> tuple[str, str]:
    """`--engine`'s kind and address; anything but local, dask or dask=ADDRESS is a
    UsageError."""
    kind, _, address = engine.partition("=")
    if (kind, bool(address)) == ("local", False) or kind == "dask":
        return kind, address
    raise UsageError(f"unknown engine {engine!r} (local, dask or dask=ADDRESS)")


def _usage_error(exc: UsageError) -> int:
    """A usage error: one line, as every command says it (no usage block after it), exit 2."""
    print(error_line(PROG + ": error", f"{exc} (see {PROG} --help)"), file=sys.stderr)
    return 2


def main(argv: Sequence[str]) -> int:
    """Run the index command (below); SIGTERM and SIGHUP end it as an error does, its
    temporaries removed (`tfdbg_tui.commands.ended`), status 128 + the signal."""
    with ended_by_signals():
        return _main(argv)


def _main(argv: Sequence[str]) -> int:
    """Run the index command; 0 when every file set landed, 1 when some failed, 2 for an
    error of usage or of the logdir."""
    args = list(argv)
    if "-h" in args or "--help" in args:
        print(HELP, end="")
        return 0
    try:
        opts = _parser().parse_args(args)
        if opts.workers is not None and opts.workers < 1:
            raise UsageError("--workers must be ≥ 1")
        kind, address = _engine(opts.engine)  # (refused before the logdir is read)
        if kind == "dask" and address:
            _connect_timeout()
        if kind == "dask" and not address:
            _quiet_cluster_sockets()
    except UsageError as exc:
        return _usage_error(exc)
    apply_remote_timeout(opts.remote_timeout)
    from reader import LogdirError, ReaderError

    t0 = time.monotonic()
    bar = _Bar() if sys.stderr.isatty() else None
    try:
        with bar or contextlib.nullcontext():
            results, where, logdir = index_logdir(
                opts.logdir, opts.run, opts.engine, opts.out, opts.force, opts.workers,
                bar.update if bar is not None else None)
    except UsageError as exc:
        return _usage_error(exc)
    except (LogdirError, ReaderError, ConnectionError) as exc:
        print(error_line(PROG + ": error", exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(error_line(PROG + ": error", f"{exc.filename or opts.logdir}: "
                         f"{exc.strerror or exc}"), file=sys.stderr)
        return 2
    for r in results:  # a read that failed (the network, a server's error) is not indexed
        cut = next((w for w in r.warnings if _READ_FAILED.search(w)), None)
        if r.status == "indexed" and cut is not None:
            r.status, r.error = "failed", f"a file could not be read whole ({cut}); run " \
                "index again"
    if results and all(r.status == "indexed" and not (r.rows or r.bytes) and r.warnings
                       for r in results):  # as `report` says (exit 2): not a run indexed
        print(error_line(PROG + ": error", f"nothing readable in {opts.logdir}: "
                         f"{results[0].warnings[0]}"), file=sys.stderr)
        return 2
    failed = [r for r in results if r.status == "failed"]
    for r in failed:
        print(error_line(PROG, f"{r.name}: not indexed: {r.error}"), file=sys.stderr)
    counts = {s: sum(r.status == s for r in results) for s in ("indexed", "current")}
    print(f"{literal(logdir.path)}: {len(results)} file sets: {counts['indexed']} indexed, "
          f"{counts['current']} up to date, {len(failed)} failed -> {literal(where)} "
          f"({time.monotonic() - t0:.1f} s)")
    if not failed and results:  # the run's report, made once from its shards
        print(_stored_report(opts.logdir, logdir.run_id, where))
    if opts.out and not failed:
        print(f"open it with TFDBG_TUI_SHARDS={literal(where)} tfdbg-tui …")
    return 1 if failed else 0


def _stored_report(path: str, run: str, where: str) -> str:
    """Store the run's report beside its shards: `report` then reads it instead of merging
    every row (`tfdbg_tui.commands.report.stored`). One line saying what was done."""
    from tfdbg_tui.commands.report.stored_make import stored_report_line

    return stored_report_line(path, run, where)


class _Bar:
    """A progress bar on stderr: file sets done of all, and the last one's name."""

    def __enter__(self) -> _Bar:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress("indexing", BarColumn(), MofNCompleteColumn(),
                                 TextColumn("file sets {task.description}"), transient=True,
                                 console=Console(stderr=True))
        self.progress.__enter__()
        self.task = self.progress.add_task("", total=None)
        return self

    def update(self, r: TaskResult, done: int, total: int) -> None:
        self.progress.update(self.task, completed=done, total=total,
                             description=literal(r.name, limit=60))

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)
