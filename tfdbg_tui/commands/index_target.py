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


def folder_or_nothing(where: str, make: bool = True) -> None:
    """OSError (one line, exit 2) when the local folder the shards go to is something else
    (a file, a FIFO, a device: planted, or a typo), a symlink, or cannot be made (`make`:
    the tasks run on this machine, so the folder is made here): not one 'File exists' or
    'No such file' per file set, each task failing to make it.

    A symlink here is the logdir's own `.tfdbg-index` (a folder the user names has had its
    own links resolved: `reader.index.shard_store.folder`, another user's are refused):
    whoever writes the logdir could have planted it to have shards written anywhere, and an
    open never reads shards through it anyway."""
    try:
        st = os.lstat(where)
    except FileNotFoundError:
        if make:
            try:
                os.makedirs(where, exist_ok=True)
            except OSError as exc:
                raise OSError(exc.errno, "cannot make the folder the shards are written to "
                              f"({exc.strerror or exc})", where) from None
        return
    if stat.S_ISLNK(st.st_mode) and not os.path.exists(where):
        raise OSError(errno.ENOENT, "is a symlink to nothing (the shards are written "
                      "there: --out names another)", where)
    if stat.S_ISLNK(st.st_mode):
        raise OSError(errno.ELOOP, "is a symlink (planted in the logdir?); shards are "
                      "neither written nor read through one: remove it, or name a folder "
                      "with --out", where)
    if not stat.S_ISDIR(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else (
            "a file" if stat.S_ISREG(st.st_mode) else "a device or socket")
        raise OSError(errno.ENOTDIR, f"is {kind}, not a folder (the shards are written "
                      "there: --out names another)", where)
