"""Worker processes that start, and end, without a word on the user's terminal.

Two ways a worker printed Python's traceback where the promise is one line or nothing:

- Killed parent, spawned worker. A spawned worker (the `spawn` start method: `diff`'s two
  reading threads, the TUI's) is a fresh interpreter that reads its start data (how to
  prepare, then its process object) from a pipe its parent writes only after starting it. A
  parent killed in between (SIGKILL, the OOM killer) leaves the pipe short, and Python's own
  `multiprocessing.spawn.spawn_main` ends in an EOFError or UnpicklingError traceback (a full
  `make test` saw it: `diff` SIGKILLed as its workers started). Until its start data is read,
  nothing else of ours runs there (the pools' initializer `reader.io.lifeline.die_with_parent`
  comes after). So the worker starts through `_ENTRY` instead: the steps of `spawn_main`, and
  before them the parent-death signal (the kernel kills it when the thread that started it
  ends; if that parent is gone already it ends at once), and around them a guard: start data
  that cannot be read or prepared ends it with status 1, silently when its parent is gone
  (a pipe that ends short — EOF, truncated pickle — is always that: the kernel closes a dying
  parent's files before it hands its children on, so `getppid` can still name it), else in
  one line (a bug of ours; the pool then loses that worker and the parent says which
  file set it held). `_ENTRY` imports nothing of ours: it runs before the start data sets up
  `sys.path`. `QuietSpawnPopen._launch` is the standard library's
  (`popen_spawn_posix.Popen._launch`, the same in Python 3.10 to 3.13) but for the command
  line it starts.
- Ctrl-C. A terminal's Ctrl-C sends SIGINT to the whole foreground process group, workers
  included: a worker waiting for its next file set printed "Process ForkProcess-1:" and a
  KeyboardInterrupt traceback, a spawned one still starting printed the interpreter's (in
  `site`), and one interrupted in a fork's own handlers printed "Exception ignored in
  _releaseLock" while its parent, whose interrupt that swallowed, read on. Now SIGINT is held
  back (blocked) in the thread starting a worker while it starts, so the new process starts
  with it blocked too (a signal mask survives fork and exec); the worker's first step
  (`run`) makes SIGINT end it at once and silently (status 130) and lets it through. The
  parent, interrupted as well, ends as an interrupted command does.
- An interrupt that cuts a pool's own bookkeeping in half. A process pool is not safe
  against a KeyboardInterrupt raised inside its calls: landing between registering a new
  worker and telling the pool about it, it left a worker that waits for work for ever and a
  parent that joins it for ever at exit (`report` sent SIGINT alone hung in 3 of 25 tries),
  or a manager thread never started that shutdown then joined ("RuntimeError: cannot join
  thread before it is started", a traceback). `WorkerPool` runs its calls with SIGINT held in
  the calling thread, and the pool's own threads, made during those calls, inherit the mask:
  they never take it, so an interrupt lands only outside the pool (the parent's own reading,
  or its wait for the workers), and the pool is shut down whole.

Spawned workers need multiprocessing's resource tracker; `tracker_running` starts it first.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from multiprocessing import context, popen_fork, popen_spawn_posix, spawn
from multiprocessing import util as _util
from typing import Any

util: Any = _util  # private helpers typeshed does not list (_args_from_interpreter_flags, …)

_ENTRY = """\
import os, sys
parent = {parent}
if sys.platform.startswith("linux"):
    try:
        import ctypes, signal
        ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except Exception:
        pass
if os.getppid() != parent:
    os._exit(1)
try:
    from multiprocessing import resource_tracker, spawn
    resource_tracker._resource_tracker._fd = {tracker_fd}
    code = spawn._main({pipe_handle}, os.dup({pipe_handle}))
except (KeyboardInterrupt, EOFError):
    os._exit(1)
except BaseException as exc:
    if type(exc).__name__ == "UnpicklingError" and "truncated" in str(exc):
        os._exit(1)
    if os.getppid() == parent:
        text = " ".join(f"{{type(exc).__name__}}: {{exc}}".split())[:300]
        sys.stderr.write(f"tfdbg-tui: a worker process could not start: {{text}}\\n")
    os._exit(1)
