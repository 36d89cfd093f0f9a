"""What the panes share: the bordered container, the messages they send to the screen, and
the filter state of list panes.

Why messages: a pane only knows its own rows. Following a selection across panes (alert →
trace → op → stack → source) is the main screen's job, so panes post requests and the
screen coordinates them.
"""

from __future__ import annotations

import re

from rich.text import Text
from textual.containers import Vertical
from textual.message import Message

from reader.index.frames import Frame
from tfdbg_tui.core.model import AppState, StringMatcher, compile_filter
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.vlist import VirtualList


class ShowTrace(Message):
    """Select graph trace `index` in Graph Executions and show its op, stack and source."""

    def __init__(self, index: int, *, select: bool = True, immediate: bool = True,
                 focus: bool = False) -> None:
        super().__init__()
        self.index, self.select, self.immediate, self.focus = index, select, immediate, focus


class ShowExecution(Message):
    """Select eager execution `index` in the Timeline and show its stack and source."""

    def __init__(self, index: int, *, select: bool = True, immediate: bool = True) -> None:
        super().__init__()
        self.index, self.select, self.immediate = index, select, immediate


class ShowFrame(Message):
    """Show a stack frame's line in Source Code."""

    def __init__(self, frame: Frame, *, immediate: bool = True) -> None:
        super().__init__()
        self.frame, self.immediate = frame, immediate


class FollowAlert(Message):
    """Follow alert number `position` (in the sorted alert list)."""

    def __init__(self, position: int) -> None:
        super().__init__()
        self.position = position


class Pane(Vertical):
    """A bordered pane with a fixed title; `number` is its 1–6 key."""

    TITLE = ""
    SHORT = ""  # the pane's name in the narrow layout's tab line
    number = 0
    ALLOW_MAXIMIZE = True

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="pane")
        self.state = state
        self.border_title = Text(f"{self.number} {self.TITLE}")

    @property
    def focus_target(self) -> VirtualList | Vertical:
        """The widget that takes focus when the pane is chosen."""
        return self

    def on_data(self) -> None:
        """The snapshot grew (indexing progress or live follow): show the new rows."""

    def set_status(self, status: str) -> None:
        self.border_subtitle = Text(lit(status))


class ListPane(Pane):
    """A pane around one `VirtualList` with a `/` filter and an "only NaN/∞" toggle."""

    supports_only_bad = False

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


def valid_regex(pattern: str) -> str | None:
    """None when `pattern` compiles, else a one-line error."""
    try:
        compile_filter(pattern)
    except re.error as exc:
        return f"bad regex: {exc}"
    return None
