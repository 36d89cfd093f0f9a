"""What the panes share: the bordered container, the messages they send to the screen, and
the filter state of list panes.

Why messages: a pane only knows its own rows. Following a selection across panes (alert →
trace → op → stack → source) is the main screen's job, so panes post requests and the
screen coordinates them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.message import Message

from reader.index.frames import Frame
from tfdbg_tui.core.model import AppState, StringMatcher, compile_filter
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.dialogs import PromptBar
from tfdbg_tui.ui.panes.registry import PaneSpec
from tfdbg_tui.ui.vlist import VirtualList


@dataclass
class ShowTrace(Message):
    """Select graph trace `index` in Graph Executions and show its op, stack and source."""

    index: int
    select: bool = True
    immediate: bool = True
    focus: bool = False


@dataclass
class ShowExecution(Message):
    """Select eager execution `index` in the Timeline and show its stack and source."""

    index: int
    select: bool = True
    immediate: bool = True


@dataclass
class ShowFrame(Message):
    """Show a stack frame's line in Source Code."""

    frame: Frame
    immediate: bool = True


@dataclass
class FollowAlert(Message):
    """Follow alert number `position` (in the sorted alert list)."""

    position: int


class Pane(Vertical):
    """A bordered pane with a fixed title; `number` is its focus key.

    Subclasses register with `@register_pane(...)` (see `registry`), which sets `SPEC` and
    the `TITLE`, `SHORT` and `number` read here.
    """

    SPEC: ClassVar[PaneSpec]
    TITLE: ClassVar[str] = ""
    SHORT: ClassVar[str] = ""  # the pane's name in the narrow layout's tab line
    number: ClassVar[int] = 0
    ALLOW_MAXIMIZE = True

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.state = state
        self.border_title = Text(f"{self.number} {self.TITLE}")

    @property
    def focus_target(self) -> VirtualList | Vertical:
        """The widget that takes focus when the pane is chosen."""
        return self

    @property
    def help_node(self) -> DOMNode:
        """The node whose bindings are this pane's own keys (the help screen lists them)."""
        return self

    def on_data(self) -> None:
        """The snapshot grew (indexing progress or live follow): show the new rows."""

    def on_indexed(self) -> None:
        """The first full read is done: op types resolved late may change rows drawn."""

    def on_journey(self) -> None:
        """The alerts' steps and incidents are known (`AppState.journey`)."""

    def set_status(self, status: str) -> None:
        self.border_subtitle = Text(lit(status))


