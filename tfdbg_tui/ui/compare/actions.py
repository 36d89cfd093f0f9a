"""The main screen's compare mode: receiving the comparison, `d`/`D`, and `b` (run B's side).

A mixin of `MainScreen`, kept apart so the screen stays short and a run opened without
`--compare` carries nothing but two attributes. See `view` for what is shown.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual.events import Key
from textual.widgets import Static

from reader import EAGER, GRAPH
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import ACTION_KEYS, COMPARE_ACTIONS
from tfdbg_tui.ui.compare.plot import plot_text
from tfdbg_tui.ui.compare.view import (
    CHIP_WIDTH,
    CompareView,
    OtherSide,
    other_side,
    placed_lines,
)
from tfdbg_tui.ui.header import VERDICT_STYLE

if TYPE_CHECKING:
    from tfdbg_tui.ui.main_screen import MainScreen

NO_COMPARISON = "no comparison: open with  tfdbg-tui A --compare B"


class CompareActions:
    """`compare_view` is set once run B is compared; `show_b` is the `b` toggle."""

    compare_view: CompareView | None = None
    compare_error: str | None = None  # why comparing failed (the header says so)
    show_b: bool = False
    _opened_on: tuple[int, int] | None = None  # the divergence compare mode opened on
    _verdict_row: str | None = None  # the verdict shown on a row of its own, if any

    @property
    def _s(self) -> MainScreen:
        return cast("MainScreen", self)

    def on_comparison(self, view: CompareView | None, error: str | None = None) -> None:
        """A comparison finished (in the indexing worker): show the column and say so.
        A live run A is compared again as it grows: the column and header then follow,
        and the toast comes again only when the verdict (equivalent, diverge…) changed."""
        if view is None:
            if error != self.compare_error:
                self._s.notify(lit(f"compare: {error}"), severity="error", timeout=10,
                               markup=False)
            self.compare_error = error or "unknown error"
            self._s._update_header()
            return
        before, self.compare_view, self.compare_error = self.compare_view, view, None
        self._s.ge.set_chip(view.chip, CHIP_WIDTH)
        if view.compares_executions():  # an eager run A: its Timeline rows get =/≠ too
            self._s.timeline.set_chip(view.execution_chip, CHIP_WIDTH)
        if before is None or before.c.verdict != view.c.verdict:
            self._s.notify(view.summary(), timeout=8, markup=False)
        self._s._update_header()  # the header keeps saying "vs B: verdict" once it is gone
        self.update_plot()
        if before is None:
            self._s.refresh_bindings()  # d/D and b join the footer
            self._open_on_first_divergence(view)

    def _open_on_first_divergence(self, view: CompareView) -> None:
        """Compare mode opens where the runs first differ: the pane holding it focused, its
        row selected and followed (stack, source) — what `d` from the top does."""
        s = self._s
        if not len(view.c.divergent_rows("a", GRAPH)) and not len(
                view.divergent_executions()):
            return  # equivalent, or nothing aligned: the header and the toast say so
        if view.in_timeline(False, None):
            execution = self._next_execution(view, 1)
            if execution is not None:
                self._opened_on = (EAGER, execution)
            return
        row = view.next_row(None, 1)
        if row is not None:
            s.show_trace(row, select=True, focus=True)
            self._opened_on = (GRAPH, row)

    def _still_on_opening(self, view: CompareView) -> bool:
        """Is the selection still the first divergence compare mode opened on? Then the first
        `d` stays there (and says so): "d from the top lands on the first divergence" holds
        whether or not the opening already went there."""
        opened, self._opened_on = self._opened_on, None
        if opened is None:
            return False
        s = self._s
        kind, index = opened
        here = s.ge.selected if kind == GRAPH else s.timeline.selected
        if here != index:
            return False
        if kind == GRAPH:
            s.show_trace(index, select=True, focus=True)
        else:
            s.focus_pane(s.timeline)
            s.show_execution(index, select=False)
        s.notify("the first divergence (compare mode opened on it); d again: the next",
                 markup=False)
        return True

    def show_verdict_row(self, verdict: str | None) -> None:
        """The verdict on a row of its own under the header, wrapped, when the header line
        cannot hold it whole (`header.place_verdict`); hidden otherwise. Its text is the
        header's compare part, already sanitized (`status.compare_status`)."""
        row = self._s.query_one("#compare-verdict", Static)
        if verdict is not None and verdict != self._verdict_row:  # refitted every 5 s
            row.update(Text(verdict, VERDICT_STYLE))
        self._verdict_row = verdict
        row.set_class(verdict is not None, "-shown")

    def update_plot(self) -> None:
        """The loss plot under the header (`plot`): shown once a comparison of two
        training runs is in, redrawn to the screen's width (one row in the narrow layout)."""
        view = self.compare_view
        plot = self._s.query_one("#compare-plot", Static)
        text = plot_text(view.series if view is not None else None,
                         self._s.size.width - 2, self._s.has_class("-narrow"))
        plot.set_class(text is not None, "-shown")
        if text is not None:
            plot.update(text)

    def action_next_divergence(self, delta: int) -> None:
        """Select the next (previous) tensor of Graph Executions — or of the Timeline, when run
        A's divergences are eager ops — that differs from run B."""
        view = self.compare_view
        if view is None:
            self._s.notify(NO_COMPARISON if not self._comparing() else
                           "still comparing with run B…", markup=False)
            return
        s = self._s
        if delta > 0 and self._still_on_opening(view):
            return
        if view.in_timeline(s.current_pane() is s.timeline, s.ge.selected):
            self._next_execution(view, delta)
            return
        row = view.next_row(self._s.ge.selected, delta)
        if row is None:
            self._s.notify("no more divergences" if delta > 0 else
                           "this is the first divergence", markup=False)
            return
        self._s.show_trace(row, select=True, focus=True)

    def _next_execution(self, view: CompareView, delta: int) -> int | None:
        """`d`/`D` in the Timeline: run A's eager ops that differ from run B."""
        s = self._s
        if not len(view.divergent_executions()):
            s.notify("no eager op of run A differs from run B (the Timeline has none to "
                     "jump to)", markup=False)
            return None
        on_timeline = s.current_pane() is s.timeline
        execution = view.next_execution(s.timeline.selected if on_timeline else None, delta)
        if execution is None:
            s.notify("no more divergences" if delta > 0 else "this is the first divergence",
                     markup=False)
            return None
        if not s.timeline.goto(execution):
            s.notify(f"eager execution #{execution} is not in the Timeline (not read yet)",
                     markup=False)
            return None
        s.focus_pane(s.timeline)
        s.show_execution(execution, select=False)
        return execution

    def action_toggle_side(self) -> None:
        """Stack Trace and Source Code: run B's side of the selected tensor, or back to A."""
        if self.compare_view is None:
            self._s.notify(NO_COMPARISON, markup=False)
            return
        self.show_b = not self.show_b
        self._s.notify("Stack Trace and Source Code: run B" if self.show_b else
                       "Stack Trace and Source Code: run A", markup=False)
        target = self._s.selected_tensor()
        if target is not None:
            kind, index, _ = target
            self._s.follow(kind, index)
        else:
            self._s.source.use_logdir(None)

    def show_side(self, kind: int, index: int) -> bool:
        """Compare mode's Stack Trace and Source Code for tensor (kind, index): with `b` on,
        run B's side; on either side, the lines `diff` prints for it (`placed_lines`: the
        line constructing the loss, schedule, optimizer or layer, the stack applying or
        calling it). False (and Source Code back on run A) when neither applies."""
        s = self._s
        view = self.compare_view
        if view is None or not self.show_b:
            s.source.use_logdir(None)
            return view is not None and self._show_placed(view, "a", kind, index)
        got = other_side(view, kind, index)
        if not isinstance(got, OtherSide):
            s.stack.show_frames([], got)
            s.source.use_logdir(None)
            s.source.view.set_source(None, 0, got)
            return True
        s.source.use_logdir(got.logdir)
        if self._show_placed(view, "b", kind, index):  # diff's lines, not the read's own
            return True
        frame = s.stack.show_frames(got.frames, got.what)
        if frame is not None:
            s.source.show_frame(frame)
        else:
            s.source.view.set_source(None, 0, "no stack recorded for this tensor in run B")
        return True

    def _show_placed(self, view: CompareView, side: str, kind: int, index: int) -> bool:
        """The tensor's lines on `side` as `diff` prints them, when they are not its own
        stack and user line: Stack Trace shows the stack applying or calling what made it
        (its line ▶), Source Code the line to change (the line creating a schedule, an
        optimizer or a layer). False otherwise (then the caller shows its own stack)."""
        got = placed_lines(view, side, kind, index)
        if got is None:
            return False
        s = self._s
        name = "B" if side == "b" else "A"
        frame = s.stack.show_frames(got.frames, f"{name}: {got.title}", what_first=True)
        if got.source is not None:
            s.stack.select_frame(got.source)  # when the stack holds it (TF1: one line)
            s.hold_source_line()  # the Stack Trace's own request must not drop `why`
            s.source.show_frame(got.source, f"{name}: {got.why}" if got.why else "")
        elif frame is not None:
            s.source.show_frame(frame, f"{name}: {got.why}" if got.why else "")
        else:
            s.source.view.set_source(None, 0, f"no stack recorded for this tensor in run {name}")
        return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """d/D/b are offered (footer) only in compare mode; without it a press still says
        why (`on_key`)."""
        if action in COMPARE_ACTIONS:
            return self._comparing()
        return True

    def on_key(self, event: Key) -> None:
        """A compare key pressed without `--compare` (its binding is off): say why."""
        if self._comparing():
            return
        user = getattr(self._s.app, "user_keymap", None)
        for spec in ACTION_KEYS:
            action = spec.action.split("(")[0]
            if action not in COMPARE_ACTIONS:
                continue
            keys = user.keys.get(spec.id, spec.keys) if user is not None else spec.keys
            if event.key in keys.split(","):
                event.stop()
                self._s.notify(NO_COMPARISON, markup=False)
                return

    def _comparing(self) -> bool:
        return getattr(self._s.app, "compare_with", None) is not None
