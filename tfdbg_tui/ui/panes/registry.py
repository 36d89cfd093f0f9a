"""Panes register themselves here: number, title, where they go, their own keys.

The main screen builds its layout, its 1–n focus keys, the tab line, the help screen and
the command palette from this list, so adding a pane is one module under `tfdbg_tui/ui/panes/`
(a `Pane` subclass with `@register_pane(...)`) plus its test: the package imports every
module in it, and nothing else names the pane.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from tfdbg_tui.ui.bindings import KeySpec

if TYPE_CHECKING:
    from tfdbg_tui.ui.panes.base import Pane

# Where a pane can go: rows of areas, left to right; panes sharing an area stack vertically
# in number order. Area widths are in tfdbg.tcss.
LAYOUT: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("top", ("top-left", "top-middle", "top-right")),
    ("bottom", ("bottom-left", "bottom-right")),
)
AREAS = frozenset(a for _row, areas in LAYOUT for a in areas)


@dataclass(frozen=True)
class PaneSpec:
    """What the screen needs to know about a pane without knowing the pane."""

    number: int  # its focus key (1, 2, …) and its place in Tab order
    key: str  # stable name: binding id `pane.<key>`, DOM id `<key>` with dashes
    title: str
    short: str  # its name in the narrow layout's tab line
    area: str  # one of AREAS
    widget: type[Pane]
    keys: tuple[KeySpec, ...] = field(default=())  # the pane's own keys (help, palette)

    @property
    def dom_id(self) -> str:
        return self.key.replace("_", "-")


_PANES: dict[int, PaneSpec] = {}
P = TypeVar("P", bound="type[Pane]")


def register_pane(number: int, key: str, title: str, *, short: str, area: str,
                  keys: tuple[KeySpec, ...] = ()) -> Callable[[P], P]:
    """Class decorator: register a `Pane` subclass under `number`."""
    if area not in AREAS:
        raise ValueError(f"pane {key!r}: unknown area {area!r} (one of {sorted(AREAS)})")

    def decorate(cls: P) -> P:
        other = _PANES.get(number)
        if other is not None and other.widget is not cls:
            raise ValueError(f"pane number {number} is taken by {other.key!r}")
        spec = PaneSpec(number, key, title, short, area, cls, keys)
        _PANES[number] = spec
        cls.SPEC = spec
        cls.TITLE, cls.SHORT, cls.number = title, short, number
        return cls

    return decorate


def registered_panes() -> list[PaneSpec]:
    """Every pane of the package, in number order (importing the modules registers them)."""
    from tfdbg_tui.ui import panes

    for info in pkgutil.iter_modules(panes.__path__):
        importlib.import_module(f"{panes.__name__}.{info.name}")
    return [_PANES[n] for n in sorted(_PANES)]


def focus_keys(specs: list[PaneSpec]) -> tuple[KeySpec, ...]:
    """The `1`…`n` keys that focus each pane."""
    return tuple(KeySpec(f"pane.{s.key}", str(s.number), f"focus_pane({s.number})",
                         f"Focus {s.title}") for s in specs)
