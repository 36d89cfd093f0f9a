"""A program that forks while it is being recorded: the dump stays the parent's alone.

`os.fork()` copies everything TensorFlow's writer holds: its open files (the child shares
their file offsets with the parent), the bytes still in their stdio buffers, the circular
buffer, the op callbacks that record every op, and our own atexit hook, flusher and
announcements. Left alone, the child writes its copy of the buffered bytes into the parent's
files when it exits (the same records twice, at offsets the parent then writes over: a
corrupted file), and `tfdbg-tui run` says "dump written" once per process.

So, around every fork that goes through `os.fork` (multiprocessing's "fork" start method
included):
- before it, the parent flushes the writer, so the child's copies of the buffers are empty
  (the flusher thread cannot be half-way through a flush then: it holds `flush_lock`);
- in the child, TensorFlow's file descriptors that point into the logdir are pointed at
  /dev/null (Linux, through /proc/self/fd), so whatever the child's copy of the writer does,
  the parent's files never see it; TensorFlow's recording callbacks are removed from the
  forking thread and its "dumping is on" state is forgotten without closing the shared
  writer; the NaN watcher, the SIGTERM handler and the announcements are dropped.
The child is therefore not recorded; its TensorFlow work runs as it would without us.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any

# Held by the periodic flusher while it flushes and by the parent across a fork.
flush_lock = threading.Lock()


def before_fork(dump: Any) -> None:
    """In the parent, just before a fork: empty the writer's buffers, block the flusher."""
    flush_lock.acquire()
    with contextlib.suppress(Exception):  # the writer went away (the program disabled it)
        dump._writer.FlushNonExecutionFiles()
        if dump.buffer <= 0:  # a circular buffer's content is written at the close only
            dump._writer.FlushExecutionFiles()


def after_fork_in_parent() -> None:
    """In the parent, just after the fork: the flusher may run again."""
    flush_lock.release()


def after_fork_in_child(dump: Any, our_sigterm: Any) -> None:
    """In the child: make sure nothing it does reaches the parent's dump (module doc)."""
    global flush_lock
    flush_lock = threading.Lock()  # the parent's was held at the fork
    dump._stop_flusher.set()
    _silence_files(dump.logdir)
    if dump._watcher is not None:
        with contextlib.suppress(Exception):
            dump._watcher.forget()
    _forget_tf_dumping()
    with contextlib.suppress(ValueError):  # the fork happened outside the main thread
        if signal.getsignal(signal.SIGTERM) is our_sigterm:
            previous = dump._old_sigterm
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _silence_files(logdir: str) -> None:
    """Point every descriptor this process holds on the logdir's files at /dev/null."""
    prefix = os.path.join(logdir, "tfdbg_events.")
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:  # no /proc: the flush before the fork is all we can do
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        for name in names:
            if not name.isdigit() or int(name) == null:
                continue
            try:
                target = os.readlink(f"/proc/self/fd/{name}")
            except OSError:
                continue
            if target.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.dup2(null, int(name))
    finally:
        os.close(null)


def _forget_tf_dumping() -> None:
    """Remove TensorFlow's recording callbacks from this thread without closing the writer.

    `disable_dump_debug_info()` would close the writer, which flushes and, with a circular
    buffer, writes the buffer out: into the parent's files. Its state is per thread; once it
    is gone, TensorFlow's own atexit call to `disable_dump_debug_info()` does nothing here.
    """
    module = sys.modules.get("tensorflow.python.debug.lib.dumping_callback")
    if module is None:
        return
    state = getattr(module, "_state", None)
    callback = getattr(state, "dumping_callback", None)
    if callback is None:
        return
    with contextlib.suppress(Exception):
        module.op_callbacks.remove_op_callback(callback.callback)
    with contextlib.suppress(Exception):
        module.function_lib.CONCRETE_FUNCTION_CALLBACKS.remove(callback.function_callback)
    with contextlib.suppress(AttributeError):
        delattr(state, "dumping_callback")
