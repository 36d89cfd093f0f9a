"""NO_COLOR and TERM=dumb: no colour, and the warnings still stand out.

Textual honours NO_COLOR by turning every colour to its grey (`Monochrome`), so the warning
red of "115 alerts" or a NaN chip became a mid grey — dimmer than the text around it, the
opposite of a warning. Here the warning colours become bold white (text) or a white chip
(background), everything else grey as before. TERM=dumb gets the same, in the 16 standard
colours (Textual otherwise writes truecolour whatever the terminal says).
"""

from __future__ import annotations

import os
from typing import Any

from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.color import Color
from textual.filter import LineFilter, Monochrome, NoColor, monochrome_style

_TEXT = Style(color="#ffffff", bold=True)
_CHIP = Style(color="#000000", bgcolor="#ffffff", bold=True)


def _warning(c: object) -> bool:
    """A red (the app's warning colours: #ff5f5f text, #b30000 chips)."""
    if c is None:
        return False
    try:
        r, g, b = Color.from_rich_color(c).rgb  # type: ignore[arg-type]
    except Exception:
        return False
    return r >= 150 and g <= 110 and b <= 110 and r - max(g, b) >= 90


class WarningMonochrome(LineFilter):
    """Greys, except the warning reds: bold white text, or a white chip."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        out = []
        for text, style, control in segments:
            if style is None:
                out.append(Segment(text, style, control))
                continue
            mono = monochrome_style(style)
            if _warning(style.bgcolor):
                mono = mono + _CHIP
            elif _warning(style.color):
                mono = mono + _TEXT
            out.append(Segment(text, mono, control))
        return out


def respect_no_color(app: App[Any]) -> None:
    """Install the filter when NO_COLOR is set or TERM=dumb (call after App.__init__)."""
    dumb = os.environ.get("TERM", "") == "dumb"
    if not (app.no_color or dumb):
        return
    filters = app._filters  # Textual's list of line filters (set in App.__init__)
    filters[:] = [f for f in filters if not isinstance(f, Monochrome | NoColor)]
    filters.append(WarningMonochrome())
    if dumb:  # Textual renders truecolour when the console detects no colour system
        app.console._color_system = ColorSystem.STANDARD
