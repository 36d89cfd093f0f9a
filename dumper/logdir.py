"""Where a dump goes: a logdir checked before TensorFlow's writer is pointed at it.

TensorFlow's writer follows symlinks, writes at predictable names and logs a failed write
without raising; so the folder is checked first (no link another user planted on the way, no
folder others can write, writable, no earlier run left unless overwriting), and a full disk is
told by its free space rather than by an error that never comes.
"""

from __future__ import annotations

import glob
import os
import tempfile

from dumper.errors import DumperError
from reader.io.linkguard import foreign_link, shared_folder

_EVENT_GLOB = "tfdbg_events.*"


def existing_runs(logdir: str) -> list[str]:
    """The tfdbg_events files already in `logdir` (another run, for TensorFlow's reader)."""
    return sorted(glob.glob(os.path.join(glob.escape(logdir), _EVENT_GLOB)))


def prepare_logdir(logdir: str, overwrite: bool) -> str:
    """Check that `logdir` can take a new run, creating it; returns its absolute path."""
    path = os.path.abspath(os.path.expanduser(logdir))
    planted = foreign_link(path)  # TensorFlow's writer follows links: none planted on the way
    if planted is not None:
        raise DumperError(f"logdir {planted}")
    if os.path.exists(path) and not os.path.isdir(path):
        raise DumperError(f"logdir {path} is a file, not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as exc:
        raise DumperError(f"cannot create logdir {path}: {exc.strerror}") from None
    shared = shared_folder(path)  # nor at the predictable names it writes
    if shared is not None:
        raise DumperError(f"logdir {shared}")
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise DumperError(f"logdir {path} is not writable: {exc.strerror}") from None
    old = existing_runs(path)
    if old and not overwrite:
        run = os.path.basename(old[0]).rsplit(".", 1)[0]
        raise DumperError(
            f"logdir {path} already holds a run ({run}); use another logdir or overwrite=True"
        )
    for name in old:
        try:
            os.remove(name)
        except OSError as exc:
            raise DumperError(f"cannot remove the old run's {name}: {exc.strerror}") from None
    return path


FULL = 1 << 20  # bytes free under which a disk is taken as full (TensorFlow's writes fail)


def disk_full(path: str) -> int | None:
    """The bytes left on the disk holding `path` when it is full (under `FULL`), else None.
    Why: TensorFlow's writer logs a failed write and goes on; nothing is raised."""
    try:
        st = os.statvfs(path)
    except OSError:
        return None
    free = st.f_bavail * st.f_frsize
    return free if free < FULL else None
