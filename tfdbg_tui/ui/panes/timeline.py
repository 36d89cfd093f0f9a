"""Python Execution Timeline: every eager op and tf.function call, in order.

Rows show each output's health; Enter on a tf.function call jumps to the first graph trace
the call produced, Enter on an eager op shows where it ran.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual.app import ComposeResult

from tfdbg_tui.core import model
from tfdbg_tui.ui.panes.base import ListPane, ShowExecution, ShowTrace
from tfdbg_tui.ui.render import execution_row
from tfdbg_tui.ui.vlist import VirtualList


class TimelinePane(ListPane):
    """The list of eager executions."""

    TITLE = "Python Execution Timeline"
    SHORT = "Timeline"
    number = 2
    supports_only_bad = True

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._shown = 0
        self._bad = np.zeros(0, dtype=bool)
        self._view: np.ndarray | None = None

    def compose(self) -> ComposeResult:
        yield VirtualList(self._row, empty="no eager executions (yet)", id="tl-list")

    def _row(self, i: int, width: int) -> Text:
        snap = self.state.snapshot
        bad = bool(self._bad[i]) if i < len(self._bad) else False
        return execution_row(self.state.logdir, i, width, snap.executions, snap.outputs, bad)

    @property
    def selected(self) -> int | None:
        return self.vlist.cursor_index

    def on_data(self) -> None:
        snap = self.state.snapshot
        if snap.executions == self._shown:
            return
        self._bad = model.execution_bad(self.state.logdir, snap.executions, snap.outputs)
        if self.pattern or self.only_bad:
            fresh = model.execution_rows(self.state.logdir, self._shown, snap.executions,
                                         snap.outputs, self.matcher, self.only_bad)
            base = self._view if self._view is not None else np.zeros(0, dtype=np.int64)
            self._view = np.concatenate([base, fresh])
        self._shown = snap.executions
        self.vlist.set_rows(snap.executions, self._view)
        self._status()

    def refilter(self) -> None:
        snap = self.state.snapshot
        self._shown = snap.executions
        if self.pattern or self.only_bad:
            self._view = model.execution_rows(self.state.logdir, 0, snap.executions,
                                              snap.outputs, self.matcher, self.only_bad)
        else:
            self._view = None
        self.vlist.set_rows(snap.executions, self._view)
        self._status()

    def _status(self) -> None:
        n = self.state.snapshot.executions
        shown = self.vlist.row_count
        text = f"{n:,} executions" if shown == n else f"{shown:,} of {n:,} executions"
        extra = self.filter_status()
        self.set_status(f"{text} · {extra}" if extra else text)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        if event.index is not None:
            self.post_message(ShowExecution(event.index, select=False, immediate=False))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        snap = self.state.snapshot
        first = model.first_trace_of_call(self.state.logdir, snap.traces, snap.executions,
                                          event.index)
        if first is not None:
            self.post_message(ShowTrace(first, focus=True))
        else:
            self.post_message(ShowExecution(event.index, select=False))
            if int(self.state.logdir.executions.graph_id[event.index]) >= 0:
                self.notify("this tf.function call produced no graph traces "
                            "(not instrumented, or not written yet)", markup=False)
