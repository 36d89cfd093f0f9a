"""Python Execution Timeline: every eager op and tf.function call, in order.

Rows show each output's health; Enter on a tf.function call jumps to the first graph trace
the call produced, Enter on an eager op shows where it ran. The pane is narrow (31 cells at
120×32) and a call's row holds up to three outputs' counts: a row that does not fit drops
dtype and shape first, then ends in "…" and the rows scroll sideways with ←/→ (`?` lists
them), so no count is out of reach.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding

from tfdbg_tui.core import model
from tfdbg_tui.core.names import GRAPH_MODE_TIMELINE, graph_mode_run, row_host
from tfdbg_tui.ui.bindings import TIMELINE_KEYS, to_bindings
from tfdbg_tui.ui.panes.base import ShowExecution, ShowTrace, TableListPane
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.render import execution_row
from tfdbg_tui.ui.vlist import VirtualList

# a list at least this wide shows compare mode's whole chip ('· A only'); a narrower one (the
# Timeline at 160×45 is 40 cells) its first cell, the mark: the row's counts come first
WIDE_CHIP = 60


@register_pane(2, "timeline", "Python Execution Timeline", short="Timeline",
               area="top-middle", keys=TIMELINE_KEYS)
class TimelinePane(TableListPane):
    """The list of eager executions."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(TIMELINE_KEYS)]
    NOUN = "executions"

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._bad = np.zeros(0, dtype=bool)  # per execution: an output holds NaN/∞
        self._bad_from = 0  # outputs below this row are counted in `_bad`
        self._chip: tuple[Callable[[int], Text], int] | None = None  # compare column

    def compose(self) -> ComposeResult:
        vl = VirtualList(self._row, empty="no eager executions (yet)", id="tl-list")
        vl.sideways = True
        yield vl

    def action_scroll_rows(self, direction: int) -> None:
        """←/→: the rows sideways, half the list's width a press."""
        vl = self.vlist
        vl.scroll_rows(direction * max(8, vl.scrollable_content_region.width // 2))

    def _row(self, i: int, width: int) -> Text:
        snap = self.state.snapshot
        bad = bool(self._bad[i]) if i < len(self._bad) else False
        logdir = self.state.logdir
        host = row_host(logdir, logdir.executions.fileset, i)
        if self._chip is None:
            return execution_row(logdir, i, width, snap.executions, snap.outputs, bad, host)
        chip, chip_width = self._chip
        row = chip(i)
        if width < WIDE_CHIP:  # the mark alone ('=', '≠', '·' A only): the counts need the room
            row.truncate(1)
            row.append(" " * (2 - row.cell_len))
            chip_width = 2
        row.append_text(execution_row(logdir, i, width - chip_width, snap.executions,
                                      snap.outputs, bad, host))
        return row

    def set_chip(self, chip: Callable[[int], Text], width: int) -> None:
        """Draw `chip(execution)` (`width` cells) left of every row: compare mode's column
        for an eager run A (as Graph Executions has for traces)."""
        self._chip = (chip, width)
        self.vlist.invalidate()

    @property
    def selected(self) -> int | None:
        return self.vlist.cursor_index

    def total(self) -> int:
        return self.state.snapshot.executions

    def matching(self, start: int, stop: int) -> np.ndarray:
        return model.execution_rows(self.state.logdir, start, stop,
                                    self.state.snapshot.outputs, self.matcher, self.only_bad)

    def grew(self, old: int, new: int) -> bool:
        """Flag the new executions with a NaN/∞ output, looking at the new outputs only."""
        snap = self.state.snapshot
        self._bad, self._bad_from = model.extend_execution_bad(
            self.state.logdir, self._bad, self._bad_from, snap.executions, snap.outputs)
        return False

    def on_indexed(self) -> None:
        super().on_indexed()
        snap = self.state.snapshot
        # all again, once: a run read host after host has its rows put in time order at the
        # end (`reader.index.shards.reorder`), which renumbers them
        self._bad, self._bad_from = model.extend_execution_bad(
            self.state.logdir, np.zeros(0, dtype=bool), 0, snap.executions, snap.outputs)
        if graph_mode_run(self.state.logdir, snap.executions, snap.traces):
            self.vlist.empty_text = GRAPH_MODE_TIMELINE  # not "(yet)": TF1 never records any
            self.vlist.refresh()

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
            if self.state.logdir.graph_of_execution(event.index) is not None:
                self.notify("this tf.function call produced no graph traces "
                            "(not instrumented, or not written yet)", markup=False)