sys.exit(code)
"""


def command_line(tracker_fd: int, pipe_handle: int) -> list[str]:
    """The worker's command line: `spawn.get_command_line`'s, with `_ENTRY` as its program."""
    prog = _ENTRY.format(parent=os.getpid(), tracker_fd=int(tracker_fd),
                         pipe_handle=int(pipe_handle))
    return [spawn.get_executable(), *util._args_from_interpreter_flags(), "-c", prog,
            "--multiprocessing-fork"]


_tracker_lock = threading.Lock()
_QUIET_TRACKER = "ignore::UserWarning:multiprocessing.resource_tracker"


def tracker_running() -> None:
    """Start multiprocessing's resource tracker (spawned workers need it) before a pool
    would, so that:

    - its process is handed a stderr descriptor that exists: it keeps `sys.stderr.fileno()`,
      and inside the app Textual's stand-in for stderr answers -1, so every spawn failed
      ("bad value(s) in fds_to_keep": a multi-host run said "nothing was recorded"); for the
      moment it starts, such a stderr is /dev/null;
    - its warnings are off: a parent killed with workers leaves semaphores the tracker then
      removes, saying "There appear to be N leaked semaphore objects" in two lines on the
      user's terminal (it inherits the real descriptor 2 whatever `sys.stderr` is).
      Its command line carries `sys.warnoptions`, so the filter is there while it starts."""
    from multiprocessing import resource_tracker

    with _tracker_lock:
        saved = sys.stderr
        try:
            usable = saved.fileno() >= 0
        except Exception:  # no fileno at all: the tracker leaves it out itself
            usable = True
        quiet = None if usable else open(os.devnull, "w")
        sys.warnoptions.append(_QUIET_TRACKER)
        try:
            if quiet is not None:
                sys.stderr = quiet
            resource_tracker.ensure_running()
        finally:
            sys.warnoptions.remove(_QUIET_TRACKER)
            sys.stderr = saved
            if quiet is not None:
                quiet.close()


class QuietSpawnPopen(popen_spawn_posix.Popen):
    """multiprocessing's spawn Popen, starting the worker through `_ENTRY`."""

    _fds: list[int]  # the descriptors the worker keeps (set by popen_spawn_posix.Popen)

    def _launch(self, process_obj: Any) -> None:
        from multiprocessing import resource_tracker
        from multiprocessing.context import reduction, set_spawning_popen  # type: ignore

        tracker_fd: Any = resource_tracker.getfd()
        self._fds.append(tracker_fd)
        prep_data = spawn.get_preparation_data(process_obj._name)
        fp = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep_data, fp)
            reduction.dump(process_obj, fp)
        finally:
            set_spawning_popen(None)

        parent_r = child_w = child_r = parent_w = None
        try:
            parent_r, child_w = os.pipe()
            child_r, parent_w = os.pipe()
            cmd = command_line(tracker_fd, child_r)  # (the only change)
            self._fds.extend([child_r, child_w])
            self.pid = util.spawnv_passfds(spawn.get_executable(), cmd, self._fds)
            self.sentinel = parent_r
            with open(parent_w, "wb", closefd=False) as f:
                f.write(fp.getbuffer())
        finally:
            fds_to_close = [fd for fd in (parent_r, parent_w) if fd is not None]
            self.finalizer = util.Finalize(self, util.close_fds, fds_to_close)
            for fd in (child_r, child_w):
                if fd is not None:
                    os.close(fd)


@contextmanager
def interrupt_held() -> Iterator[None]:
    """SIGINT blocked in this thread meanwhile (and so in a process started meanwhile)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _interrupted(signum: int, frame: Any) -> None:
    os._exit(128 + signal.SIGINT)


def end_quietly_on_interrupt() -> None:
    """In a worker, first: SIGINT ends it at once and silently; then let it through."""
    signal.signal(signal.SIGINT, _interrupted)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


class QuietSpawnProcess(context.SpawnProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> QuietSpawnPopen:
        with interrupt_held():
            return QuietSpawnPopen(process_obj)

    def run(self) -> None:
        end_quietly_on_interrupt()
        super().run()


class QuietSpawnContext(context.SpawnContext):
    Process = QuietSpawnProcess


class QuietForkProcess(context.ForkProcess):
    @staticmethod
    def _Popen(process_obj: Any) -> popen_fork.Popen:
        with interrupt_held():
            return popen_fork.Popen(process_obj)

    def run(self) -> None:
        end_quietly_on_interrupt()
        super().run()


class QuietForkContext(context.ForkContext):
    Process = QuietForkProcess


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose calls a Ctrl-C never cuts in half (SIGINT held meanwhile)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        with interrupt_held():
            super().__init__(*args, **kwargs)

    def submit(self, *args: Any, **kwargs: Any) -> Any:
        with interrupt_held():
            return super().submit(*args, **kwargs)

    def shutdown(self, *args: Any, **kwargs: Any) -> None:
        with interrupt_held():
            super().shutdown(*args, **kwargs)


def usable() -> bool:
    """This Python starts spawned workers as `_launch` expects (else: the standard ones)."""
    return (sys.platform != "win32" and not getattr(sys, "frozen", False)
            and callable(getattr(spawn, "_main", None))
            and callable(getattr(util, "spawnv_passfds", None)))
