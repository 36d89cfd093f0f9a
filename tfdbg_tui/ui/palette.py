"""The command palette (ctrl+p): every action of the bindings table, searchable by name.

Why: keys are fast once known; the palette is how they are discovered. It is built from the
same tables as the footer and help (the screen's keys, and each registered pane's own), so
it offers exactly what the keys do, and shows the keys as the user's keymap binds them.
Textual's own commands (theme, screenshot, keys panel…) come after ours, marked as such: the
app's only provider is this one (`TfdbgApp.COMMANDS`), so the order is ours to set.
"""

from __future__ import annotations

from functools import partial

from textual.app import App
from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.widget import Widget

from tfdbg_tui.ui.bindings import KeySpec
from tfdbg_tui.ui.main_screen import PANES, SCREEN_KEYS


class TfdbgCommands(Provider):
    """Commands for the main screen's actions and the panes' own keys."""

    def _commands(self) -> list[tuple[KeySpec, str | None]]:
        """(spec, DOM id of the pane that runs it, None for the screen)."""
        out: list[tuple[KeySpec, str | None]] = [(s, None) for s in SCREEN_KEYS if s.palette]
        for pane in PANES:
            out.extend((s, pane.dom_id) for s in pane.keys if s.palette)
        return out

    def _run(self, spec: KeySpec, pane_id: str | None) -> None:
        target: Widget = self.screen if pane_id is None else self.screen.query_one(f"#{pane_id}")
        self.app.call_later(target.run_action, spec.action)

    def _keys(self, spec: KeySpec) -> str:
        user = getattr(self.app, "user_keymap", None)  # TfdbgApp's (see core.keymap)
        keys = user.keys.get(spec.id, spec.keys) if user is not None else spec.keys
        # the plain display, as help's: the footer's paired "n/N" said "Next alert — key: n/N"
        return " / ".join(App.get_key_display(self.app, Binding(k, spec.action, id=spec.id))
                          for k in keys.split(","))

    def _system(self) -> list[tuple[str, str, object, bool]]:
        """Textual's own commands (after ours), minus Quit (ours is `q`)."""
        return [(c.title, c.help, c.callback, c.discover)
                for c in self.app.get_system_commands(self.screen) if c.title != "Quit"]

    async def discover(self) -> Hits:
        for spec, pane_id in self._commands():
            yield DiscoveryHit(spec.description, partial(self._run, spec, pane_id),
                               help=f"key: {self._keys(spec)}")
        for title, help_text, callback, discover in self._system():
            if discover:
                yield DiscoveryHit(f"{title} (Textual)", callback,  # type: ignore[arg-type]
                                   help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for spec, pane_id in self._commands():
            # the description, or the footer's word and the binding id ("origin" finds
            # "Jump to where the selected alert's NaN/∞ was born")
            score = max(matcher.match(spec.description),
                        matcher.match(f"{spec.label} {spec.id}") * 0.9)
            if score > 0:
                yield Hit(score, matcher.highlight(spec.description),
                          partial(self._run, spec, pane_id), text=spec.description,
                          help=f"key: {self._keys(spec)}")
        for title, help_text, callback, _ in self._system():
            score = matcher.match(title) * 0.5  # below ours when both match
            if score > 0:
                yield Hit(score, matcher.highlight(f"{title} (Textual)"),
                          callback, help=help_text)  # type: ignore[arg-type]
