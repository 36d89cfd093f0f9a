"""Graph Executions: every tensor computed inside tf.functions, in order, with its health.

The centre of the hunt and the pane that must stay fast at a million rows: the list is a
`VirtualList` over the reader's trace columns, the filter is a numpy index array extended
incrementally as live rows arrive, and rows feeding the selected tensor are marked.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from rich.text import Text
from textual.app import ComposeResult

from tfdbg_tui.core import model
from tfdbg_tui.core.names import row_host, short_device
from tfdbg_tui.ui.panes.base import ShowTrace, TableListPane
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.render import trace_row
from tfdbg_tui.ui.vlist import VirtualList


@register_pane(3, "graph_executions", "Graph Executions", short="Graph Executions",
               area="top-right")
class GraphExecutionsPane(TableListPane):
    """The list of graph execution traces."""


    NOUN = "tensors"

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._inputs: frozenset[int] = frozenset()
        self._devices: set[int] = set()  # device string ids seen in the rows so far
        self._chip: tuple[Callable[[int], Text], int] | None = None  # compare column

    def compose(self) -> ComposeResult:
        yield VirtualList(self._row, empty="no graph executions (yet)", id="ge-list")

    def _row(self, i: int, width: int) -> Text:
        marker = "›" if i in self._inputs else " "
        logdir = self.state.logdir
        device = ""
        if len(self._devices) > 1:
            device = short_device(logdir.strings[int(logdir.traces.device[i])])
        host = row_host(logdir, logdir.traces.fileset, i)  # a run of several hosts
        if host:
            device = f"{host} {device}".rstrip()
        if self._chip is None:
            return trace_row(logdir, i, width, self.state.snapshot.traces, marker, device)
        chip, chip_width = self._chip
        row = chip(i)
        row.append_text(trace_row(logdir, i, width - chip_width, self.state.snapshot.traces,
                                  marker, device))
        return row

    def on_indexed(self) -> None:
        super().on_indexed()
        snap = self.state.snapshot
        if not snap.traces and snap.executions:  # a finished eager run: not "(yet)"
            self.vlist.empty_text = ("no graph executions: this run called no tf.function "
                                     "(its ops ran eagerly: see the Timeline)")
            self.vlist.refresh()

    def set_chip(self, chip: Callable[[int], Text], width: int) -> None:
        """Draw `chip(row)` (`width` cells) left of every row: the compare column."""
        self._chip = (chip, width)
        self.vlist.invalidate()

    @property
    def selected(self) -> int | None:
        return self.vlist.cursor_index

    def mark_inputs(self, rows: frozenset[int]) -> None:
        """Mark the traces that fed the selected tensor. Drawn lines are cached by whether
        they are marked (`VirtualList.render_line`), so only rows whose mark changed are
        drawn again — not every row on screen at each follow (a trace row reads its health
        back from the file; forty of them held a key pressed during indexing)."""
        self._inputs = rows
        self.vlist.set_marked(rows)

    def total(self) -> int:
        return self.state.snapshot.traces

    def matching(self, start: int, stop: int) -> np.ndarray:
        return model.trace_rows(self.state.logdir, start, stop, self.matcher, self.only_bad)

    def grew(self, old: int, new: int) -> bool:
        before = len(self._devices)
        if new > old:
            self._devices.update(np.unique(self.state.logdir.traces.device[old:new]).tolist())
        several = before < 2 <= len(self._devices)  # a device column appears
        return several or len(str(max(new - 1, 0))) != len(str(max(old - 1, 0)))

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        if event.index is not None:
            self.post_message(ShowTrace(event.index, select=False, immediate=False))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self.post_message(ShowTrace(event.index, select=False))
