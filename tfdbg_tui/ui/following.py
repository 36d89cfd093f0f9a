"""The main screen's "follow": one request from a pane becomes the whole picture.

A mixin of `MainScreen`, kept apart so the screen module stays short. Panes post
`ShowTrace`, `ShowExecution`, `ShowFrame` and `FollowAlert`; each is turned into the full
follow — select the tensor, show its op's structure, its stack with the user frame selected,
and that frame's line in Source Code. Cursor moves are debounced (`DEBOUNCE`) so scrolling
through a million rows only redraws the list; `n`/`N` and `o` are follows too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, cast

from textual.timer import Timer

from reader import EAGER, GRAPH, ReaderError
from reader.diagnosis.functions import function_label
from reader.index.frames import Frame
from tfdbg_tui.core.journey import enclosing_call
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.panes.alerts import origin_of
from tfdbg_tui.ui.panes.base import FollowAlert, ShowExecution, ShowFrame, ShowTrace

if TYPE_CHECKING:
    from tfdbg_tui.ui.main_screen import MainScreen

DEBOUNCE = 0.12  # seconds a cursor must rest before the other panes follow it


class Following:
    """The follow handlers and actions of `MainScreen` (which it must be mixed into)."""

    # a debounced request: (is it a frame?, what to do when the cursor rests)
    _pending: tuple[bool, Callable[[], None]] | None = None
    _timer: Timer | None = None

    @property
    def _s(self) -> MainScreen:
        return cast("MainScreen", self)

    def on_follow_alert(self, message: FollowAlert) -> None:
        self.follow_alert(message.position)

    def follow_alert(self, position: int) -> None:
        """Follow alert `position`: its tensor, op, stack and source line."""
        a = self._s.alerts.alerts
        if not 0 <= position < len(a):
            return
        kind, index = int(a.kind[position]), int(a.index[position])
        self.follow(kind, index)
        self._s.want_fix(position, kind, index)  # then Source Code on the line to change

    def follow(self, kind: int, index: int) -> None:
        if kind == GRAPH:
            self.show_trace(index, select=True)
        else:
            self.show_execution(index, select=True)

    def _debounce(self, action: Callable[[], None], *, frame: bool = False) -> None:
        """Run `action` once the cursor rests. A frame request never replaces a pending
        trace or execution request (which shows a frame of its own)."""
        if frame and self._pending is not None and not self._pending[0]:
            return
        self._pending = (frame, action)
        if self._timer is not None:
            self._timer.stop()
        self._timer = self._s.set_timer(DEBOUNCE, self._fire)

    def _fire(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending[1]()

    def on_show_trace(self, message: ShowTrace) -> None:
        if message.immediate:
            self.show_trace(message.index, select=message.select, focus=message.focus)
        else:
            self._debounce(lambda: self.show_trace(message.index, select=message.select))

    def on_show_execution(self, message: ShowExecution) -> None:
        if message.immediate:
            self.show_execution(message.index, select=message.select)
        else:
            self._debounce(lambda: self.show_execution(message.index, select=message.select))

    def on_show_frame(self, message: ShowFrame) -> None:
        """A Stack Trace frame to show. The followed tensor's fix frame keeps its "line to
        change" (a selection arriving after `o` had shown it unnamed)."""
        def show() -> None:
            self._s.source.show_frame(message.frame, self._s.fix_why(message.frame))

        if message.immediate:
            show()
        elif not self._s.stale_frame_request(message.frame):
            self._debounce(show, frame=True)

    def show_trace(self, index: int, *, select: bool = True, focus: bool = False) -> None:
        """Graph trace `index` everywhere: Graph Executions, Structure, Stack, Source."""
        if self._timer is not None and select:
            self._timer.stop()
        self._s.forget_stale_frame()
        if select and not self._s.ge.goto(index):
            return
        logdir = self._s.state.logdir
        self._s.structure.show_trace(index)
        self._s.ge.mark_inputs(self._s.structure.input_traces())
        self._show_call(index)
        if not self._s.show_side(GRAPH, index):  # compare mode can show run B's side instead
            op = logdir.op_of_trace(index)
            frames = logdir.op_stack(op) if op is not None else []
            frame = self._s.stack.show_frames(frames, f"created {logdir.trace_name(index)}")
            self._show_source(self._s.fix_or(GRAPH, index, frame))
        if focus:
            self._s.focus_pane(self._s.ge)

    def _show_call(self, trace: int) -> None:
        """The Timeline moves to the tf.function call (a training step's) holding the trace,
        without following it (what the other panes show stays the trace's)."""
        timeline = self._s.timeline
        if self._s.current_pane() is timeline:
            return  # the user is walking the Timeline: leave its cursor alone
        call = enclosing_call(self._s.state.logdir, self._s.state.snapshot.executions, trace)
        if call is not None:
            timeline.vlist.select_index(call, center=True, announce=False)

    def show_execution(self, index: int, *, select: bool = True) -> None:
        """Eager execution `index` everywhere: Timeline, Structure, Stack, Source."""
        if self._timer is not None and select:
            self._timer.stop()
        self._s.forget_stale_frame()
        if select and not self._s.timeline.goto(index):
            return
        logdir = self._s.state.logdir
        self._s.structure.show_execution(index)
        self._s.ge.mark_inputs(frozenset())
        if self._s.show_side(EAGER, index):  # compare mode: run B's side
            return
        try:
            record = logdir.read_execution(index)
        except ReaderError as exc:
            self._s.notify(lit(str(exc)), severity="error", markup=False)
            return
        frames = logdir.stack(record.stack_frame_ids)
        frame = self._s.stack.show_frames(frames, f"ran {function_label(record.op_type)}")
        self._show_source(self._s.fix_or(EAGER, index, frame))

    def _show_source(self, frame: Frame | None) -> None:
        if frame is not None:
            self._s.source.show_frame(frame, self._s.fix_why(frame))
        else:
            self._s.source.view.set_source(None, 0, "no stack recorded for this tensor")
            self._s.source.set_status("")

    def action_next_alert(self, delta: int) -> None:
        """`n` / `N`: the next / previous alert as the Alerts pane shows them (by incident
        once grouped: its headers and folded alerts skipped), followed."""
        alerts = self._s.alerts
        vl = alerts.vlist
        if not vl.row_count:
            self._s.notify("no alerts", markup=False)
            return
        pos = alerts.next_alert_position(delta)
        if pos is None:
            self._s.notify("no more alerts" if delta > 0 else "this is the first alert",
                           markup=False)
            return
        alerts.hold_selection()  # the user's choice from now on
        vl._set_cursor_position(pos)
        if vl.cursor_index is not None:
            self.follow_alert(vl.cursor_index)

    def action_jump_origin(self) -> None:
        d = self._s.alerts.diagnosis
        if d is None:
            self._s.notify("no diagnosis for the selected alert (yet)", markup=False)
            return
        kind, index = origin_of(d)
        self.follow(kind, index)
        position = self._s.alerts.diagnosed
        if position is not None:  # Source Code on the line this diagnosis says to change,
            # as Enter on the alert showed it (else the origin op's own line, unnamed: the
            # held-out NaN journey's `tape.gradient` line for a gradient whose forward op's
            # line is the one to change, the loss's line where the learning rate is)
            self._s.want_fix(position, kind, index)
        # the origin is what is selected now: its pane takes the focus, so that `v`, `y`
        # and the arrows act on it rather than on the alert it was found from
        self._s.focus_pane(self._s.ge if kind == GRAPH else self._s.timeline)
