"""Is the run still being written? Judged from the files' modification times.

Why mtimes and not "the app saw new bytes": reopening a logdir that stopped growing hours
ago must never say "live", and the file system already knows when each file last grew.
The header says "● live" while a file changed within `LIVE_SECONDS`, then "last grew 3 min
ago", and after an hour "idle since HH:MM" (with the date when it is not today).
"""

from __future__ import annotations

import time

from reader import DebugLogdir
from reader.io.regular import check_regular

LIVE_SECONDS = 10.0


def last_growth(logdir: DebugLogdir) -> float | None:
    """The newest modification time of the run's regular files (None: none could be read)."""
    newest: float | None = None
    for fs in logdir.run.filesets:
        for suffix in fs.present:
            try:
                st = check_regular(fs.path(suffix))  # an object's listing for a URL
            except (OSError, ValueError):
                continue
            newest = st.st_mtime if newest is None else max(newest, st.st_mtime)
    return newest


def _ago(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def activity(last: float | None, now: float | None = None) -> tuple[str, bool]:
    """(words, live?) for a run whose files last changed at `last` (epoch seconds)."""
    now = time.time() if now is None else now
    if last is None:
        return "● read", False
    age = now - last
    if age < LIVE_SECONDS:
        return "● live", True
    if age < 3600:
        return f"last grew {_ago(age)} ago", False
    when = time.localtime(last)
    same_day = time.localtime(now)[:3] == when[:3]
    return "idle since " + time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", when), False
