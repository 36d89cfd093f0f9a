"""The command palette (ctrl+p): every action of the bindings table, searchable by name.

Why: keys are fast once known; the palette is how they are discovered. It is built from the
same `bindings` table as the footer and help, so it offers exactly what the keys do.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from tfdbg_tui.ui.bindings import GLOBAL_KEYS, STACK_KEYS, KeySpec, display_keys


class TfdbgCommands(Provider):
    """Commands for the main screen's actions."""

    def _specs(self) -> list[KeySpec]:
        return [s for s in (*GLOBAL_KEYS, *STACK_KEYS) if s.palette]

    def _run(self, spec: KeySpec) -> None:
        screen = self.screen
        if spec in STACK_KEYS:
            pane = screen.query_one("#stack")
            self.app.call_later(pane.run_action, spec.action)
            return
        self.app.call_later(screen.run_action, spec.action)

    async def discover(self) -> Hits:
        for spec in self._specs():
            yield DiscoveryHit(spec.description, partial(self._run, spec),
                               help=f"key: {display_keys(spec)}")

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for spec in self._specs():
            score = matcher.match(spec.description)
            if score > 0:
                yield Hit(score, matcher.highlight(spec.description), partial(self._run, spec),
                          text=spec.description, help=f"key: {display_keys(spec)}")
