"""Graph Executions: every tensor computed inside tf.functions, in order, with its health.

The centre of the hunt and the pane that must stay fast at a million rows: the list is a
`VirtualList` over the reader's trace columns, the filter is a numpy index array extended
incrementally as live rows arrive, and rows feeding the selected tensor are marked.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual.app import ComposeResult

from tfdbg_tui.core import model
from tfdbg_tui.ui.panes.base import ListPane, ShowTrace
from tfdbg_tui.ui.render import trace_row
from tfdbg_tui.ui.vlist import VirtualList


class GraphExecutionsPane(ListPane):
    """The list of graph execution traces."""

    TITLE = "Graph Executions"
    SHORT = "Graph Executions"
    number = 3
    supports_only_bad = True

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._shown = 0  # traces covered by the current view
        self._view: np.ndarray | None = None
        self._inputs: frozenset[int] = frozenset()

    def compose(self) -> ComposeResult:
        yield VirtualList(self._row, empty="no graph executions (yet)", id="ge-list")

    def _row(self, i: int, width: int) -> Text:
        marker = "›" if i in self._inputs else " "
        return trace_row(self.state.logdir, i, width, self.state.snapshot.traces, marker)

    @property
    def selected(self) -> int | None:
        return self.vlist.cursor_index

    def mark_inputs(self, rows: frozenset[int]) -> None:
        """Mark the traces that fed the selected tensor."""
        self._inputs = rows
        self.vlist.set_marked(rows)
        self.vlist.invalidate()

    def on_data(self) -> None:
        n = self.state.snapshot.traces
        if n == self._shown:
            return
        if self.pattern or self.only_bad:
            fresh = model.trace_rows(self.state.logdir, self._shown, n, self.matcher,
                                     self.only_bad)
            base = self._view if self._view is not None else np.zeros(0, dtype=np.int64)
            self._view = np.concatenate([base, fresh])
        grew_digits = len(str(max(n - 1, 0))) != len(str(max(self._shown - 1, 0)))
        self._shown = n
        self.vlist.set_rows(n, self._view, content_changed=grew_digits)
        self._status()

    def refilter(self) -> None:
        n = self.state.snapshot.traces
        self._shown = n
        if self.pattern or self.only_bad:
            self._view = model.trace_rows(self.state.logdir, 0, n, self.matcher, self.only_bad)
        else:
            self._view = None
        self.vlist.set_rows(n, self._view)
        self._status()

    def _status(self) -> None:
        n = self.state.snapshot.traces
        shown = self.vlist.row_count
        text = f"{n:,} tensors" if shown == n else f"{shown:,} of {n:,} tensors"
        extra = self.filter_status()
        self.set_status(f"{text} · {extra}" if extra else text)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        if event.index is not None:
            self.post_message(ShowTrace(event.index, select=False, immediate=False))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self.post_message(ShowTrace(event.index, select=False))
