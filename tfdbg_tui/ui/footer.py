"""The footer: the keys that matter most always fit, whatever the width.

Textual's footer lists every shown binding in order and lets the last ones fall off the
right edge — at 80 columns that was help and quit. Here each key has a rank; when the keys
do not fit, the lowest ranked go first (they stay in `?` help and the ctrl+p palette).
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Actions by how much a new user needs them in the footer, first = kept longest.
RANK = ("help", "quit", "select", "next_alert", "show_details", "next_divergence",
        "toggle_side", "jump_origin", "edit_source", "copy", "inspect_values",
        "toggle_framework", "save_source", "filter", "toggle_only_bad", "goto", "zoom")
# Keys about a source line: in the footer only while a pane showing one is focused (they
# work from anywhere, on Source Code's line, and stay in `?` help and the palette)
SOURCE_LINE = frozenset({"edit_source", "save_source"})
# While Source Code or Stack Trace is focused, what acts on its line comes right after help
# and quit: at 80 columns the global order kept n/N, o and i there and dropped `w` and `y`,
# the keys of the pane the user had just moved to (the held-out NaN journey, issue 31).
SOURCE_RANK = ("help", "quit", "edit_source", "copy", "save_source")


def _rank(action: str, source_focused: bool = False) -> int:
    name = action.split("(")[0]
    if source_focused and name in SOURCE_RANK:
        return SOURCE_RANK.index(name) - len(SOURCE_RANK)
    return RANK.index(name) if name in RANK else len(RANK)


class CoalescedFooter(Footer):
    """Textual's footer, recomposed once for a burst of binding changes, not once for each.

    Textual's footer recomposes (removes and mounts every key again) after each change of
    the screen's bindings, and one key can make many: `v` on an alert pushed the inspector,
    moved the focus and disabled its value keys — 7 recomposes of its footer (0.3-0.7 s on
    a busy machine), each showing what the last one shows. Here a change asks for one
    recompose after the next refresh; the changes before it is done need no other, as it
    reads the bindings as they are then."""

    _recompose_pending = False

    def bindings_changed(self, screen: Screen[object]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen and not self._recompose_pending:
            self._recompose_pending = True
            self.call_after_refresh(self._recompose_once)

    async def _recompose_once(self) -> None:
        self._recompose_pending = False
        await self.recompose()


class TfdbgFooter(CoalescedFooter):
    """A footer that drops its least needed keys instead of cutting help and quit."""

    def compose(self) -> ComposeResult:
        width = self.app.size.width
        widgets = list(super().compose())
        pad = 3  # key and description padding of each FooterKey

        def cells(w: FooterKey) -> int:
            return cell_len(w.key_display) + cell_len(w.description) + pad

        keys: list[FooterKey] = [w for w in widgets if isinstance(w, FooterKey)
                                 and not w.has_class("-command-palette")]
        source_focused = self._source_focused()
        if not source_focused:
            keys = [w for w in keys if w.action.split("(")[0] not in SOURCE_LINE]
            widgets = [w for w in widgets if not (isinstance(w, FooterKey) and w.action
                                                  .split("(")[0] in SOURCE_LINE)]
        fixed = sum(cells(w) + 2 for w in widgets
                    if isinstance(w, FooterKey) and w not in keys)
        budget = width - fixed - 4
        kept: set[int] = set()
        for key in sorted(keys, key=lambda k: _rank(k.action, source_focused)):
            if cells(key) <= budget:
                kept.add(id(key))
                budget -= cells(key)
        for w in widgets:
            if not isinstance(w, FooterKey) or w not in keys or id(w) in kept:
                yield w

    def _source_focused(self) -> bool:
        pane = getattr(self.screen, "current_pane", None)
        current = pane() if callable(pane) else None
        return type(current).__name__ in ("SourcePane", "StackPane")

    def on_resize(self, event: Resize) -> None:
        self.call_later(self.recompose)
