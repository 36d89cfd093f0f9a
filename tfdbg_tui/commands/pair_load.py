"""Loading the two runs of a `diff`: side by side, as fast as one `report` allows.

Two index builds in one process share the GIL: the hot loops release it, but the Python
steps between them (file sets, batches, the string table) take turns, so two big runs read
on two threads took ~1.35× one. When both runs are big local logdirs, the index cache is
usable and this process has no other thread, run B is indexed in a forked child instead:
it builds B's index and saves it in the index cache, while this process builds A's; then B
is reopened from the cache (a few ms). If the child fails for any reason (killed, no space
for the cache), B is read here as before — the child only ever saves time, never changes
what is read; its own errors are reported by the read here.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from reader import DebugLogdir, ReaderError
from reader.cache.location import cache_dir_problem, cache_root
from reader.cache.snapshot import min_bytes
from reader.io.lifeline import die_with_parent

# below this many bytes of event files a run is read in well under 0.1 s: a fork would
# cost more than it saves (and the cache may not even keep so small an index)
FORK_MIN_BYTES = 32 << 20


def _load(path: str, run: str | None) -> DebugLogdir:
    # as `report`: big logdirs reopen fast; with the rows' digests, equal rows compare
    # without their records (`checks.same_summaries`)
    logdir = DebugLogdir(path, run, cache=True, digests=True)
    logdir.update()
    return logdir


def _event_bytes(path: str) -> int:
    """Bytes of the tfdbg event files directly in `path` (0 when it is no local folder)."""
    total = 0
    try:
        with os.scandir(path) as it:
            for entry in it:
                if entry.name.startswith("tfdbg_events.") and entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
    except OSError:
        return 0
    return total


def _cache_writable() -> bool:
    if cache_dir_problem() is not None:
        return False
    probe = str(cache_root())
    while not os.path.exists(probe):  # made on the first save: its nearest existing parent
        parent = os.path.dirname(probe)
        if parent == probe:
            return False
        probe = parent
    return os.path.isdir(probe) and os.access(probe, os.W_OK | os.X_OK)


def fork_worth(a: str, b: str) -> bool:
    """Index B in a forked child? Only on Linux, from a process with no other thread (a fork
    copies locks another thread may hold), for two different big local runs, with an index
    cache that can take B's index."""
    if sys.platform != "linux" or threading.active_count() != 1:
        return False
    if "://" in a or "://" in b:
        return False
    try:
        if os.path.realpath(a) == os.path.realpath(b):
            return False
    except (OSError, ValueError):
        return False
    least = max(FORK_MIN_BYTES, min_bytes())
    return _event_bytes(a) >= least and _event_bytes(b) >= least and _cache_writable()


def _index_in_child(path: str, run: str | None) -> int:
    """Fork a child that indexes `path` into the index cache; its pid (0: not started)."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return 0
    if pid:
        return pid
    code = 1
    try:
        die_with_parent(parent)  # never left running if `diff` is killed
        _load(path, run)
        code = 0
    except BaseException:
        pass
    finally:
        os._exit(code)  # no atexit handlers, no flushing of the parent's buffers
    return 0  # not reached


def _wait(pid: int) -> None:
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _read_both(a: str, b: str, run_a: str | None, run_b: str | None
               ) -> tuple[list[DebugLogdir | None], list[str]]:
    errors: list[str] = []
    loaded: list[DebugLogdir | None] = [None, None]

    def keep(i: int, side: str, path: str, load: Callable[[], DebugLogdir]) -> None:
        try:
            loaded[i] = load()
        except ReaderError as exc:
            errors.append(f"{side}: {exc}")
        except OSError as exc:
            errors.append(f"{side}: {path}: {exc.strerror}")

    fork = fork_worth(a, b)
    if fork:  # two big runs: both processes churn through row-sized temporaries
        reuse_freed_memory()
    pid = _index_in_child(b, run_b) if fork else 0
    if pid:
        try:
            keep(0, "A", a, lambda: _load(a, run_a))
        finally:
            _wait(pid)
        keep(1, "B", b, lambda: _load(b, run_b))  # from the cache the child just saved
        return loaded, errors
    with ThreadPoolExecutor(2) as pool:
        fa, fb = pool.submit(_load, a, run_a), pool.submit(_load, b, run_b)
        keep(0, "A", a, fa.result)
        keep(1, "B", b, fb.result)
    return loaded, errors


def reuse_freed_memory() -> None:
    """Let glibc's malloc keep freed blocks for the next allocation instead of handing them
    back to the system. A diff of two big runs makes and drops hundreds of row-sized numpy
    temporaries (indexing both runs, then pairing and judging every row); by default each
    one over 128 KiB is a fresh mapping whose every page faults on first touch — a fifth of
    the diff's page faults, and on a busy machine a tenth of its CPU. Only for big runs
    (see `fork_worth`) and a one-shot command: the process ends soon, so memory it keeps is
    no loss. Elsewhere (not glibc, no ctypes) nothing changes."""
    if sys.platform != "linux":
        return
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (ImportError, OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD: blocks under 32 MiB come from the heap
    mallopt(-1, 1 << 30)  # M_TRIM_THRESHOLD: freed heap memory is kept for reuse


def load_pair(a: str, b: str, run_a: str | None, run_b: str | None
              ) -> tuple[DebugLogdir, DebugLogdir]:
    """Both logdirs, read side by side; a ReaderError naming the side when either fails or
    holds no tensors."""
    loaded, errors = _read_both(a, b, run_a, run_b)
    if errors:
        raise ReaderError(errors[0])
    la, lb = loaded
    assert la is not None and lb is not None
    for side, path, logdir in (("A", a, la), ("B", b, lb)):
        if not len(logdir.traces) and not len(logdir.outputs):
            why = f": {logdir.warnings[0]}" if logdir.warnings else ""
            raise ReaderError(f"{side}: no tensors recorded in {path}{why}")
    return la, lb
