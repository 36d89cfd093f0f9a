"""Child processes that never outlive this one, and shared memory that goes with them.

Why: indexing several hosts forks worker processes (`reader.index.sharding`), `diff` may fork
one to index run B (`tfdbg_tui.commands.pair_load`), and the workers hand their shards over
in files of /dev/shm (`reader.index.spool`). When the reading process is killed (SIGKILL, or
SIGTERM, which Python does not catch), nothing of its own cleans up: a forked worker blocked
for ever waiting for its next task on a pipe it holds both ends of, and the shards stayed in
/dev/shm — memory, until reboot. So:

- every child calls `die_with_parent` first: the kernel sends it SIGKILL when the thread
  that started it ends (Linux's `PR_SET_PDEATHSIG`; the pools are made and shut down by one
  thread), and a child whose parent is already gone ends at once; a spawned child does so
  even before it reads its start data, and a parent killed while it writes them ends the
  child without a traceback, and Ctrl-C ends a worker silently (`worker_context`,
  `reader.io.quiet_workers`);
- a folder in /dev/shm is guarded by a `Reaper`: a tiny `sh` in a session of its own (so a
  Ctrl-C or a closed terminal does not end it first) that waits for the end of a pipe only
  this process tree holds, then removes the folder. The pipe ends when this process and its
  workers have all exited, however they ended; on a normal end the folder is already gone.
  The reaper starts before the folder is made (`guarded_folder`): made first, a folder whose
  process was killed while its reaper started (a fork and exec: milliseconds) stayed.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import subprocess
import sys
import threading
from typing import Any

_PR_SET_PDEATHSIG = 1
_REAP = 'cat >/dev/null; rm -rf -- "$1"'


def die_with_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """In a child process: be sent `signum` (SIGKILL unless told) when the thread that
    started it ends; end now if the parent (pid `parent`) is gone already. `index`'s workers
    take SIGTERM, handled by `ended_by_signal`: a shard being written into a folder of the
    user's has its temporary removed even after a SIGKILL of the command — a SIGKILL of the
    worker itself would leave it there for good."""
    if signum != signal.SIGKILL:
        # the signal ends the worker at once, wherever it is, after removing what it was
        # writing: not the handler a fork inherited from the command (raising SystemExit,
        # which the pool's `except BaseException` around a task takes for the task's
        # error — the worker then waited for its next task for ever, its parent gone)
        signal.signal(signum, ended_by_signal)
        _ended_by_a_thread(signum)
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signum), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


def _ended_by_a_thread(signum: int) -> None:
    """`signum` blocked in this (single-threaded) worker and taken by a thread of its own,
    which removes the temporaries and ends the process. Why: Python runs a handler only
    between bytecodes of the main thread, so a signal that lands just before the main
    thread blocks in a read (its next task, from a pipe it holds both ends of) is noted and
    never acted on — a worker of a SIGKILLed `index` sat there for good, SIGTERM caught and
    none pending (a `make test` under load; 1 in 4 tries of the test at load 8). A signal
    blocked in every thread stays pending until `sigwait` takes it: no moment is lost.
    The handler set above stays for where the block is not possible (not POSIX)."""
    if not hasattr(signal, "pthread_sigmask") or not hasattr(signal, "sigwait"):
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signum})  # (threads made now inherit it)

    def wait() -> None:
        signal.sigwait({signum})
        ended_by_signal(signum, None)

    threading.Thread(target=wait, name="tfdbg-tui-ending", daemon=True).start()


def ended_by_signal(signum: int, _frame: object) -> None:
    """A worker's handler of an ending signal: remove the temporaries this process is
    writing (`reader.io.safewrite`), then end now with status 128 + signum — no exception
    that code on the way could catch and carry on from."""
    from reader.io.safewrite import remove_live_temporaries

    remove_live_temporaries()
    os._exit(128 + signum)


def worker_pool() -> Any:
    """The class of a pool of workers: a `ProcessPoolExecutor` whose calls an interrupt never
    cuts in half (`reader.io.quiet_workers.WorkerPool`)."""
    from reader.io.quiet_workers import WorkerPool

    return WorkerPool


def worker_context(method: str) -> Any:
    """The multiprocessing context a pool of workers starts with (`fork` or `spawn`): its
    workers end silently on Ctrl-C, and a spawned one whose parent is killed as it starts
    ends without a traceback (`reader.io.quiet_workers`, where this Python allows it; spawn's
    resource tracker started by `quiet_workers.tracker_running`)."""
    import multiprocessing

    from reader.io import quiet_workers

    if method == "spawn":
        quiet_workers.tracker_running()
    if not quiet_workers.usable():
        return multiprocessing.get_context(method)
    if method == "spawn":
        return quiet_workers.QuietSpawnContext()
    return quiet_workers.QuietForkContext()


class Reaper:
    """Removes `folder` once this process (and every child holding the pipe) has exited,
    whatever way; `close()` when the folder was removed normally (idempotent)."""

    def __init__(self, folder: str) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        try:
            self._proc = subprocess.Popen(
                ["/bin/sh", "-c", _REAP, "tfdbg-tui-reaper", folder], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=True,
                start_new_session=True)
        except OSError:  # no /bin/sh: removed by this process only (as before)
            self._proc = None

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.stdin is not None:
                proc.stdin.close()  # the end of the pipe: it removes what is left, and exits
            proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass

    def abandon(self) -> None:
        """End the reaper without removing anything (its folder is not ours)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            proc.kill()
            proc.wait(timeout=10)
            if proc.stdin is not None:
                proc.stdin.close()
        except (OSError, subprocess.TimeoutExpired):
            pass


def guarded_folder(base: str, prefix: str) -> tuple[str, Reaper]:
    """A new private folder (0700) in `base`, and the `Reaper` that removes it. The reaper
    starts first, on the name the folder then takes, so there is no moment when the folder
    exists unguarded; a name some other process has taken meanwhile is left to it (its
    reaper ended without removing anything) and another name is drawn."""
    while True:
        path = os.path.join(base, prefix + secrets.token_hex(8))
        reaper = Reaper(path)
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            reaper.abandon()
            continue
        except BaseException:
            reaper.abandon()
            raise
        return path, reaper
