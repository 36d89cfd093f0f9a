"""The main screen: the registered panes, the header line, and the coordination between panes.

The panes come from the registry (`panes.registry`): their layout areas, focus keys, tab
line and help sections are built from it. Panes post requests (`ShowTrace`,
`ShowExecution`, `ShowFrame`, `FollowAlert`); the `Following` mixin (`following.py`)
turns each into the full "follow"; this module lays the panes out, keeps the header and
tab line current, and tells the `FirstAlert` mixin (`first_alert.py`) of new alerts: it
follows the first alert at launch, and again while the user has not moved.
"""

from __future__ import annotations

from typing import ClassVar, TypeVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.events import DescendantFocus, Resize
from textual.screen import Screen
from textual.widgets import ProgressBar, Static
from textual.worker import get_current_worker

from reader import EAGER, GRAPH, Alerts, ReaderError
from tfdbg_tui.core.journey import Journey, compute_journey
from tfdbg_tui.core.model import AppState
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import ACTION_KEYS, NAV_KEYS, KeySpec, to_bindings
from tfdbg_tui.ui.compare.actions import CompareActions
from tfdbg_tui.ui.compare.status import compare_status
from tfdbg_tui.ui.dialogs import HelpScreen, PromptBar, TextScreen
from tfdbg_tui.ui.first_alert import FirstAlert
from tfdbg_tui.ui.fix_actions import FixActions
from tfdbg_tui.ui.following import Following
from tfdbg_tui.ui.footer import TfdbgFooter
from tfdbg_tui.ui.header import HeaderLine, header_layout
from tfdbg_tui.ui.help_keys import help_sections
from tfdbg_tui.ui.inspector.inspector import ValueInspector
from tfdbg_tui.ui.panes.alerts import AlertsPane
from tfdbg_tui.ui.panes.base import (
    ListPane,
    Pane,
)
from tfdbg_tui.ui.panes.graph_executions import GraphExecutionsPane
from tfdbg_tui.ui.panes.graph_structure import GraphStructurePane
from tfdbg_tui.ui.panes.registry import LAYOUT, focus_keys, registered_panes
from tfdbg_tui.ui.panes.source import SourcePane
from tfdbg_tui.ui.panes.stack import StackPane
from tfdbg_tui.ui.panes.timeline import TimelinePane

ACTIVITY_EVERY = 5.0  # seconds between checks of whether the logdir still grows
NARROW_WIDTH, NARROW_HEIGHT = 120, 32
PANES = registered_panes()
# Every key bound on the main screen, in help order; the palette offers them too.
SCREEN_KEYS: tuple[KeySpec, ...] = (*NAV_KEYS, *focus_keys(PANES), *ACTION_KEYS)
P = TypeVar("P", bound=Pane)


