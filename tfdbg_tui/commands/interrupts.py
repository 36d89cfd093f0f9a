"""Ctrl-C ends a one-shot command (`report`, `diff`, `export`, `index`) with status 130,
whatever happened to the KeyboardInterrupt it raised.

Why a note and not only `except KeyboardInterrupt` in `tfdbg_tui.cli.main`: Python raises
the interrupt in the main thread at whatever line it is on, and code that is not ours may
catch it there and go on (a library's `except BaseException`, a pool's bookkeeping, a
finalizer, where Python only prints "Exception ignored"); the command then read on and
ended 0 or 1 — "clean" or "alerts found" — for a run the user had stopped. So while the
command runs, SIGINT goes to `Watch`'s handler: it notes the interrupt and raises
KeyboardInterrupt as Python's own handler does, and `Watch.end` turns the command's status
into 130 when an interrupt was noted, however it was handled on the way. From `end` on a
Ctrl-C is only noted: the status is decided, and an interrupt raised in the last lines
(the interpreter's `sys.exit(main())`) would print a traceback.

Only Python's own handler is replaced: SIGINT ignored at the start (a background job of a
non-interactive shell, POSIX) stays ignored, as in every program, and a caller of `main`
with a handler of its own keeps it.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Any

INTERRUPTED = 130  # an interrupted command's status (128 + SIGINT), as shells report it


class Watch:
    """SIGINT noted for one command run in this (the main) thread; see the module doc."""

    def __init__(self) -> None:
        self.seen = False
        self._quiet = False
        self._previous: Any = None
        self._installed = False

    def start(self) -> Watch:
        if threading.current_thread() is not threading.main_thread():
            return self  # (signal handlers are the main thread's: a caller's thread)
        previous = signal.getsignal(signal.SIGINT)
        if previous is not signal.default_int_handler:
            return self  # ignored, or a caller's own handler: left as it is
        signal.signal(signal.SIGINT, self._handler)
        self._previous, self._installed = previous, True
        return self

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        self.seen = True
        if not self._quiet:
            raise KeyboardInterrupt

    def end(self, status: int) -> int:
        """The command's final status: 130 if it was interrupted. Later interrupts are only
        noted (and no longer change it)."""
        self._quiet = True
        return INTERRUPTED if self.seen else status

    def restore(self) -> None:
        """Python's handler back (a caller of `main` that goes on running)."""
        if self._installed and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False