class ListPane(Pane):
    """A pane around one `VirtualList` with a `/` filter and an "only NaN/∞" toggle."""

    supports_only_bad = False
    supports_filter = True  # `/` filters its rows (else it filters Graph Executions)
    FILTER_WHAT: ClassVar[str] = "op name/type"  # what `/`'s regex is searched in
    FILTER_EXAMPLE: ClassVar[str] = "Log|Softmax"
    GOTO_WHAT: ClassVar[str] = "row index"  # what `g` asks for
    GOTO_FIRST: ClassVar[int] = 0  # the number the user types for the first row

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.pattern = ""
        self.matcher: StringMatcher | None = None
        self.only_bad = False

    @property
    def vlist(self) -> VirtualList:
        return self.query_one(VirtualList)

    @property
    def focus_target(self) -> VirtualList:
        return self.vlist

    def on_indexed(self) -> None:
        self.vlist.invalidate()

    def set_filter(self, pattern: str) -> None:
        """Filter rows by regex; raises `re.error` for a bad pattern."""
        regex = compile_filter(pattern)
        self.pattern = pattern
        self.matcher = StringMatcher(self.state.logdir, regex) if regex else None
        self.refilter()

    def toggle_only_bad(self) -> bool:
        self.only_bad = not self.only_bad
        self.refilter()
        return self.only_bad

    def clear_filters(self) -> None:
        if self.pattern or self.only_bad:
            self.pattern, self.matcher, self.only_bad = "", None, False
            self.refilter()

    def refilter(self) -> None:
        """Recompute the view from scratch (filter changed)."""

    def filter_status(self) -> str:
        parts = []
        if self.pattern:
            parts.append(f"/{self.pattern}/")
        if self.only_bad:
            parts.append("NaN/∞ only")
        return " · ".join(parts)

    def goto(self, index: int) -> bool:
        """Select row `index` (clearing filters that hide it); False if out of range."""
        vl = self.vlist
        if vl.select_index(index):
            return True
        self.clear_filters()
        return vl.select_index(index)

    def ask_filter(self, prompt: PromptBar) -> None:
        """`/`: ask for a regex in the prompt, then filter (empty clears)."""

        def done(value: str | None) -> None:
            if value is not None:
                self.set_filter(value.strip())
                self.focus_target.focus()

        prompt.ask(f"/ Filter {self.TITLE} (regex on {self.FILTER_WHAT}; empty clears)",
                   self.pattern, f"e.g. {self.FILTER_EXAMPLE}", valid_regex, done)

    def ask_goto(self, prompt: PromptBar) -> None:
        """`g`: ask for a row (`GOTO_WHAT`, counted from `GOTO_FIRST`), then go there."""
        what = self.GOTO_WHAT

        def check(value: str) -> str | None:
            return None if value.strip().lstrip("#").isdigit() else f"type a {what}"

        def done(value: str | None) -> None:
            if value is None:
                return
            if not self.goto(int(value.strip().lstrip("#")) - self.GOTO_FIRST):
                self.notify(f"no {what} {value.strip()}", markup=False)
                return
            self.focus_target.focus()
            self.vlist.action_select()  # and follow it, as Enter on that row would

        prompt.ask(f"g Go to {what} in {self.TITLE}", "", "", check, done)


class TableListPane(ListPane):
    """A list over one growing table of the index (graph traces, eager executions).

    Live rows arrive in order, so the filtered view is extended incrementally: only the new
    rows are matched. Subclasses say how many rows there are and which of a range match.
    """

    supports_only_bad = True
    NOUN: ClassVar[str] = "rows"  # "12 of 40 <noun>" in the status line
    LEGEND: ClassVar[str] = "−:neg 0:zero +:pos"  # what the health pairs count

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._shown = 0  # rows covered by the current view
        self._view: np.ndarray | None = None

    def total(self) -> int:
        """Rows in the current snapshot."""
        raise NotImplementedError

    def matching(self, start: int, stop: int) -> np.ndarray:
        """Indices in [start, stop) that pass the filter and the NaN/∞ toggle."""
        raise NotImplementedError

    def grew(self, old: int, new: int) -> bool:
        """The table grew from `old` to `new` rows; True when drawn rows must be redrawn."""
        return False

    def on_data(self) -> None:
        n = self.total()
        if n == self._shown:
            return
        redraw = self.grew(self._shown, n)
        if self.pattern or self.only_bad:
            fresh = self.matching(self._shown, n)
            base = self._view if self._view is not None else np.zeros(0, dtype=np.int64)
            self._view = np.concatenate([base, fresh])
        self._shown = n
        self.vlist.set_rows(n, self._view, content_changed=redraw, appended=True)
        self._status()

    def refilter(self) -> None:
        n = self.total()
        self._shown = n
        self._view = self.matching(0, n) if self.pattern or self.only_bad else None
        self.vlist.set_rows(n, self._view)
        self.vlist.scroll_to_cursor()  # the view changed under it: keep the selection seen
        self._status()

    def _status(self) -> None:
        n, shown = self.total(), self.vlist.row_count
        text = f"{n:,} {self.NOUN}" if shown == n else f"{shown:,} of {n:,} {self.NOUN}"
        extra = self.filter_status()
        legend = f"{self.LEGEND} · " if self.LEGEND else ""
        self.set_status(f"{legend}{text} · {extra}" if extra else f"{legend}{text}")


def valid_regex(pattern: str) -> str | None:
    """None when `pattern` compiles, else a one-line error."""
    try:
        compile_filter(pattern)
    except re.error as exc:
        return f"bad regex: {exc}"
    return None
