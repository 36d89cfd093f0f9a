"""Where `export` writes: OUT_DIR's files replaced together, never written through.

Why: OUT_DIR may be a shared folder holding things someone else planted (a symlink at
`report.json`, or at whatever temporary name a writer would use, pointing at a file outside),
and two exports may write into it at once. So (see SECURITY.md):

- every file is written to a `Replacement` (`reader.io.safewrite`): a temporary of an
  unpredictable name created with `O_EXCL | O_NOFOLLOW` in OUT_DIR, written through its own
  descriptor, renamed over the final name — a symlink planted anywhere is replaced or passed
  over, never written through;
- nothing is renamed into place before every table is complete (`commit`), and then all of
  them under an exclusive lock on OUT_DIR: the user's previous export stays whole until the new
  one is, and two exports into one OUT_DIR leave the complete set of one of them (a lock
  held longer than `LOCK_WAIT` — anyone who can read the folder can take it — is one line);
- an error (a full disk, a failed table) removes the temporaries (`discard`) and keeps what
  OUT_DIR held;
- OUT_DIR is a local folder: a URL is refused in one line (writing `s3://b/x` would make a
  folder `./s3:/b/x`).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
import sys
import threading
import time

from reader.io.linkguard import foreign_link
from reader.io.remote import is_remote
from reader.io.safewrite import Replacement
from tfdbg_tui.core.sanitize import error_line

LOCK_WAIT = 120.0  # seconds another holder of OUT_DIR's lock is waited for


def check_out_dir(path: str) -> None:
    """OSError (one line) if `path` cannot be an export's OUT_DIR: a URL, something not a
    folder (a file, a FIFO, a device, a symlink to nothing), or a path through a symlink
    another user planted (`reader.io.linkguard`)."""
    if is_remote(path):
        raise OSError(errno.EINVAL, "OUT_DIR must be a local folder: export writes local "
                      "files (copy them to the bucket afterwards)", path)
    planted = foreign_link(path)
    if planted is not None:
        raise OSError(errno.EPERM, planted, path)
    if os.path.lexists(path) and not os.path.isdir(path):
        what = "a symlink to nothing" if not os.path.exists(path) else "not a folder"
        raise OSError(errno.ENOTDIR, f"{what}; OUT_DIR must be a folder (made if missing)",
                      path)


def shown(path: str, name: str | None) -> str:
    """The file an error is about, as the user knows it: a temporary's name (`.x.tmp-…`,
    never seen by the user) becomes OUT_DIR's file it stands for."""
    if not name:
        return path
    base = os.path.basename(str(name))
    m = re.fullmatch(r"\.(.+)\.tmp-[0-9a-f]{16}", base)
    if m is not None:
        return os.path.join(path, m.group(1))
    return str(name)


class OutDir:
    """OUT_DIR, opened on first use; the files of one export, replaced all at once."""

    def __init__(self, path: str) -> None:
        check_out_dir(path)
        self.path = path
        self._fd: int | None = None
        self._files: dict[str, Replacement] = {}
        self._lock = threading.Lock()  # tables are written on threads of their own

    def _folder(self) -> int:
        if self._fd is None:
            os.makedirs(self.path, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        return self._fd

    def file(self, name: str) -> Replacement:
        """A new temporary for `name` (one made before for it is discarded)."""
        with self._lock:
            new = Replacement(self._folder(), name)
            old, self._files[name] = self._files.get(name), new
        if old is not None:
            old.discard()
        return new

    def commit(self) -> dict[str, str]:
        """Rename every file written into place, under an exclusive lock on OUT_DIR (another
        export's set is never mixed with this one's); name → path."""
        with self._lock:
            files = dict(self._files)
        if any(not f.open for f in files.values()):
            raise OSError(errno.EIO, "a table was discarded before the export ended",
                          self.path)
        fd = self._folder()
        locked = _lock(fd, self.path)
        try:
            for name in files:  # a folder at a name: refused before any file is put in
                if _is_folder(fd, name):  # place (a rename over it fails; before, the
                    raise OSError(errno.EISDIR, "Is a directory",  # files renamed first
                                  os.path.join(self.path, name))  # stayed: half an export)
            for f in files.values():
                f.commit()
            try:
                os.fsync(fd)
            except OSError:
                pass
        finally:
            if locked:
                fcntl.flock(fd, fcntl.LOCK_UN)
        return {name: os.path.join(self.path, name) for name in files}

    def discard(self) -> None:
        """Remove every temporary not committed, and close OUT_DIR (idempotent)."""
        with self._lock:
            files, self._files = list(self._files.values()), {}
            fd, self._fd = self._fd, None
        for f in files:
            f.discard()
        if fd is not None:
            os.close(fd)


def _is_folder(fd: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(name, dir_fd=fd).st_mode)
    except OSError:
        return False


def _lock(fd: int, path: str) -> bool:
    """Take the exclusive lock on OUT_DIR (False: its file system has none, as some NFS;
    each file is still whole). Another holder is waited for `LOCK_WAIT` seconds at most,
    said once on stderr; then OSError, nothing replaced. Why not a plain blocking `flock`:
    anyone who can read a shared OUT_DIR can lock it (`flock /tmp/exports sleep infinity`),
    and the export then waited for ever, silently, its temporaries left in the folder."""
    deadline = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError:
            return False
        now = time.monotonic()
        if deadline is None:
            deadline = now + LOCK_WAIT
            print(error_line("tfdbg-tui export", f"waiting for {path}: another process holds "
                             "its lock (another export into it?)"), file=sys.stderr,
                  flush=True)
        elif now > deadline:
            raise OSError(errno.EWOULDBLOCK, f"another process has held its lock for over "
                          f"{LOCK_WAIT:g} s (another export into it?); nothing was replaced",
                          path)
        time.sleep(0.1)