class MainScreen(FirstAlert, Following, FixActions, CompareActions, Screen[None]):
    """Alerts, Timeline over Graph Structure, Graph Executions; Source Code and Stack Trace."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(SCREEN_KEYS)]
    ALLOW_IN_MAXIMIZED_VIEW = "#top-bar, TfdbgFooter"

    def __init__(self, state: AppState, display_path: str) -> None:
        super().__init__()
        self.state = state
        self.display_path = display_path
        self.zoomed = False
        self._pending = None  # a debounced follow (see Following)
        self._timer = None
        self.panes: list[Pane] = [spec.widget(state, id=spec.dom_id) for spec in PANES]
        self._journey_for: object = None  # the alert list the journey was asked for
        self._journey_busy = False  # a finding is running (one at a time: `_ask_journey`)

    def pane_of(self, kind: type[P]) -> P:
        """The pane of class `kind` (the panes this screen coordinates by name)."""
        return next(p for p in self.panes if isinstance(p, kind))

    @property
    def alerts(self) -> AlertsPane:
        return self.pane_of(AlertsPane)

    @property
    def timeline(self) -> TimelinePane:
        return self.pane_of(TimelinePane)

    @property
    def ge(self) -> GraphExecutionsPane:
        return self.pane_of(GraphExecutionsPane)

    @property
    def structure(self) -> GraphStructurePane:
        return self.pane_of(GraphStructurePane)

    @property
    def source(self) -> SourcePane:
        return self.pane_of(SourcePane)

    @property
    def stack(self) -> StackPane:
        return self.pane_of(StackPane)

    def compose(self) -> ComposeResult:
        with Vertical(id="top-bar"):
            with Horizontal(id="header-row"):
                yield HeaderLine(Text("tfdbg-tui"), id="header-line", markup=False)
                yield ProgressBar(total=None, show_eta=False, id="progress")
                yield PromptBar(id="prompt")
            yield Static(Text(""), id="compare-verdict", markup=False)  # when the line is short
            yield Static(Text(""), id="pane-tabs", markup=False)
            yield Static(Text(""), id="compare-plot", markup=False)  # compare mode's losses
        with Vertical(id="panes"):
            for row, areas in LAYOUT:
                with Horizontal(id=row):
                    for area in areas:
                        members = [p for p in self.panes if p.SPEC.area == area]
                        if members:
                            with Vertical(id=area, classes="area"):
                                yield from members
        yield TfdbgFooter()

    @property
    def prompt(self) -> PromptBar:
        return self.query_one(PromptBar)

    def on_mount(self) -> None:
        self.alerts.focus_target.focus()
        self._update_header()
        self._check_narrow()
        self.set_interval(ACTIVITY_EVERY, self._update_header)  # "live" → "last grew …"
        # a snapshot published before we were mounted (a tiny logdir indexes that fast)
        snap = self.state.snapshot
        if snap.traces or snap.executions or not snap.indexing:
            self.on_data(final=not snap.indexing)

    # ------------------------------------------------------------------ data
    def on_data(self, final: bool) -> None:
        """A new snapshot was published by the indexing/follow worker."""
        first_alerts = not len(self.alerts.alerts) and len(self.state.snapshot.alerts)
        self.before_new_alerts()
        for pane in self.panes:
            pane.on_data()
        self.after_new_alerts()  # an earlier alert arrived: followed while the user has not moved
        if final:  # op types resolved late may change rows already drawn
            for pane in self.panes:
                pane.on_indexed()
            self.earlier_alert_found()
        if not self.state.snapshot.indexing and self._journey_for is not (
                self.state.snapshot.alerts):
            self._ask_journey()
        if first_alerts:
            self.first_alerts_arrived()
        self._update_header()

    def _ask_journey(self) -> None:
        """Find the steps and incidents of the latest alerts — one finding at a time: while
        one runs, a grown list waits for it to land (`_show_journey` asks again). Why not a
        new finding per snapshot, the old one cancelled: a run whose snapshots come faster
        than its incidents are found would never see one land (each dropped for a newer
        list, the "new, not yet grouped" alerts growing until the run paused)."""
        if self._journey_busy:
            return
        self._journey_busy = True
        self._journey_for = self.state.snapshot.alerts
        self._find_journey(self.state.snapshot.alerts)

    @work(thread=True, exclusive=True, group="journey")
    def _find_journey(self, alerts: Alerts) -> None:
        """Steps and incidents of the alerts (`core.journey`), off the UI thread: finding
        incidents diagnoses a few alerts."""
        worker = get_current_worker()
        try:  # as the Alerts pane's diagnosis: rows below the snapshot's counts never change
            found = compute_journey(self.state.logdir, alerts)
        except ReaderError as exc:
            self.app.call_from_thread(self._journey_failed, lit(f"steps and incidents: {exc}"))
            return
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_journey, found)

    def _journey_failed(self, message: str) -> None:
        self._journey_busy = False  # (asked again when the alerts change)
        self.notify(message, severity="warning", markup=False)

    def _show_journey(self, found: Journey) -> None:
        """Show what was found — also when the run grew meanwhile: the Alerts pane lays its
        groups over the grown list (`AlertRows.on_journey_found`) — then find the grown
        list's, if it grew."""
        self._journey_busy = False
        self.state.journey = found
        try:
            for pane in self.panes:
                pane.on_journey()
            self._update_header()
        except NoMatches:  # the app is closing (`q` while incidents were being found): its
            return  # panes' lists are already gone, and nothing is left to show them on
        snap = self.state.snapshot
        if not snap.indexing and found.alerts is not snap.alerts:
            self._ask_journey()

    def _update_header(self) -> None:
        logdir, snap = self.state.logdir, self.state.snapshot
        follow = bool(getattr(self.app, "follow", True))
        other = getattr(self.app, "compare_with", None)
        view = self.compare_view
        compare = compare_status(other.path if other is not None else None,
                                 view.c if view is not None else None, self.compare_error)
        bar = self.query_one("#progress", ProgressBar)
        line = self.query_one("#header-line", Static)
        width = line.content_region.width or (
            self.size.width - 4 - (bar.outer_size.width if snap.indexing else 0))
        journey = self.state.journey
        t, verdict = header_layout(
            logdir, snap, self.display_path, max(20, width - 1), follow,
            stopped=getattr(self.app, "read_error", None), compare=compare,
            steps=journey.headline() if journey is not None else None)
        line.update(t, layout=False)  # one line, its width set by the row: never a layout
        self.show_verdict_row(verdict)
        bar.set_class(not snap.indexing, "-done")  # the line's width follows: `HeaderLine`
        if snap.indexing and snap.total_bytes:
            bar.update(total=snap.total_bytes, progress=snap.done_bytes)
        self._update_tabs()

    def _update_tabs(self) -> None:
        t = Text(no_wrap=True)
        current = self.current_pane()
        for pane in self.panes:
            style = "bold reverse" if pane is current else "dim"
            t.append(f" {pane.number} {pane.SHORT} ", style)
        self.query_one("#pane-tabs", Static).update(t, layout=False)  # one line, full width

    # ------------------------------------------------------------------ focus & layout
    def current_pane(self) -> Pane | None:
        node: DOMNode | None = self.focused
        while node is not None and not isinstance(node, Pane):
            node = node.parent
        return node if isinstance(node, Pane) else None

    def focus_pane(self, pane: Pane) -> None:
        if self.maximized is not None:
            self.maximize(pane, container=False)
        pane.focus_target.focus()
        self._update_tabs()

    def action_focus_pane(self, number: int) -> None:
        """Focus the pane registered under `number` (its key)."""
        pane = next((p for p in self.panes if p.number == number), None)
        if pane is not None:
            self.focus_pane(pane)

    def action_focus_pane_delta(self, delta: int) -> None:
        cur = self.current_pane()
        k = self.panes.index(cur) if cur in self.panes else 0
        self.focus_pane(self.panes[(k + delta) % len(self.panes)])

    def action_zoom(self) -> None:
        self.zoomed = not self.zoomed
        self._apply_zoom()

    def _apply_zoom(self) -> None:
        narrow = self.has_class("-narrow")
        pane = self.current_pane() or self.alerts
        if self.zoomed or narrow:
            self.maximize(pane, container=False)
        else:
            self.minimize()
        pane.focus_target.focus()  # its list keeps the selected row in view when resized
        self._update_tabs()

    def on_resize(self, event: Resize) -> None:
        self._check_narrow()
        self._update_header()
        self.update_plot()

    def _check_narrow(self) -> None:
        narrow = self.size.width < NARROW_WIDTH or self.size.height < NARROW_HEIGHT
        if narrow != self.has_class("-narrow"):
            self.set_class(narrow, "-narrow")
            self._apply_zoom()
            self._update_header()

    def on_descendant_focus(self, event: DescendantFocus) -> None:
        self._update_tabs()
        self.focus_moved(event.widget)

    # ------------------------------------------------------------------ actions
    def action_show_details(self) -> None:
        """`i`: the selected alert's whole diagnosis and every warning, never cut; on Graph
        Structure, its rows whole (long names are cut in the middle there)."""
        if self.current_pane() is self.structure and self.structure.rows:
            self.app.push_screen(TextScreen("Graph Structure", self.structure.whole_text()))
            return
        self.app.push_screen(TextScreen("Diagnosis and warnings", self.alerts.whole_text()))

    def selected_tensor(self) -> tuple[int, int, int] | None:
        """(kind, index, slot) of the tensor under the cursor (Timeline or Graph Executions)."""
        if self.current_pane() is self.timeline and self.timeline.selected is not None:
            return EAGER, self.timeline.selected, 0  # the first output (slot 0) if any
        if self.current_pane() is self.alerts and self.alerts.selected_alert():
            return self.alerts.selected_alert()
        if self.ge.selected is not None:
            i = self.ge.selected
            return GRAPH, i, int(self.state.logdir.traces.slot[i])
        return None

    def action_inspect_values(self) -> None:
        target = self.selected_tensor()
        if target is None:
            self.notify("select a tensor first (Graph Executions or Timeline)", markup=False)
            return
        self.app.push_screen(ValueInspector(self.state.logdir, *target))

    def list_target(self, action: str) -> ListPane:
        """The list `/` ("filter"), `a` ("toggle_only_bad") and `g` ("goto") act on: the
        focused pane when it can, else Graph Executions (help says which: `help_keys`)."""
        pane = self.current_pane()
        if not isinstance(pane, ListPane):
            return self.ge
        if (action == "filter" and not pane.supports_filter) or (
                action == "toggle_only_bad" and not pane.supports_only_bad):
            return self.ge
        return pane

    def action_filter(self) -> None:
        self.list_target("filter").ask_filter(self.prompt)

    def action_toggle_only_bad(self) -> None:
        pane = self.list_target("toggle_only_bad")
        on = pane.toggle_only_bad()
        self.notify(f"{pane.TITLE}: {'only NaN/∞ rows' if on else 'all rows'}", markup=False)

    def action_goto(self) -> None:
        self.list_target("goto").ask_goto(self.prompt)

    def action_help(self) -> None:
        """The keys that work in the focused pane, then everywhere (`help_keys`)."""
        pane = self.current_pane()
        where = f"in {pane.TITLE}" if pane is not None else "here"
        numbers = f"1–{len(self.panes)}"
        title = (f"tfdbg-tui — the keys {where} (Esc closes; each pane has keys of its own: "
                 f"focus one with {numbers} or Tab, then ? again)")
        self.app.push_screen(HelpScreen(title, help_sections(self)))

    def action_quit(self) -> None:
        self.app.exit()
