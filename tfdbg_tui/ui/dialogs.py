"""Small modal screens: the one-line prompt (`/` filter, `g` go to) and the help screen.

The help screen shows what `tfdbg_tui.ui.help_keys` reads from the live bindings of the
focused pane (the user's keymap applied), so it can never disagree with what the keys do.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import ClassVar

from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Input, Static

from tfdbg_tui.core.textutil import lit

Validator = Callable[[str], str | None]


class PromptBar(Horizontal):
    """A one-line prompt in the header row (`/` filter, `g` go to), vim-style.

    Why not a modal screen or a docked bar: pushing a screen re-composites the whole app
    (dimmed background, resume, resize) and a bar that appears changes the layout of every
    pane; both cost hundreds of milliseconds at a million rows. The prompt takes the place
    of the header line, whose height is fixed, so nothing else moves. Enter submits, Escape
    cancels; focus returns to where it was. Errors show in place of the title.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    PromptBar { height: 1; width: 1fr; display: none; background: $panel; }
    PromptBar.-open { display: block; }
    PromptBar #prompt-title { width: auto; height: 1; padding: 0 1; text-style: bold; }
    PromptBar #prompt-error { width: auto; height: 1; color: $error; padding: 0 1; }
    PromptBar Input { width: 1fr; height: 1; border: none; padding: 0; }
    PromptBar Input:focus { border: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._check: Validator | None = None
        self._done: Callable[[str | None], None] | None = None
        self._return_to: Widget | None = None

    def compose(self) -> ComposeResult:
        yield Static(Text(""), id="prompt-title", markup=False)
        yield Input(id="prompt-input")
        yield Static(Text(""), id="prompt-error", markup=False)

    def _set_open(self, is_open: bool) -> None:
        self.set_class(is_open, "-open")
        for sibling in self.screen.query("#header-line, #progress"):
            sibling.set_class(is_open, "-hidden-by-prompt")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def ask(self, title: str, value: str, placeholder: str, validate: Validator | None,
            done: Callable[[str | None], None]) -> None:
        self._check, self._done = validate, done
        self._return_to = self.screen.focused
        self.query_one("#prompt-title", Static).update(Text(title))
        self.query_one("#prompt-error", Static).update(Text(""))
        field = self.query_one(Input)
        field.placeholder = placeholder
        field.value = value
        self._set_open(True)
        field.focus()

    def _close(self, value: str | None) -> None:
        done, self._done = self._done, None
        self._set_open(False)
        if self._return_to is not None and self._return_to.is_attached:
            self._return_to.focus()
        if done is not None:
            done(value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        error = self._check(event.value) if self._check else None
        if error:
            self.query_one("#prompt-error", Static).update(Text(lit(error)))
            return
        self._close(event.value)

    def action_cancel(self) -> None:
        self._close(None)


def sections_table(sections: list[tuple[str, list[tuple[str, str]]]]) -> Table:
    """A table of (title, rows of keys and what they do) sections."""
    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold #ffd75f", no_wrap=True)
    table.add_column()
    for title, rows in sections:
        table.add_row(Text(title, style="bold underline"), "")
        for keys, desc in rows:
            table.add_row(keys, desc)
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    """The keys that work in the focused pane, then everywhere (`help_keys`)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,question_mark", "close", "Close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll { width: 96; max-width: 96%; height: 90%;
        border: round $accent; background: $panel; padding: 0 1; }
    """

    def __init__(self, title: str, sections: list[tuple[str, list[tuple[str, str]]]]) -> None:
        super().__init__()
        self.title_text = title
        self.table = sections_table(sections)

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(lit(self.title_text), style="bold"), markup=False)
            yield Static(self.table, id="help-table", markup=False)

    def plain_text(self) -> str:
        """The help as plain text (what a user reads)."""
        console = Console(width=120, file=io.StringIO(), color_system=None)
        with console.capture() as capture:
            console.print(self.title_text)
            console.print(self.table)
        return capture.get()

    def action_close(self) -> None:
        self.dismiss(None)


class TextScreen(ModalScreen[None]):
    """A long text shown whole, wrapped and scrollable (`i`: the whole diagnosis and the
    warnings, which the Alerts pane can only show in part)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,i", "close", "Close")]
    DEFAULT_CSS = """
    TextScreen { align: center middle; }
    TextScreen > VerticalScroll { width: 100; max-width: 96%; height: auto; max-height: 90%;
        border: round $accent; background: $panel; padding: 0 1; }
    TextScreen #text-body { height: auto; }
    """

    def __init__(self, title: str, body: Text) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Text(f"{lit(self.title_text)} (Esc closes)", style="bold"),
                         markup=False)
            yield Static(self.body, id="text-body", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
