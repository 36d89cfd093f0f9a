"""`VirtualList`: a cursor list over millions of rows on Textual's Line API.

Why not DataTable/OptionList: they build an object per row. Here a pane supplies a count, an
optional *view* (a numpy array of row indices that pass the filter) and a function that draws
one row; only the visible lines are ever drawn (`render_line` → `Strip`), and drawn lines are
kept in an LRU cache keyed by what they depend on (and cleared when styles change). The cursor
tracks a row *index*, not a screen position, so rows appended by live updates or a changed
filter never make it jump.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tfdbg_tui.core.row_runs import Segments
from tfdbg_tui.ui.bindings import LIST_BINDINGS

RowRenderer = Callable[[int, int], Text]


class VirtualList(ScrollView, can_focus=True, inherit_bindings=False):
    """A keyboard list whose rows are drawn on demand by `render_row(index, width)`.

    Its keys are `LIST_BINDINGS` alone: a scroll container's ←/→ and ctrl+PgUp/PgDn do
    nothing in a list whose rows fit its width, and would hide a pane's own ←/→ (Alerts').
    """

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *LIST_BINDINGS]
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "vlist--cursor", "vlist--cursor-blurred", "vlist--marked"}
    DEFAULT_CSS = """
    VirtualList { background: $surface; scrollbar-size-vertical: 1; overflow-x: hidden; }
    VirtualList > .vlist--cursor { background: $accent 70%; text-style: bold; }
    VirtualList > .vlist--cursor-blurred { background: $foreground 15%; }
    VirtualList > .vlist--marked { background: $secondary 20%; }
    """

    @dataclass
    class Highlighted(Message):
        """The cursor moved to row `index` (None: the list is empty)."""

        vlist: VirtualList
        index: int | None

        @property
        def control(self) -> VirtualList:
            return self.vlist

    @dataclass
    class Selected(Message):
        """Enter (or a click on the cursor row) on row `index`."""

        vlist: VirtualList
        index: int

        @property
        def control(self) -> VirtualList:
            return self.vlist

    def __init__(self, render_row: RowRenderer, *, empty: str = "(nothing yet)",
                 announce_initial: bool = False, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.announce_initial = announce_initial  # post Highlighted for the first row too
        self._render_row = render_row
        self._count = 0
        # the rows shown: all (None), a sorted array of row indices, or rows in an order of
        # their own as ranges (`Segments`: grouped alerts, never an array per row)
        self._view: np.ndarray | Segments | None = None
        self._cursor = 0
        self._cursor_index: int | None = None
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self._marked: frozenset[int] = frozenset()
        self._scroll_pending: bool | None = None  # a scroll asked while hidden: center it?
        self._epoch = 0  # bumped when row content may have changed
        self.empty_text = empty
        # the cursor moves (and Enters) the user made, with keys or the mouse: the moves the
        # app makes (a follow, rows arriving) leave it, so a pane can tell who chose a row
        self.user_moves = 0
        # rows wider than the list: cut with "…" and scrolled sideways by `x_offset` cells
        # (`scroll_rows`), for a pane that binds keys to it; else cut at the edge, as before
        self.sideways = False
        self.x_offset = 0

    # ------------------------------------------------------------------ data
    @property
    def row_count(self) -> int:
        """Number of visible rows (after the filter)."""
        return self._count if self._view is None else len(self._view)

    @property
    def cursor_index(self) -> int | None:
        """The row index (not position) under the cursor, None when empty."""
        return self._cursor_index

    def index_at(self, position: int) -> int:
        return position if self._view is None else int(self._view[position])

    def position_of(self, index: int) -> int | None:
        """Position of row `index` in the view, or None when filtered out."""
        if self._view is None:
            return index if 0 <= index < self._count else None
        if isinstance(self._view, Segments):
            return self._view.position_of(index)
        pos = int(np.searchsorted(self._view, index))
        if pos < len(self._view) and int(self._view[pos]) == index:
            return pos
        return None

    def set_rows(self, count: int, view: np.ndarray | Segments | None = None, *,
                 content_changed: bool = False, appended: bool = False,
                 ordered: bool = True) -> None:
        """Show `count` rows (or those in `view`, sorted indices); the cursor keeps its row.
        `appended`: rows were only added after the old ones (the rows at the positions
        drawn before are the same), so the list is redrawn only if new rows are on screen —
        a growing index calls this several times a second. `ordered=False`: `view` is in
        the order to show, not sorted (grouped rows: Alerts by incident), kept as ranges
        of consecutive rows (`Segments`, as `view` may already be): a position is then
        found by a binary search over the ranges, not through an array of `count`."""
        before = self.row_count
        self._count = count
        self._view = (Segments.of_rows(view) if isinstance(view, np.ndarray) and not ordered
                      else view)
        if content_changed:
            self.invalidate()
        n = self.row_count
        self._set_virtual_height(n)
        keep = self._cursor_index
        if n == 0:
            self._set_cursor_position(0, announce=keep is not None, empty=True)
            self.refresh()
            return
        pos = self.position_of(keep) if keep is not None else None
        if pos is None:
            pos = self._nearest_position(keep) if keep is not None else 0
        announce = self.announce_initial if keep is None else self.index_at(pos) != keep
        self._set_cursor_position(pos, announce=announce, scroll=False)
        if not appended or self.visible_positions().stop > before:
            self.refresh()

    def _set_virtual_height(self, n: int) -> None:
        """Make the list `n` rows long. Setting `virtual_size` asks Textual for a layout of
        the whole screen, which re-renders every pane: on every progress snapshot of a big
        logdir (four a second) and every follow (Graph Structure, Stack), and a key pressed
        then waited for it. A list whose height is not its content's (`1fr` in the panes)
        keeps its size whatever its rows, so unless its scrollbar comes or goes, only the
        scrollbar needs redrawing: the reactive is set without the layout."""
        size = Size(self.size.width, n)
        old = self.virtual_size
        if size == old:
            return
        height = self.scrollable_content_region.height
        fixed = self.styles.height is not None and not self.styles.height.is_auto
        overflows = n > height
        scrolled_past = self.scroll_offset.y > max(0, n - height)  # Textual clamps it
        if (fixed and height > 0 and old.width == size.width and not scrolled_past
                and (old.height > height) == overflows == self.show_vertical_scrollbar):
            self.set_reactive(VirtualList.virtual_size, size)
            if overflows:
                self.vertical_scrollbar.window_virtual_size = n
            return
        self.virtual_size = size

    def _nearest_position(self, index: int) -> int:
        if self._view is None:
            return max(0, min(index, self._count - 1))
        if isinstance(self._view, Segments):  # the shown row of the nearest index below
            return self._view.nearest_position(index)
        pos = int(np.searchsorted(self._view, index))
        return max(0, min(pos, len(self._view) - 1))

    def set_marked(self, marked: frozenset[int]) -> None:
        """Rows drawn with the "marked" background (e.g. inputs of the selected tensor)."""
        if marked != self._marked:
            self._marked = marked
            self.refresh()

    def visible_positions(self) -> range:
        """Positions of the rows on screen now."""
        top = int(self.scroll_offset.y)
        return range(top, min(top + max(0, self.scrollable_content_region.height),
                              self.row_count))

    def forget_hidden(self) -> None:
        """Forget cached lines of the rows not on screen (their content may have changed;
        the caller knows the visible ones did not): a cheaper `invalidate`, which redraws."""
        shown = {self.index_at(p) for p in self.visible_positions()}
        for key in [k for k in self._cache.keys() if k[0] not in shown]:
            self._cache.discard(key)

    def invalidate(self) -> None:
        """Forget cached lines: row content changed (e.g. op types resolved late)."""
        self._epoch += 1
        self._cache.clear()
        self.refresh()

    def notify_style_update(self) -> None:
        """Styles changed (a theme switch, focus styles): drawn lines carry the old colours.

        Cached strips hold resolved colours (the background, the cursor's component style),
        so they are forgotten here, as Textual's own `Log` does.
        """
        super().notify_style_update()
        self._epoch += 1
        self._cache.clear()

    def scroll_rows(self, cells: int) -> bool:
        """Scroll every row sideways by `cells` (negative: back left), at most as far as the
        widest row on screen needs; False when it cannot move that way."""
        width = self.scrollable_content_region.width
        if width <= 0 or not self.row_count:
            return False
        widest = max((self._render_row(self.index_at(p), width).cell_len
                      for p in self.visible_positions()), default=0)
        offset = max(0, min(self.x_offset + cells, widest - width))
        if offset == self.x_offset or (cells > 0 and offset < self.x_offset):
            return False
        self.x_offset = offset
        self.invalidate()
        return True

    # ------------------------------------------------------------------ cursor
    def _set_cursor_position(self, pos: int, *, announce: bool = True, scroll: bool = True,
                             center: bool = False, empty: bool = False) -> None:
        if empty or self.row_count == 0:
            self._cursor, self._cursor_index = 0, None
            if announce:
                self.post_message(self.Highlighted(self, None))
            return
        pos = max(0, min(pos, self.row_count - 1))
        old, old_pos = self._cursor_index, self._cursor
        self._cursor = pos
        self._cursor_index = self.index_at(pos)
        if scroll:
            self.scroll_to_cursor(center=center)
        if (pos, self._cursor_index) != (old_pos, old):  # else nothing drawn changes
            self.refresh()
        if announce and old != self._cursor_index:
            self.post_message(self.Highlighted(self, self._cursor_index))

    def select_index(self, index: int, *, center: bool = True, announce: bool = True) -> bool:
        """Move the cursor to row `index`; False when that row is filtered out or absent.
        `announce=False`: no Highlighted message (the move is shown, nothing follows it)."""
        pos = self.position_of(index)
        if pos is None:
            return False
        self._set_cursor_position(pos, center=center, announce=announce)
        return True

    def move(self, delta: int) -> None:
        if self.row_count:
            self._set_cursor_position(self._cursor + delta)

    def scroll_to_cursor(self, center: bool = False) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:  # not laid out, or hidden (a small terminal): the next Resize scrolls
            # (retrying after every refresh spun the CPU for as long as the list stayed hidden)
            self._scroll_pending = self._scroll_pending or center
            return
        self._scroll_pending = None
        top = int(self.scroll_offset.y)
        cur = self._cursor
        if center:
            target = cur - height // 2
        elif cur < top:
            target = cur
        elif cur >= top + height:
            target = cur - height + 1
        else:
            return
        self.scroll_to(y=max(0, target), animate=False, immediate=True)

    # ------------------------------------------------------------------ actions
    def action_cursor_up(self) -> None:
        self.user_moves += 1
        self.move(-1)

    def action_cursor_down(self) -> None:
        self.user_moves += 1
        self.move(1)

    def action_page_up(self) -> None:
        self.user_moves += 1
        self.move(-max(1, self.scrollable_content_region.height - 1))

    def action_page_down(self) -> None:
        self.user_moves += 1
        self.move(max(1, self.scrollable_content_region.height - 1))

    def action_first(self) -> None:
        self.user_moves += 1
        self._set_cursor_position(0)

    def action_last(self) -> None:
        self.user_moves += 1
        self._set_cursor_position(self.row_count - 1)

    def action_select(self) -> None:
        self.user_moves += 1  # Enter (or `g`, which ends in it): the user's choice
        if self._cursor_index is not None:
            self.post_message(self.Selected(self, self._cursor_index))

    async def _on_click(self, event: events.Click) -> None:
        pos = int(self.scroll_offset.y) + event.y
        if 0 <= pos < self.row_count:
            self.user_moves += 1
            again = pos == self._cursor
            self._set_cursor_position(pos, scroll=False)
            if again or event.chain > 1:
                self.action_select()

    def _on_focus(self, event: events.Focus) -> None:
        self.refresh()

    def _on_blur(self, event: events.Blur) -> None:
        self.refresh()

    def _on_resize(self, event: events.Resize) -> None:
        self.virtual_size = Size(self.size.width, self.row_count)
        self.x_offset = 0  # laid out anew for the new width: from their start
        self._cache.clear()
        if self.cursor_index is not None:  # zoom, a resized terminal: the selection stays seen
            self.call_after_refresh(self.scroll_to_cursor, bool(self._scroll_pending))

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        pos = int(self.scroll_offset.y) + y
        base = self.rich_style
        if pos >= self.row_count:
            if self.row_count == 0 and self.empty_text:  # wrapped, never cut at the edge
                lines = Text(self.empty_text, style="italic dim").wrap(self.app.console,
                                                                        max(1, width))
                if pos < len(lines):
                    line = lines[pos]
                    line.truncate(width, pad=True)
                    return Strip(line.render(self.app.console), width).apply_style(base)
            return Strip.blank(width, base)
        index = self.index_at(pos)
        is_cursor = pos == self._cursor
        marked = index in self._marked
        key = (index, width, is_cursor and (2 if self.has_focus else 1), marked, self._epoch,
               self.x_offset)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._draw(index, width, is_cursor, marked, base)
            self._cache[key] = strip
        return strip

    def _background_of(self, component: str) -> Style:
        """Only the background of a component class, blended as CSS says. Why: the partial
        style drops the alpha (`$accent 25%` came out as full accent, so a blurred cursor
        looked focused), and the full style's foreground would repaint the row's colours."""
        return Style(bgcolor=self.get_component_rich_style(component, partial=False).bgcolor)

    def _draw(self, index: int, width: int, is_cursor: bool, marked: bool,
              base: Style) -> Strip:
        text = self._render_row(index, width)
        if self.sideways:  # laid out for `width`, then shifted: a cut end says "…"
            if self.x_offset:
                text = Text("‹", style="dim") + text[self.x_offset + 1:]
            if text.cell_len > width:
                text.truncate(width, overflow="ellipsis")
        text.truncate(width, pad=True)
        if is_cursor:
            name = "vlist--cursor" if self.has_focus else "vlist--cursor-blurred"
            text.stylize(self._background_of(name))
            if self.has_focus:
                text.stylize(Style(bold=True))
        elif marked:
            text.stylize(self._background_of("vlist--marked"))
        segments = [Segment(s.text, base + s.style if s.style else base, s.control)
                    for s in text.render(self.app.console)]
        return Strip(segments, width).crop_extend(0, width, base)
