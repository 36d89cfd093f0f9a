"""`ClampedText`: a few wrapped lines that never cut a sentence silently.

Why: the diagnosis under Alerts is the sentence a user came for ("the divisor … holds 1
zero"). Cut to two lines without a mark, "holds 1" reads as "the value 1". This widget wraps
its text into the width it has, shows at most `max_lines` lines, and when that is not
enough ends the last line with "…" and the key that shows the whole text (`i`, the palette's
"Show the whole diagnosis"), so a cut is always visible and always recoverable.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget


class ClampedText(Widget):
    """Wrapped text of at most `max_lines` lines; a cut ends in "… <hint>"."""

    DEFAULT_CSS = "ClampedText { height: auto; }"

    def __init__(self, max_lines: int = 2, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.text = Text("")
        self.hint = ""  # e.g. "i: all" — what to press for the whole text

    def update(self, text: Text, hint: str | None = None) -> None:
        self.text = text
        if hint is not None:
            self.hint = hint
        self.refresh(layout=True)

    def set_max_lines(self, max_lines: int) -> None:
        if max_lines != self.max_lines:
            self.max_lines = max(1, max_lines)
            self.refresh(layout=True)

    @property
    def plain(self) -> str:
        """The whole text (what the `i` screen shows)."""
        return self.text.plain

    def _lines(self, width: int) -> list[Text]:
        if not self.text.plain or width <= 0:
            return []
        return list(self.text.wrap(self.app.console, width, overflow="fold"))

    def clamped(self, width: int) -> tuple[Text, bool]:
        """What fits in `width` × `max_lines` cells, and whether anything was cut."""
        lines = self._lines(width)
        cut = len(lines) > self.max_lines
        if cut:
            lines = lines[: self.max_lines]
            tail = f"… {self.hint}" if self.hint else "…"
            last = lines[-1]
            room = max(0, width - cell_len(tail))
            last.rstrip()
            if cell_len(last.plain) > room:
                last.truncate(room)
            last.append(tail, "bold #ffd75f")
            lines[-1] = last
        return Text("\n").join(lines), cut

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return min(self.max_lines, len(self._lines(width)))

    def render(self) -> Text:
        return self.clamped(self.content_region.width or self.size.width)[0]
