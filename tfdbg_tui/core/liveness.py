"""Is the run still being written? Judged from the files' modification times.

Why mtimes and not "the app saw new bytes": reopening a logdir that stopped growing hours
ago must never say "live", and the file system already knows when each file last grew.
The header says "● live" while a file changed within `LIVE_SECONDS`, then "last grew 3 min
ago", and after an hour "idle since HH:MM" (with the date when it is not today).
Also which files end in a record not yet whole (`incomplete_tails`): `report` says it was
not read, the app that it waits for the rest.
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


NOT_READ = "it was not read"
READ_WHEN_WHOLE = "still being written? it is read once it is whole"


def incomplete_tails(logdir: DebugLogdir, then: str = NOT_READ) -> list[str]:
    """A line for each file whose last record is not all there. Why: the reader leaves such a
    record for a later read (it may still be being written: the app reads it once it is
    whole), which for a one-shot command meant records dropped without a word — a job
    killed mid-write, a copy cut short — and in the app a wait nobody was told of. Said as
    a warning naming the file and the offset; `then` says what becomes of the record."""
    out = []
    for fsi, fs in enumerate(logdir.filesets):
        for suffix in sorted(fs.present):
            if suffix == "metadata":
                continue
            cur = logdir.file_cursor(fsi, suffix)
            if cur.stopped or cur.failed or cur.interrupted:
                continue  # (said when it stopped: not a record cut short in the file)
            try:
                size = check_regular(fs.path(suffix)).st_size
            except (OSError, ValueError):
                continue
            if size > cur.offset:
                name = fs.path(suffix).rsplit("/", 1)[-1]
                out.append(f"{name}: the record at byte {cur.offset} is incomplete (the file "
                           f"ends {size - cur.offset} bytes later: a job killed mid-write, a "
                           f"copy cut short, or one still writing); {then}")
    return out
