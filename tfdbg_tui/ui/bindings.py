"""Every key of the app, declared once as data.

Why data: the help screen, the footer, the command palette and the README all describe the
same keys; generating them from one table keeps them from drifting. Each entry has a stable
id, by which a user keymap rebinds it (see `tfdbg_tui.core.keymap`), and the description
users see. Keys are shown through `App.get_key_display`, so they follow the keymap.
The 1…n keys that focus panes come from the pane registry (`panes.registry.focus_keys`).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding


@dataclass(frozen=True)
class KeySpec:
    """One key binding: `keys` (comma-separated Textual key names) → `action`."""

    id: str
    keys: str
    action: str
    description: str
    footer: bool = False
    palette: bool = True  # offered in the command palette
    label: str = ""  # short footer label; the description is the help text
    shown_with: str | None = None  # id of a binding whose key is shown after ours ("n/N")


# Moving between panes (bound on the main screen; the pane number keys follow these).
NAV_KEYS: tuple[KeySpec, ...] = (
    KeySpec("pane.next", "tab", "focus_pane_delta(1)", "Next pane", palette=False),
    KeySpec("pane.previous", "shift+tab", "focus_pane_delta(-1)", "Previous pane",
            palette=False),
)

# Keys that work from any pane (bound on the main screen).
ACTION_KEYS: tuple[KeySpec, ...] = (
    KeySpec("alert.next", "n", "next_alert(1)", "Next alert (and follow it)",
            footer=True, label="next alert", shown_with="alert.previous"),
    KeySpec("alert.previous", "N", "next_alert(-1)", "Previous alert (and follow it)"),
    KeySpec("alert.origin", "o", "jump_origin", "Jump to where the selected alert's NaN/∞ was "
            "born (diagnosis)", footer=True, label="origin"),
    KeySpec("alert.details", "i", "show_details", "Show the whole diagnosis of the selected "
            "alert, the incidents, the NaN/∞ and loss per step, every warning (never cut)",
            footer=True, label="why"),
    KeySpec("tensor.values", "v", "inspect_values", "Inspect the selected tensor's values",
            footer=True, label="values"),
    KeySpec("list.filter", "slash", "filter", "Filter the focused list (regex on op name/type)",
            footer=True, label="filter"),
    KeySpec("list.only_bad", "a", "toggle_only_bad", "Only rows with NaN/∞ (toggle)",
            footer=True, label="NaN only"),
    KeySpec("list.goto", "g", "goto", "Go to an index", footer=True, label="go to"),
    KeySpec("source.edit", "e", "edit_source", "Open the source line (Source Code, Stack "
            "Trace) in $VISUAL/$EDITOR", footer=True, label="edit"),
    KeySpec("source.save", "w", "save_source", "Write the logdir's copy of that file to "
            "./tfdbg-sources/ (or $TFDBG_TUI_SAVE_DIR)", footer=True, label="save file"),
    KeySpec("app.copy", "y", "copy", "Copy file:line (Source Code, Stack Trace) or the "
            "selected op/tensor name to the clipboard", footer=True, label="copy"),
    KeySpec("compare.next", "d", "next_divergence(1)", "Next tensor that differs from run B "
            "(with --compare; the first from the top)", footer=True, label="diverge",
            shown_with="compare.previous"),
    KeySpec("compare.previous", "D", "next_divergence(-1)",
            "Previous tensor that differs from run B"),
    KeySpec("compare.side", "b", "toggle_side", "Stack Trace and Source Code: run B's side "
            "of the selected tensor (toggle, with --compare)", footer=True, label="B side"),
    KeySpec("pane.zoom", "z", "zoom", "Zoom the focused pane (toggle)", footer=True, label="zoom"),
    KeySpec("app.help", "question_mark", "help", "Help: the keys that work here",
            footer=True, label="help"),
    KeySpec("app.quit", "q", "quit", "Quit", footer=True, label="quit"),
)

# Keys that only apply with `--compare B`: in the footer only then (elsewhere they say why).
COMPARE_ACTIONS = frozenset({"next_divergence", "toggle_side"})

# Keys of every list pane (the virtual list widget).
LIST_KEYS: tuple[KeySpec, ...] = (
    KeySpec("list.up", "up,k", "cursor_up", "Move up", palette=False),
    KeySpec("list.down", "down,j", "cursor_down", "Move down", palette=False),
    KeySpec("list.page_up", "pageup", "page_up", "Page up", palette=False),
    KeySpec("list.page_down", "pagedown", "page_down", "Page down", palette=False),
    KeySpec("list.first", "home", "first", "First row", palette=False),
    KeySpec("list.last", "end", "last", "Last row", palette=False),
    KeySpec("list.follow", "enter", "select", "Follow the selection (jump to its tensor, op, "
            "stack and source)", footer=True, label="follow", palette=False),
)

# Keys of the Alerts pane only, once its alerts are grouped by incident (Enter on an
# incident's header folds or unfolds it too).
ALERTS_KEYS: tuple[KeySpec, ...] = (
    KeySpec("alerts.fold", "left", "fold", "Fold the incident to its header (its alerts hidden)",
            palette=False),
    KeySpec("alerts.unfold", "right", "unfold", "Unfold the incident: its alerts beneath",
            palette=False),
)

# Keys of the Timeline pane only: its rows scroll sideways, so the counts a narrow pane cuts
# (a call with three outputs at 120×32) can be read; a cut row ends in "…".
TIMELINE_KEYS: tuple[KeySpec, ...] = (
    KeySpec("timeline.left", "left", "scroll_rows(-1)", "Scroll the rows back left",
            palette=False),
    KeySpec("timeline.right", "right", "scroll_rows(1)",
            "Scroll the rows right: the counts a cut row (ending in …) hides", palette=False),
)

# Keys of the Stack Trace pane only.
STACK_KEYS: tuple[KeySpec, ...] = (
    KeySpec("stack.framework", "f", "toggle_framework",
            "Hide/show framework frames (TensorFlow, Keras, stdlib)",
            footer=True, label="framework"),
)

# Keys of the Graph Structure pane only: `i` there shows the pane's rows whole (long names
# are cut in the middle), not the diagnosis — the footer must say what it does there.
STRUCTURE_KEYS: tuple[KeySpec, ...] = (
    KeySpec("structure.whole", "i", "screen.show_details",
            "Graph Structure: show its rows whole (long names are cut in the middle)",
            footer=True, label="whole lines"),
)

# Keys of the Source Code pane only (it scrolls text rather than a cursor list).
SOURCE_KEYS: tuple[KeySpec, ...] = (
    KeySpec("source.up", "up,k", "scroll_up", "Scroll up", palette=False),
    KeySpec("source.down", "down,j", "scroll_down", "Scroll down", palette=False),
    KeySpec("source.page_up", "pageup", "page_up", "Page up", palette=False),
    KeySpec("source.page_down", "pagedown", "page_down", "Page down", palette=False),
    KeySpec("source.first", "home", "scroll_home", "Top of file", palette=False),
    KeySpec("source.last", "end", "scroll_end", "End of file", palette=False),
    KeySpec("source.left", "left", "scroll_left", "Scroll left (long lines)", palette=False),
    KeySpec("source.right", "right", "scroll_right", "Scroll right", palette=False),
    KeySpec("source.center", "enter", "center", "Re-centre the highlighted line",
            palette=False),
)

# Every spec by id (pane focus keys aside): for keymap checks and paired key displays.
SPECS_BY_ID: dict[str, KeySpec] = {
    s.id: s for s in (*NAV_KEYS, *ACTION_KEYS, *LIST_KEYS, *ALERTS_KEYS, *TIMELINE_KEYS,
                      *STACK_KEYS, *STRUCTURE_KEYS, *SOURCE_KEYS)}


def to_bindings(specs: tuple[KeySpec, ...]) -> list[Binding]:
    """Textual `Binding`s for a table of specs."""
    return [
        Binding(s.keys, s.action, s.label or s.description, show=s.footer,
                tooltip=s.description, id=s.id)
        for s in specs
    ]


LIST_BINDINGS = to_bindings(LIST_KEYS)
