"""`TfdbgApp`: the thin Textual app — owns the logdir, the indexing/follow worker, the CSS.

Everything visible lives in `MainScreen` and the panes. The app loads the user's keymap
(`tfdbg_tui.core.keymap`) and shows keys through `get_key_display`, so footer, help and palette
follow it. Its other job besides wiring is reading the logdir off the UI thread: the first
screen paints at once, indexing runs in a thread worker that publishes `Snapshot`s (with
progress) as it goes, then the same worker polls `update()` about once a second so a run that is
still writing shows up live.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import TYPE_CHECKING

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.worker import get_current_worker

from reader import DebugLogdir, ReaderError
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.core.keymap import load_keymap
from tfdbg_tui.core.memory import release_freed_memory
from tfdbg_tui.core.model import AppState, Snapshot
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import SPECS_BY_ID
from tfdbg_tui.ui.main_screen import SCREEN_KEYS, MainScreen
from tfdbg_tui.ui.palette import TfdbgCommands

if TYPE_CHECKING:
    from tfdbg_tui.ui.compare_view import CompareView

PUBLISH_EVERY = 0.25  # seconds between progress snapshots while indexing


class TfdbgApp(App[None]):
    """tfdbg-tui on one logdir. `follow=False` stops after the first full read (tests).
    `compare_with` (run B) turns on compare mode: see `tfdbg_tui.ui.compare_view`."""

    CSS_PATH = "tfdbg.tcss"
    TITLE = "tfdbg-tui"
    COMMANDS = App.COMMANDS | {TfdbgCommands}
    ESCAPE_TO_MINIMIZE = False

    def __init__(self, logdir: DebugLogdir, *, display_path: str | None = None,
                 follow: bool = True, poll_interval: float = 1.0,
                 compare_with: DebugLogdir | None = None,
                 tolerance: Tolerance | None = None) -> None:
        super().__init__()
        self.compare_with, self.tolerance = compare_with, tolerance
        self.compared = asyncio.Event()  # set once compare mode's comparison is shown
        release_freed_memory()  # before indexing: its temporaries must not stay resident
        self.state = AppState(logdir)
        self.display_path = display_path if display_path is not None else logdir.path
        self.follow = follow
        self.poll_interval = poll_interval
        self.main: MainScreen | None = None
        self.data_event = asyncio.Event()  # set whenever a snapshot is published
        self.indexed = asyncio.Event()  # set once the first full read is done
        self.first_paint: float | None = None  # perf_counter() of the first screen refresh
        self._stop = threading.Event()
        self.user_keymap = load_keymap({s.id for s in SCREEN_KEYS} | set(SPECS_BY_ID))
        self.set_keymap(self.user_keymap.keys)

    def on_mount(self) -> None:
        self.main = MainScreen(self.state, self.display_path)
        self.push_screen(self.main)
        self.call_after_refresh(self._painted)
        for problem in self.user_keymap.problems:
            self.notify(lit(problem), severity="warning", timeout=10, markup=False)
        self.index_logdir()

    def get_key_display(self, binding: Binding) -> str:
        """Textual's display of a key, plus its partner's for paired keys ("n/N")."""
        shown = super().get_key_display(binding)
        spec = SPECS_BY_ID.get(binding.id or "")
        partner = SPECS_BY_ID.get(spec.shown_with) if spec and spec.shown_with else None
        if partner is None:
            return shown
        key = self.user_keymap.keys.get(partner.id, partner.keys).split(",")[0]
        return f"{shown}/{super().get_key_display(Binding(key, partner.action))}"

    def _painted(self) -> None:
        if self.first_paint is None:
            self.first_paint = time.perf_counter()

    def on_unmount(self) -> None:
        self._stop.set()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def index_logdir(self) -> None:
        """Read the logdir (publishing progress), then follow it until the app exits."""
        worker = get_current_worker()
        logdir = self.state.logdir
        last = 0.0

        def progress(done: int, total: int) -> None:
            nonlocal last
            now = time.monotonic()
            if now - last >= PUBLISH_EVERY and not worker.is_cancelled:
                last = now
                self._publish_from_thread(self._snapshot(True, done, total), final=False)

        try:
            logdir.update(progress)
        except ReaderError as exc:
            logdir.warn(str(exc))
        self._publish_from_thread(self._snapshot(False), final=True)
        if self.compare_with is not None:
            self._compare_from_thread(self.compare_with)
        while self.follow and not worker.is_cancelled:
            if self._stop.wait(self.poll_interval):
                break
            try:
                stats = logdir.update()
            except ReaderError as exc:
                logdir.warn(str(exc))
                continue
            if stats.changed:
                self._publish_from_thread(self._snapshot(False), final=False)

    def _compare_from_thread(self, other: DebugLogdir) -> None:
        """Compare mode: read run B and compare run A with it, then let the screen show it."""
        from tfdbg_tui.ui.compare_view import compare_runs

        view, error = compare_runs(self.state.logdir, other, self.tolerance)
        if self._stop.is_set() or not self.is_running:
            return
        try:
            self.call_from_thread(self._compared, view, error)
        except Exception as exc:
            if self.is_running:
                self.log.error(f"publishing the comparison failed: {exc!r}")

    def _compared(self, view: CompareView | None, error: str | None) -> None:
        try:
            if self.main is not None and self.main.is_mounted:
                self.main.on_comparison(view, error)
        finally:
            self.compared.set()

    def _snapshot(self, indexing: bool, done: int = 0, total: int = 0) -> Snapshot:
        logdir = self.state.logdir
        return Snapshot(len(logdir.executions), len(logdir.traces), len(logdir.outputs),
                        logdir.alerts(), indexing, done, total)

    def _publish_from_thread(self, snapshot: Snapshot, final: bool) -> None:
        if self._stop.is_set():
            return
        if not self.is_running:  # the app is shutting down
            self._stop.set()
            return
        try:
            self.call_from_thread(self._publish, snapshot, final)
        except Exception as exc:
            if not self.is_running:
                self._stop.set()
            else:
                self.log.error(f"publishing a snapshot failed: {exc!r}")

    def _publish(self, snapshot: Snapshot, final: bool) -> None:
        self.state.snapshot = snapshot
        try:
            if self.main is not None and self.main.is_mounted:
                self.main.on_data(final)
                if final:
                    self.main.show_warnings()
        finally:  # waiters (tests, benchmarks) must hear of the data whatever a pane did
            self.data_event.set()
            if final:
                self.indexed.set()

    async def wait_for_data(self, predicate: object, timeout: float = 10.0) -> None:
        """Wait until `predicate(snapshot)` holds (tests and benchmarks; event-driven)."""
        assert callable(predicate)

        async def wait() -> None:
            while not predicate(self.state.snapshot):
                self.data_event.clear()
                await self.data_event.wait()

        await asyncio.wait_for(wait(), timeout)
