"""`TfdbgApp`: the thin Textual app — owns the logdir, the indexing/follow worker, the CSS.

Everything visible lives in `MainScreen` and the panes. The app loads the user's keymap
(`tfdbg_tui.core.keymap`) and shows keys through `get_key_display`, so footer, help and palette
follow it. Its other job besides wiring is reading the logdir off the UI thread: the first
screen paints at once, and a thread worker (`tfdbg_tui.ui.follow`) publishes `Snapshot`s with
progress, then follows a run that is still writing (file-system notifications, or polling
where they do not work). Warnings pop up when they happen; an unexpected error in the worker
is shown, ends "live", and makes the exit status 1.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar

from rich.console import RenderableType
from textual import work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.command import Provider
from textual.message import Message
from textual.worker import Worker, WorkerState, get_current_worker

from reader import DebugLogdir
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.core.compare.user_map import CompareMap
from tfdbg_tui.core.keymap import load_keymap
from tfdbg_tui.core.memory import release_freed_memory
from tfdbg_tui.core.model import AppState, Snapshot
from tfdbg_tui.core.sanitize import error_line
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import SPECS_BY_ID
from tfdbg_tui.ui.follow import LogdirFollower, notices
from tfdbg_tui.ui.main_screen import SCREEN_KEYS, MainScreen
from tfdbg_tui.ui.nocolor import respect_no_color
from tfdbg_tui.ui.palette import TfdbgCommands

if TYPE_CHECKING:
    from tfdbg_tui.ui.compare.view import CompareView


class IndexProgress(Message):
    """A progress snapshot is waiting in `TfdbgApp._pending` (posted from the worker)."""


class TfdbgApp(App[None]):
    """tfdbg-tui on one logdir. `follow=False` stops after the first full read (tests).
    `notify` / `poll_interval`: how a live logdir is watched (see `LogdirFollower`).
    `compare_with` (run B) turns on compare mode: see `tfdbg_tui.ui.compare.view`."""

    CSS_PATH = "tfdbg.tcss"
    TITLE = "tfdbg-tui"
    # Textual's own commands too, after ours (see palette)
    COMMANDS: ClassVar[set[type[Provider] | Callable[[], type[Provider]]]] = {TfdbgCommands}
    ESCAPE_TO_MINIMIZE = False
    # Ctrl+C quits, as in lazygit, k9s and every terminal program a user knows (Textual's
    # default only tells how to quit); priority: it works in the prompt and the inspector too
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True, id="app.interrupt")]

    def __init__(self, logdir: DebugLogdir, *, display_path: str | None = None,
                 follow: bool = True, poll_interval: float = 0.2,
                 notify: bool | None = None, compare_with: DebugLogdir | None = None,
                 tolerance: Tolerance | None = None,
                 compare_map: CompareMap | None = None) -> None:
        super().__init__()
        respect_no_color(self)  # NO_COLOR, TERM=dumb: greys, warnings still stand out
        self.compare_with, self.tolerance = compare_with, tolerance
        self.compare_map = compare_map  # `--map FILE`: variables paired as the user says
        self.map_warnings: list[str] | None = None  # said once, after the first comparison
        self.compared = asyncio.Event()  # set once compare mode's comparison is shown
        release_freed_memory()  # before indexing: its temporaries must not stay resident
        self.state = AppState(logdir)
        self.display_path = display_path if display_path is not None else logdir.path
        self.follow = follow
        self.follower = LogdirFollower(logdir, self._publish_from_thread, follow=follow,
                                       poll_interval=poll_interval, notify=notify)
        self.read_error: str | None = None  # set when the worker died: shown, exit status 1
        self.main: MainScreen | None = None
        self.data_event = asyncio.Event()  # set whenever a snapshot is published
        self.indexed = asyncio.Event()  # set once the first full read is done
        self._pending_lock = threading.Lock()
        self._pending: tuple[Snapshot, list[str]] | None = None  # see _post_progress
        self.first_paint: float | None = None  # perf_counter() of the first screen refresh
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
        self.follower.stop()

    @work(thread=True, exclusive=True, group="index", exit_on_error=False)
    def index_logdir(self) -> None:
        """Read the logdir (publishing progress), then follow it until the app exits.
        An exception ends the worker; `on_worker_state_changed` shows it."""
        worker = get_current_worker()
        after = None
        if self.compare_with is not None:  # compared once read, and again as run A grows
            other = self.compare_with
            after = lambda: self._compare_from_thread(other)  # noqa: E731
        self.follower.run(lambda: worker.is_cancelled, after, after)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "index" and event.state == WorkerState.ERROR:
            self._reading_stopped(event.worker.error)

    def _reading_stopped(self, error: BaseException | None) -> None:
        """The worker died of an error nobody expected: say so on one line, stop claiming
        "live", keep what was read on screen, and make the exit status non-zero."""
        self.follower.stop()
        self.read_error = error_line("reading stopped", f"{type(error).__name__}: {error}")
        self.log.error(self.read_error)
        self.notify(self.read_error, severity="error", timeout=24 * 3600, markup=False)
        snapshot = self.state.snapshot
        # the last published snapshot is consistent; it becomes the final one
        self._publish(replace(snapshot, indexing=False), final=snapshot.indexing, warnings=[])

    def exit(self, result: None = None, return_code: int = 0,
             message: RenderableType | None = None) -> None:
        """Quit; after a reading error the exit status is 1 (a script must not take a
        half-read run for a clean one)."""
        if return_code == 0 and self.read_error is not None:
            return_code = 1
        super().exit(result, return_code, message)

    def _compare_from_thread(self, other: DebugLogdir) -> None:
        """Compare mode: read run B and compare run A with it, then let the screen show it."""
        from tfdbg_tui.ui.compare.view import compare_runs

        view, error = compare_runs(self.state.logdir, other, self.tolerance,
                                   self.compare_map.mapping if self.compare_map else None)
        if self.follower.stopped or not self.is_running:
            return
        try:
            self.call_from_thread(self._compared, view, error)
        except Exception as exc:
            if self.is_running:
                self.log.error(f"publishing the comparison failed: {exc!r}")

    def _compared(self, view: CompareView | None, error: str | None) -> None:
        if self.main is None or not self.main.is_mounted:
            # a small logdir is read and compared before the screen is up: the comparison
            # was dropped (compare mode never showed); it waits for the screen instead
            if self.is_running:
                self.call_after_refresh(self._compared, view, error)
            return
        try:
            self.main.on_comparison(view, error)
            if view is not None and self.compare_map and self.map_warnings is None:
                # a rule that changed nothing is said, as diff says it (once: a live run A
                # is compared again as it grows)
                self.map_warnings = self.compare_map.warnings(view.c)
                for why in self.map_warnings:
                    self.notify(lit(why), severity="warning", timeout=15, markup=False)
        finally:
            self.compared.set()

    def _publish_from_thread(self, snapshot: Snapshot, final: bool,
                             warnings: list[str]) -> None:
        if self.follower.stopped:
            return
        if snapshot.indexing and not final:
            self._post_progress(snapshot, warnings)
            return
        if not self.is_running:  # the app is shutting down
            self.follower.stop()
            return
        try:
            self.call_from_thread(self._publish, snapshot, final, warnings)
        except Exception:
            if self.is_running:
                raise  # a pane failed on new data: the worker ends and the error is shown
            self.follower.stop()

    def _post_progress(self, snapshot: Snapshot, warnings: list[str]) -> None:
        """A progress snapshot, sent from inside `DebugLogdir.update()` (which holds the
        reader's lock): it must never wait for the UI thread, which may itself be waiting
        for that lock (a pane's diagnosis) — that was a deadlock. So it is handed over
        without waiting; snapshots the UI has not taken yet are replaced by the newest."""
        with self._pending_lock:
            posted = self._pending is not None
            self._pending = (snapshot, [*(self._pending[1] if self._pending else []),
                                        *warnings])
        if not posted and not self.post_message(IndexProgress()):
            with self._pending_lock:
                self._pending = None

    def on_index_progress(self, _: IndexProgress) -> None:
        with self._pending_lock:
            pending, self._pending = self._pending, None
        if pending is not None and not self.indexed.is_set():  # never after the final one
            self._publish(pending[0], False, pending[1])

    def _publish(self, snapshot: Snapshot, final: bool, warnings: list[str]) -> None:
        self.state.snapshot = snapshot
        try:
            for message in notices(warnings):
                self.notify(lit(message), severity="warning", timeout=10, markup=False)
            if self.main is not None and self.main.is_mounted:
                self.main.on_data(final)
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
