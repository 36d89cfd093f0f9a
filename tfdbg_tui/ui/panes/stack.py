"""Stack Trace: where the selected op was created (graph) or run (eager).

Stacks are long and mostly TensorFlow's, so by default the user's own frames are what is
listed, each run of framework frames between them collapsed into one row saying how many
(Enter on it, or `f`, shows them); the user frame (innermost frame of the user's own code) is
selected when a stack is shown. A stack with no user frame is shown whole. The frames
of `tfdbg-tui run` itself (its CLI, the wrapper, runpy; the op callback that records) are
never shown: they sit in every stack it records and are not the user's
(`reader.index.frames.program_frames`). Moving the
cursor shows the frame in Source Code.
"""

from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding

from reader.index.frames import Frame, program_frames, user_frame_index
from tfdbg_tui.core.model import AppState
from tfdbg_tui.core.textutil import fit, fit_left, lit
from tfdbg_tui.ui.bindings import STACK_KEYS, to_bindings
from tfdbg_tui.ui.panes.base import ListPane, ShowFrame
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.render import DIM
from tfdbg_tui.ui.vlist import VirtualList


@register_pane(6, "stack", "Stack Trace", short="Stack", area="bottom-right",
               keys=STACK_KEYS)
class StackPane(ListPane):
    """The frames of one stack, outermost first, as Python prints tracebacks."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(STACK_KEYS)]
    FILTER_WHAT = "file or function"  # (`_matches`)
    FILTER_EXAMPLE = "train|model.py"

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.frames: list[Frame] = []
        self.shown: list[int] = []  # indices into frames of the frames listed
        self.rows: list[int] = []  # per row: a frame index, or -n for n collapsed frames
        self.user_index: int | None = None
        self.hide_framework = True
        self.what = ""
        self.what_first = False
        self.omitted = 0  # frames of `tfdbg-tui run` itself left out of `frames`
        self._filtered = 0  # frames a filter leaves out

    def compose(self) -> ComposeResult:
        yield VirtualList(self._row, empty="no stack selected", id="stack-list")

    def _row(self, pos: int, width: int) -> Text:
        k = self.rows[pos]
        if k < 0:
            n = -k
            return Text(f"  … {n} framework frame{'' if n == 1 else 's'} (f: show)", DIM,
                        no_wrap=True)
        f = self.frames[k]
        user = k == self.user_index
        t = Text(no_wrap=True)
        t.append("▶ " if user else "  ", "bold #ffd75f")
        func_w = max(8, min(28, width // 3))
        t.append(fit(lit(f.function), func_w).ljust(func_w), DIM if f.is_framework else "bold")
        where = f"{lit(f.file)}:{f.line}"
        t.append(" ")
        t.append(fit_left(where, max(10, width - func_w - 4)),
                 DIM if f.is_framework else ("bold #ffd75f" if user else ""))
        return t

    @property
    def selected_frame(self) -> Frame | None:
        pos = self.vlist.cursor_index
        if pos is None or pos >= len(self.rows) or self.rows[pos] < 0:
            return None
        return self.frames[self.rows[pos]]

    def show_frames(self, frames: list[Frame], what: str, what_first: bool = False
                    ) -> Frame | None:
        """Show a stack and select its user frame; returns the frame to show in Source.
        `what_first`: the title says what only this pane says (compare mode's "SGD created at
        tf2.py:54, applied at line 59"), so the counts yield to it, not it to them."""
        self.frames, self.omitted = program_frames(frames)
        self.what = what
        self.what_first = what_first
        self.user_index = user_frame_index(self.frames)
        self._layout()
        target = self.user_index if self.user_index is not None else len(self.frames) - 1
        return self._select(target)

    def select_frame(self, frame: Frame) -> bool:
        """Select the frame at `frame`'s file and line if it is in the stack (shown)."""
        for k, f in enumerate(self.frames):
            if (f.file, f.line) == (frame.file, frame.line) and k in self.shown:
                self._select(k)
                return True
        return False

    def _layout(self) -> None:
        hide = self.hide_framework and self.user_index is not None
        self.shown, self.rows = [], []
        for k, f in enumerate(self.frames):
            if self.matcher is not None and not self._matches(f):
                continue
            if hide and f.is_framework:
                if self.rows and self.rows[-1] < 0:
                    self.rows[-1] -= 1
                else:
                    self.rows.append(-1)
                continue
            self.shown.append(k)
            self.rows.append(k)
        self.vlist.set_rows(len(self.rows), content_changed=True)
        self._filtered = len(self.frames) - len(self.shown) - sum(-k for k in self.rows if k < 0)
        self._show_status()

    def _show_status(self) -> None:
        """What the stack is, then its counts (collapsed rows say how many they hide). The
        counts are never cut: the tensor's name yields first (Graph Structure's first line
        holds it whole) — at 160 columns a long op name cut "5 tfdbg-tui frames omitted" —
        except where the title says what only this pane says (`what_first`)."""
        counts = [f"{len(self.frames)} frames"]
        if self._filtered:  # left out by a filter
            counts.append(f"{self._filtered} filtered out")
        what = lit(self.what)

        def room(tail: str) -> int:  # the border's width: corners, rules, spaces, " · "
            return self.outer_size.width - 6 - cell_len(tail) - 3

        if self.omitted:
            counts.append(f"{self.omitted} tfdbg-tui frames omitted")
        tail = " · ".join(counts)
        if self.outer_size.width and cell_len(what) > room(tail) and not self.what_first:
            what = fit(what, max(8, room(tail)))
        self.set_status(f"{what} · {tail}")

    def on_resize(self, event: events.Resize) -> None:
        self._show_status()

    def _matches(self, f: Frame) -> bool:
        assert self.matcher is not None
        return bool(self.matcher.regex.search(f.file) or self.matcher.regex.search(f.function))

    def _select(self, k: int | None) -> Frame | None:
        if k is None or k < 0 or not self.shown:
            return None
        pos = min((p for p in range(len(self.rows)) if self.rows[p] >= 0),
                  key=lambda p: abs(self.rows[p] - k))
        self.vlist.select_index(pos, center=True)
        return self.frames[self.rows[pos]]

    def refilter(self) -> None:
        keep = self.selected_frame
        self._layout()
        if keep is not None and keep in self.frames:
            self._select(self.frames.index(keep))

    def action_toggle_framework(self) -> None:
        self.hide_framework = not self.hide_framework
        keep = self.selected_frame
        self._layout()
        k = self.frames.index(keep) if keep in self.frames else self.user_index
        self._select(k)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        frame = self.selected_frame
        if frame is not None:
            self.post_message(ShowFrame(frame, immediate=False))

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        pos = self.vlist.cursor_index
        if pos is not None and pos < len(self.rows) and self.rows[pos] < 0:
            self.action_toggle_framework()  # a collapsed run: show the frames it stands for
            return
        frame = self.selected_frame
        if frame is not None:
            self.post_message(ShowFrame(frame))
