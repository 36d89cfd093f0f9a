"""Source Code: the file of the selected frame, syntax highlighted, its line centred.

The text comes from the logdir's own copy of the file (what actually ran); when the logdir
did not capture it, the file is read from disk and the pane says so. Loading and
highlighting run in a worker (TensorFlow's own files are thousands of lines), and
highlighted files are cached.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import get_current_worker

from reader import DebugLogdir
from reader.index.frames import Frame
from tfdbg_tui.core.model import AppState
from tfdbg_tui.core.sanitize import literal
from tfdbg_tui.core.textutil import fit, fit_left, lit
from tfdbg_tui.ui.bindings import SOURCE_KEYS, to_bindings
from tfdbg_tui.ui.panes.base import Pane
from tfdbg_tui.ui.panes.registry import register_pane

_CACHE_FILES = 8
MAX_DISK_BYTES = 8 << 20


@dataclass(frozen=True)
class SourceFile:
    """A file ready to draw: one highlighted `Text` per line, and where it came from."""

    path: str
    lines: list[Text]
    plain: list[str]
    origin: str  # "logdir", "disk" or "missing"


def load_source(logdir: DebugLogdir, host: str, path: str) -> SourceFile:
    """Read (logdir copy first, then disk) and highlight a file. Runs in a worker thread."""
    raw = logdir.source_lines(host, path)
    origin = "logdir"
    if raw is None:
        origin = "disk"
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                data = f.read(MAX_DISK_BYTES)
            raw = data.splitlines()
        except OSError:
            return SourceFile(path, [], [], "missing")
    plain = [literal(line) for line in raw]
    code = "\n".join(plain)
    lexer = "python" if path.endswith((".py", ".pyi")) or origin == "logdir" else (
        Syntax.guess_lexer(path, code))
    syntax = Syntax(code, lexer, theme="monokai", background_color="default")
    highlighted = syntax.highlight(code)
    lines = highlighted.split("\n", allow_blank=True)
    while len(lines) < len(plain):
        lines.append(Text(""))
    return SourceFile(path, list(lines[: len(plain)]), plain, origin)


class SourceView(ScrollView, can_focus=True):
    """Line API view of a highlighted file with line numbers and one highlighted line."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(SOURCE_KEYS)]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"source--line", "source--gutter"}
    DEFAULT_CSS = """
    SourceView { background: $surface; }
    SourceView > .source--line { background: #5f5f00; text-style: bold; }
    SourceView > .source--gutter { color: $text-muted; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source: SourceFile | None = None
        self.line = 0  # 1-based highlighted line, 0 = none
        self.message = "follow an alert (Enter) or pick a stack frame to see its source"

    def set_source(self, source: SourceFile | None, line: int, message: str = "") -> None:
        self.source, self.line, self.message = source, line, message
        n = len(source.lines) if source else 0
        width = max((t.cell_len for t in source.lines), default=0) + 8 if source else 0
        self.virtual_size = Size(width, n)
        self.refresh()
        self.call_after_refresh(self.center)  # the new virtual size must apply first

    def center(self, tries: int = 3) -> None:
        height = self.scrollable_content_region.height
        if height <= 0:  # not laid out, or hidden (a small terminal): `_on_resize` centers
            return
        if self.line:
            target = max(0, self.line - 1 - height // 2)
            self.scroll_to(x=0, y=target, animate=False, immediate=True)
            if int(self.scroll_offset.y) < target and tries > 0:
                # the new virtual size was not laid out yet (the scroll was clamped short):
                # a file loaded at once, at launch, met this
                self.call_after_refresh(self.center, tries - 1)

    def action_center(self) -> None:
        self.center()

    def _on_resize(self, event: events.Resize) -> None:
        self.center()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        scroll_x, scroll_y = int(self.scroll_offset.x), int(self.scroll_offset.y)
        base = self.rich_style
        src = self.source
        if src is None or not src.lines:
            if y == 0:
                t = Text(self.message, style="italic dim")
                t.truncate(width, pad=True)
                return Strip(list(t.render(self.app.console)), width).apply_style(base)
            return Strip.blank(width, base)
        k = scroll_y + y
        if k >= len(src.lines):
            return Strip.blank(width, base)
        gutter_w = len(str(len(src.lines))) + 2
        is_line = k + 1 == self.line
        t = Text(no_wrap=True, end="")
        t.append(f"{k + 1:>{gutter_w - 2}}", self.get_component_rich_style("source--gutter"))
        t.append("▶ " if is_line else "  ", "bold #ffd75f")
        body = src.lines[k].copy()
        if scroll_x:
            body = body[scroll_x:]
        t.append_text(body)
        t.truncate(width, pad=True)
        if is_line:
            t.stylize(self.get_component_rich_style("source--line", partial=True))
        segments = [Segment(s.text, base + s.style if s.style else base)
                    for s in t.render(self.app.console)]
        return Strip(segments, width).crop_extend(0, width, base)


@register_pane(5, "source", "Source Code", short="Source", area="bottom-left",
               keys=SOURCE_KEYS)
class SourcePane(Pane):
    """The Source Code pane: a `SourceView` plus loading in a worker."""

    def __init__(self, state: AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._cache: OrderedDict[tuple[str, str], SourceFile] = OrderedDict()
        self.frame: Frame | None = None
        self.why = ""  # what the highlighted line is, when the stack alone does not say
        self._title: tuple[str, str, str] = ("", "", "")  # why, file:line, note (`_titled`)
        self.logdir: DebugLogdir = state.logdir  # run B's while compare mode shows its side

    def compose(self) -> ComposeResult:
        yield SourceView(id="source-view")

    @property
    def view(self) -> SourceView:
        return self.query_one(SourceView)

    @property
    def focus_target(self) -> SourceView:  # type: ignore[override]
        return self.view

    @property
    def help_node(self) -> SourceView:
        return self.view

    @property
    def highlighted_text(self) -> str | None:
        """The plain text of the highlighted line, None when nothing is shown."""
        v = self.view
        if v.source is None or not (1 <= v.line <= len(v.source.plain)):
            return None
        return v.source.plain[v.line - 1]

    def use_logdir(self, logdir: DebugLogdir | None) -> None:
        """Read files from `logdir`'s copies (None: the app's own run) from now on."""
        logdir = logdir if logdir is not None else self.state.logdir
        if logdir is not self.logdir:
            self.logdir, self.frame = logdir, None
            self._cache.clear()

    def show_frame(self, frame: Frame, why: str = "") -> None:
        """Show `frame`'s file with its line highlighted and centred; `why` says what the
        line is when it is not simply the Stack Trace's selected frame ("line to change")."""
        if frame == self.frame and self.view.source is not None:
            if why != self.why:
                self.why = why
                cached = self._cache.get((frame.host, frame.file))
                if cached is not None:
                    self._apply(frame, cached)
            return
        self.why = why
        self.frame = frame
        key = (frame.host, frame.file)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            self._apply(frame, cached)
            return
        self.set_status(f"loading {fit_left(lit(frame.file), 60)}…")
        self._load(frame)

    @work(thread=True, exclusive=True, group="source")
    def _load(self, frame: Frame) -> None:
        worker = get_current_worker()
        src = load_source(self.logdir, frame.host, frame.file)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._loaded, frame, src)

    def _loaded(self, frame: Frame, src: SourceFile) -> None:
        self._cache[(frame.host, frame.file)] = src
        if len(self._cache) > _CACHE_FILES:
            self._cache.popitem(last=False)
        if self.frame == frame:
            self._apply(frame, src)

    def _apply(self, frame: Frame, src: SourceFile) -> None:
        where = f"{lit(frame.file)}:{frame.line}"
        if src.origin == "missing":
            self.view.set_source(None, 0, f"source not available: {where} is neither in the "
                                 "logdir nor on this machine")
            self._titled("", where, "")
            return
        note = "" if src.origin == "logdir" else " · not captured in logdir: read from disk"
        self.view.set_source(src, frame.line)
        self._titled(self.why, where, note)

    def _titled(self, why: str, where: str, note: str) -> None:
        """The border's title: what the line is, then file:line, fitted to the border's
        width: the path yields its head first, then `why` its end — never the file's name
        and line. Textual cuts a title at its end: at 160×45 "…/heldout_nan/fit_stuck_
        sensor.py:…" hid the line number, "line to change (diagnosis; not in this op's
        stack) · …/tests/programs/heldout_…" the file's name too (the held-out NaN journey)."""
        self._title = (why, where, note)
        width = self.outer_size.width - 6  # corners, rules and the spaces around the title
        if width <= 0:
            width = 10**6  # not laid out yet: `on_resize` fits it
        name = "…" + where.rsplit("/", 1)[-1]  # the least of the path shown
        room = width - cell_len(note) - (cell_len(why) + 3 if why else 0)
        path = fit_left(where, min(70, max(room, cell_len(name))))
        head = width - cell_len(path) - cell_len(note) - 3  # " · "
        why = fit(why, head) if why and head >= 8 else ""
        self.set_status((f"{why} · " if why else "") + path + note)

    def on_resize(self, event: events.Resize) -> None:
        if any(self._title):
            self._titled(*self._title)
