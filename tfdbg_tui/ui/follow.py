"""Reading a logdir inside the app: the first read with progress, then following it live.

`LogdirFollower.run()` is the body of the app's "index" thread worker. The first read
publishes progress snapshots; then, while following, the worker sleeps in
`reader.io.watch.ChangeWatcher.wait()` — woken by file-system notifications, or by its
polling fallback on network file systems — so new records show within a fraction of a second
and nothing is read while nothing changes.

Warnings the reader adds at any time (a file that shrank, was replaced, a file set that
cannot be read) travel with the snapshot that follows them, so the app shows them when they
happen, not only after the first read. Errors are not caught here beyond `ReaderError`
(which is the reader's own one-line complaint, shown as a warning): anything else ends the
worker, and the app shows it (`TfdbgApp.on_worker_state_changed`) instead of it vanishing.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

from reader import DebugLogdir, ReaderError
from reader.io.watch import ChangeWatcher
from tfdbg_tui.core.liveness import READ_WHEN_WHOLE, incomplete_tails
from tfdbg_tui.core.model import Snapshot

PUBLISH_EVERY = 0.25  # seconds between progress snapshots while indexing
MAX_NOTICES = 5  # warnings shown one by one at a time; past that, a count
AFTER_CHANGE_SHARE = 4.0  # wait 4x what the last after_change took before the next one
WAIT_SLICE = 3600.0  # a watcher wait ends on a change or on stop(); this only bounds it
_SUPPRESSED = re.compile(r"\.\.\. and \d+ more warnings")  # its count changes: never "new"

# publish(snapshot, final, new warnings): called from the worker thread
Publish = Callable[[Snapshot, bool, list[str]], None]


def notices(new: list[str], limit: int = MAX_NOTICES) -> list[str]:
    """The messages to pop up for `new` warnings: each one while few, else the first ones
    and how many more (the Alerts pane and `tfdbg-tui report` keep the full list)."""
    if len(new) <= limit:
        return list(new)
    shown = new[: limit - 1]
    return [*shown, f"… and {len(new) - len(shown)} more warnings (tfdbg-tui report lists "
                    "them all)"]


class LogdirFollower:
    """Reads one logdir for the app, in the worker thread that calls `run()`.

    `follow=False` stops after the first full read. `notify` chooses file-system
    notifications (True), polling every `poll_interval` seconds (False), or lets the watcher
    decide (None: notifications unless on a network file system or TFDBG_TUI_FORCE_POLLING=1).
    """

    def __init__(self, logdir: DebugLogdir, publish: Publish, *, follow: bool = True,
                 poll_interval: float = 0.2, notify: bool | None = None) -> None:
        self.logdir = logdir
        self.follow = follow
        self.poll_interval = poll_interval
        self.notify = notify
        self.safety_interval = 2.0  # with notifications, a stat this often catches a lost one
        self._publish = publish
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards _watcher against a concurrent stop()
        self._watcher: ChangeWatcher | None = None
        self._known: set[str] = set()  # warnings already published

    @property
    def mode(self) -> str:
        """How changes are noticed: "notify", "poll", or "" when not following (yet)."""
        watcher = self._watcher
        return watcher.mode if watcher is not None else ""

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def stop(self) -> None:
        """End `run()` soon (from any thread); a wait for changes returns at once."""
        self._stop.set()
        with self._lock:
            watcher = self._watcher
        if watcher is not None:
            watcher.close(join=False)

    def run(self, cancelled: Callable[[], bool],
            after_first: Callable[[], None] | None = None,
            after_change: Callable[[], None] | None = None) -> None:
        """Read the logdir (publishing progress), call `after_first`, then follow it until
        `stop()` or `cancelled()`, calling `after_change` after each update that brought new
        records (compare mode compares again then; in this thread, so that nothing updates
        the logdir while it is compared)."""
        watcher = self._start_watcher() if self.follow else None
        try:
            self._first_read(cancelled)
            if after_first is not None and not self._stop.is_set():
                after_first()
            if watcher is None:
                return
            watcher.ready.wait()  # always set: by the watch thread, or at once when polling
            changed = True  # what changed while notifications were being set up
            pending, next_at = False, 0.0
            while not self._stop.is_set() and not cancelled():
                if changed and self._update():
                    pending = after_change is not None
                if pending and after_change is not None and not self._stop.is_set() \
                        and time.monotonic() >= next_at:
                    # A comparison of a big run costs seconds: spend at most a fifth of the
                    # time on it, so following keeps up; the last change is always compared.
                    start = time.monotonic()
                    after_change()
                    spent = time.monotonic() - start
                    pending, next_at = False, time.monotonic() + AFTER_CHANGE_SHARE * spent
                wait = max(0.01, next_at - time.monotonic()) if pending else WAIT_SLICE
                changed = watcher.wait(wait)
        finally:
            if watcher is not None:
                watcher.close()

    def _start_watcher(self) -> ChangeWatcher | None:
        # Started before the first read, so that a change made during it is not missed.
        watcher = ChangeWatcher(self.logdir.path, notify=self.notify,
                                poll_interval=self.poll_interval,
                                safety_interval=self.safety_interval)
        with self._lock:
            self._watcher = watcher
        if self._stop.is_set():  # stop() came before the watcher existed
            watcher.close(join=False)
        return watcher

    def _first_read(self, cancelled: Callable[[], bool]) -> None:
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PUBLISH_EVERY and not cancelled() and not self._stop.is_set():
                last = now
                self._publish(self.snapshot(True, done, total), False, [])

        try:
            self.logdir.update(progress)
        except ReaderError as exc:
            self.logdir.warn(str(exc))
        # A file ending in a record not yet whole: the reader waits for the rest without a
        # word (it may be being written); said once, after the first read, never blocking.
        tails = [t for t in incomplete_tails(self.logdir, READ_WHEN_WHOLE)
                 if t not in self._known]
        self._known.update(tails)
        self._publish(self.snapshot(False), True, [*self._new_warnings(), *tails])

    def _update(self) -> bool:
        """Read what was added; True when records were (a snapshot was published)."""
        try:
            changed = self.logdir.update().changed
        except ReaderError as exc:
            self.logdir.warn(str(exc))
            changed = False
        new = self._new_warnings()
        if changed or new:
            self._publish(self.snapshot(False), False, new)
        return changed

    def _new_warnings(self) -> list[str]:
        out = []
        for message in self.logdir.all_warnings():
            if message not in self._known and not _SUPPRESSED.fullmatch(message):
                self._known.add(message)
                out.append(message)
        return out

    def snapshot(self, indexing: bool, done: int = 0, total: int = 0) -> Snapshot:
        """The index's counts now (call from the thread that updates the logdir)."""
        logdir = self.logdir
        return Snapshot(len(logdir.executions), len(logdir.traces), len(logdir.outputs),
                        logdir.alerts(), indexing, done, total)
