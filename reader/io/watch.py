"""Waiting for a logdir to change: file-system notifications where they work, else polling.

A follower (the TUI) calls `ChangeWatcher.wait(timeout)` between `update()`s: it returns as
soon as a file of the logdir changed, so new records show within a fraction of a second, and
costs nothing while nothing changes. Notifications come from `watchfiles` (inotify, FSEvents,
ReadDirectoryChangesW) in a background thread. They are not used where they cannot see other
machines' writes (network file systems: NFS, SMB, sshfs, ...), when `watchfiles` is missing or
fails (e.g. out of inotify watches), or with `TFDBG_TUI_FORCE_POLLING=1`; then the logdir's
files are `stat`ed every `poll_interval`. Even with notifications, a `stat` every
`safety_interval` catches an event that never came. A remote logdir (a URL, see
`reader.io.remote`) is always polled: one listing of the folder per `poll_interval`.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterable

from reader.io import remote_listing
from reader.io.remote import is_remote

POLL_ENV = "TFDBG_TUI_FORCE_POLLING"
NETWORK_FS = frozenset({"nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "ncpfs", "afs",
                        "9p", "ceph", "glusterfs", "lustre", "gpfs", "beegfs", "fuse.sshfs",
                        "fuse.glusterfs", "fuse.s3fs", "fuse.gcsfuse", "fuse.rclone",
                        "davfs", "fuse.davfs2"})

Signature = frozenset[tuple[str, int, int, int]]


def signature(path: str) -> Signature:
    """(name, inode, size, mtime) of every tfdbg file in the logdir: changes when any does
    (for an object: its version instead of the mtime)."""
    if is_remote(path):
        return remote_listing.signature(path)
    out = []
    try:
        with os.scandir(path) as it:
            for entry in it:
                if entry.name.startswith("tfdbg_events."):
                    try:
                        st = entry.stat()
                    except OSError:
                        continue
                    out.append((entry.name, st.st_ino, st.st_size, st.st_mtime_ns))
    except OSError:
        pass
    return frozenset(out)


def fs_type(path: str, mountinfo: Iterable[str]) -> str:
    """The file-system type of the mount holding `path`, from /proc/self/mountinfo lines."""
    best, best_type = "", ""
    for line in mountinfo:
        left, sep, right = line.partition(" - ")
        fields = left.split()
        if not sep or len(fields) < 5 or not right.split():
            continue
        mount = fields[4].replace("\\040", " ")
        inside = path == mount or path.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) >= len(best):
            best, best_type = mount, right.split()[0]
    return best_type


def on_network_fs(path: str) -> bool:
    """True when `path` is on a file system whose notifications miss remote writes."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as f:
            kind = fs_type(os.path.realpath(path), f)
    except OSError:
        return False
    return kind in NETWORK_FS


class ChangeWatcher:
    """Waits until the files of one logdir folder change. Close it when done."""

    def __init__(self, path: str, notify: bool | None = None, poll_interval: float = 0.2,
                 safety_interval: float = 2.0) -> None:
        remote_dir = is_remote(path)
        self.path = path if remote_dir else os.path.abspath(path)
        self.poll_interval = poll_interval
        self.safety_interval = safety_interval
        self.last_reason = ""  # why the last wait() returned: notify, poll, closed or timeout
        self.ready = threading.Event()  # set once notifications are being delivered (or not)
        self._event = threading.Event()
        self._stop = threading.Event()
        self._seen = signature(self.path)
        if remote_dir:
            notify = False  # a bucket sends no notifications here
        elif notify is None:
            notify = os.environ.get(POLL_ENV, "") in ("", "0") and not on_network_fs(self.path)
        self.mode = "poll"
        self._thread: threading.Thread | None = None
        if notify:
            self._start_notify()
        if self.mode == "poll":
            self.ready.set()

    def _start_notify(self) -> None:
        try:
            import watchfiles
        except ImportError:
            return
        ready = self.ready

        def run() -> None:
            try:
                changes = watchfiles.watch(self.path, watch_filter=None, debounce=60, step=15,
                                           stop_event=self._stop, rust_timeout=1000,
                                           yield_on_timeout=True, raise_interrupt=False,
                                           recursive=False)
                first = True
                for batch in changes:
                    if first:  # the watch is set up once the first timeout or batch comes
                        first = False
                        ready.set()
                    if batch:
                        self._event.set()
            except Exception:  # out of watches, unsupported, ...: fall back to polling
                self.mode = "poll"
            finally:
                ready.set()
                self._event.set()  # a waiter re-checks the mode (and the files)

        self.mode = "notify"
        self._thread = threading.Thread(target=run, name="tfdbg-watch", daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> bool:
        """Block until a file of the logdir changed (True) or `timeout` seconds passed (False);
        returns at once (False) after `close()`."""
        deadline = time.monotonic() + timeout
        while not self._stop.is_set():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            step = self.safety_interval if self.mode == "notify" else self.poll_interval
            fired = self._event.wait(min(step, remaining))
            if self._stop.is_set():
                break
            if fired:
                self._event.clear()
                if self.mode == "notify":
                    self._seen = signature(self.path)
                    self.last_reason = "notify"
                    return True
            now = signature(self.path)
            if now != self._seen:
                self._seen = now
                self.last_reason = "poll"
                return True
        self.last_reason = "closed" if self._stop.is_set() else "timeout"
        return False

    def close(self, join: bool = True) -> None:
        """Stop watching; a wait() in progress returns. `join=False` does not wait for the
        notification thread to end (for a UI thread waking a follower that closes it again)."""
        self._stop.set()
        self._event.set()
        if join and self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
