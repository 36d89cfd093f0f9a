"""What `?` lists: the keys that work in the focused pane, then those that work everywhere.

Why from the focus: a key does what the widget chain from the focused widget up to the app
says (Textual dispatches a key to the first binding for it on that chain), so help built
from that chain (`Screen.active_bindings`: the user's keymap applied, `check_action`
honoured, a pane's own binding hiding the screen's for the same key) lists exactly the keys
that do something here — the Source Code pane's scrolling, not a list's cursor keys; Graph
Structure's `i`, not the diagnosis' — and nothing else. Keys that act on another pane from
here (`/` on Source Code filters Graph Executions) say which.
Textual's own bindings are left out: they do nothing useful in these panes (ctrl+c "copy
text" while ctrl+c quits, ←/→ scrolling in lists that do not scroll sideways).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App
from textual.binding import Binding

from tfdbg_tui.ui.bindings import ACTION_KEYS, NAV_KEYS, SPECS_BY_ID

if TYPE_CHECKING:
    from tfdbg_tui.ui.main_screen import MainScreen
    from tfdbg_tui.ui.panes.base import Pane

# the ids of every key table in declaration order, ctrl+c's (app.interrupt) after q's
IDS = [*(s.id for s in (*NAV_KEYS, *ACTION_KEYS)), "app.interrupt",
       *(i for i in SPECS_BY_ID if i not in {s.id for s in (*NAV_KEYS, *ACTION_KEYS)})]
Rows = list[tuple[str, str]]  # (keys shown, what they do here)
EVERYWHERE = "Everywhere"

# what `y` copies, by pane (`FixActions.action_copy`)
COPIES = {"alerts": "the selected alert's tensor name", "timeline": "the selected op",
          "graph_executions": "the selected tensor's name", "graph_structure": "the selected "
          "name", "source": "file:line", "stack": "the selected frame's file:line"}

# what Enter does, by pane (each pane's `on_virtual_list_selected`)
FOLLOWS = {"alerts": "Follow the selected alert: its tensor, op, stack and source line (on "
           "an incident's header: fold or unfold it)",
           "timeline": "Follow the selected op (a tf.function call: its first graph tensor, "
           "in Graph Executions), its stack and source line",
           "graph_executions": "Follow the selected tensor: its op, stack and source line",
           "graph_structure": "Follow the selected input or consumer: its tensor, op, stack "
           "and source line",
           "stack": "Show the selected frame's line in Source Code (on a collapsed run of "
           "framework frames: show them)"}


def help_sections(screen: MainScreen) -> list[tuple[str, Rows]]:
    """(title, rows) for the focused pane's own keys and for the keys of every pane."""
    pane = screen.current_pane()
    sections: dict[str, dict[str, list[str]]] = {}
    for active in sorted(screen.active_bindings.values(), key=lambda a: _rank(a.binding)):
        b = active.binding
        if b.system or not b.id or not active.enabled:
            continue
        desc = describe(screen, pane, b)
        if desc is None:
            continue
        mine = pane is not None and pane in active.node.ancestors_with_self
        title = f"In {pane.TITLE}" if mine and pane is not None else EVERYWHERE
        # the plain display: the footer's paired "n/N" would list N twice here
        label = App.get_key_display(screen.app, b)
        keys = sections.setdefault(title, {}).setdefault(desc, [])
        if label not in keys:
            keys.append(label)
    app = screen.app
    palette = getattr(app, "COMMAND_PALETTE_BINDING", "ctrl+p")
    sections.setdefault(EVERYWHERE, {})["Command palette: search every action"] = [
        App.get_key_display(app, Binding(palette, "command_palette"))]
    order = sorted(sections, key=lambda t: t == EVERYWHERE)  # the pane's first
    return [(t, [(" / ".join(keys), d) for d, keys in sections[t].items()]) for t in order]


def _rank(b: Binding) -> float:
    """Rows in the order the key tables declare them (Textual's chain order puts a priority
    binding, ctrl+c, first); the pane focus keys (`pane.<name>`) after Tab, in number order
    (the sort is stable)."""
    if b.id in IDS:
        return IDS.index(b.id)
    return len(NAV_KEYS) - 0.5 if (b.id or "").startswith("pane.") else len(IDS)


def describe(screen: MainScreen, pane: Pane | None, b: Binding) -> str | None:
    """What binding `b` does when pressed with `pane` focused (None: it does nothing)."""
    action = b.action.split("(")[0]
    desc = b.tooltip or b.description
    key = pane.SPEC.key if pane is not None else ""
    if action in ("filter", "toggle_only_bad", "goto"):
        target = screen.list_target(action)
        other = target is not pane
        if action == "filter":
            return f"Filter {target.TITLE} (regex on {target.FILTER_WHAT})" + (
                "; this pane has no filter" if other else "")
        if action == "goto":
            what = target.GOTO_WHAT
            return f"Go to {'an' if what[0] in 'aeiou' else 'a'} {what}" + (
                f" in {target.TITLE}" if other else "")
        return (f"{target.TITLE}: only rows with NaN/∞ (toggle)" if other
                else "Only rows with NaN/∞ (toggle)")
    if action == "inspect_values" and key not in ("alerts", "timeline", "graph_executions"):
        return "Inspect the values of Graph Executions' selected tensor"
    if action == "select" and key in FOLLOWS:
        return FOLLOWS[key]
    if action == "copy":
        return f"Copy {COPIES.get(key, 'the selection')} to the clipboard"
    return desc
