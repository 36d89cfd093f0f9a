"""Where `tfdbg-tui index` writes its shards, checked once before any task: a bucket that
does not exist, a local path that is not a folder — one line, exit 2, not one failure per
file set (a thousand lines for a thousand hosts)."""

from __future__ import annotations

import errno
import os
import stat


def bucket_there(where: str) -> None:
    """OSError (one line, exit 2) when the bucket the shards are to be written into does
    not exist: not one line per file set, each task finding it out. Anything else the
    question meets (no right to look at the bucket, only to write into it) is left to the
    tasks."""
    from reader.io.remote import filesystem

    try:
        fs, inner = filesystem(where)
        fs.info(inner.split("/", 1)[0])
    except FileNotFoundError:
        raise OSError(errno.ENOENT, "no such bucket (the shards are written there)",
                      where) from None
    except Exception:
        return


def folder_or_nothing(where: str) -> None:
    """OSError (one line, exit 2) when the local folder the shards go to is something else
    (a file, a FIFO, a device: planted, or a typo): not one 'File exists' per file set,
    each task failing to make it."""
    try:
        st = os.stat(where)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else (
            "a file" if stat.S_ISREG(st.st_mode) else "a device or socket")
        raise OSError(errno.ENOTDIR, f"is {kind}, not a folder (the shards are written "
                      "there: --out names another)", where)
