"""SIGTERM and SIGHUP end a command as an error does: its temporaries removed.

Why: Python does not catch SIGTERM (`kill`, `timeout`, a batch scheduler's end of a job) nor
SIGHUP (a closed terminal): the interpreter dies at once, and a command that was writing a
file through a temporary of its own (`diff --csv FILE`, `index --out FOLDER`: a random
`.NAME.tmp-…` beside the file, renamed over it once complete — `reader.io.safewrite`)
left that temporary behind. Made an exception here (`SystemExit(128 + signal)`, the status
a shell gives a process it kills), the signal unwinds through the writers' `finally`, which
remove what is not complete; the user's previous file stays whole. (`export` has its own,
`tfdbg_tui.commands.export`.)
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def ended_by_signals() -> Iterator[None]:
    """Within the block, SIGTERM and SIGHUP raise `SystemExit(128 + signal)` in the main
    thread (elsewhere: nothing changes, a handler can only be set there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    old = {sig: signal.signal(sig, end) for sig in SIGNALS}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
