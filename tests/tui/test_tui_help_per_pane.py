"""`?` lists the keys that work in the focused pane, then those that work everywhere (issue
31: help generated only from bindings that work in the focused pane).

Each pane is focused in turn and its help read; what a pane's help claims is then checked by
pressing the keys (a key it lists for another pane acts there, a key it leaves out does
nothing here).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tui import settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen

# pane number → (title, phrases its help must have, phrases it must not)
LIST_KEYS = ("Move up", "First row", "Last row")
SCROLL_KEYS = ("Scroll up", "Scroll left", "Re-centre the highlighted line")
PANES = {
    "1": ("Alerts", (*LIST_KEYS, "Follow the selected alert", "Go to an alert number",
                     "← Fold the incident to its header", "→ Unfold the incident",
                     "Filter Alerts", "Graph Executions: only rows with NaN/∞",
                     "Show the whole diagnosis"),
          (*SCROLL_KEYS, "Hide/show framework frames", "show its rows whole")),
    "2": ("Python Execution Timeline", (*LIST_KEYS, "Follow the selected op",
                                        "Filter Python Execution Timeline"),
          (*SCROLL_KEYS, "Hide/show framework frames", "Go to an alert number")),
    "3": ("Graph Executions", (*LIST_KEYS, "Follow the selected tensor",
                               "Filter Graph Executions (regex on op name/type)\n"),
          (*SCROLL_KEYS, "Hide/show framework frames", "Fold the incident")),
    "4": ("Graph Structure", (*LIST_KEYS, "show its rows whole",
                              "Filter Graph Executions (regex on op name/type); this pane "
                              "has no filter"),
          (*SCROLL_KEYS, "Show the whole diagnosis", "Hide/show framework frames")),
    "5": ("Source Code", (*SCROLL_KEYS, "End of file", "Go to a row index in Graph Executions",
                          "Copy file:line"),
          (*LIST_KEYS, "Hide/show framework frames", "show its rows whole")),
    "6": ("Stack Trace", (*LIST_KEYS, "Hide/show framework frames",
                          "Show the selected frame's line in Source Code",
                          "Filter Stack Trace (regex on file or function)"),
          (*SCROLL_KEYS, "show its rows whole")),
}


@pytest.fixture
def ref(tmp_path: Path) -> str:
    write_reference(tmp_path / "logdir", steps=3)
    return str(tmp_path / "logdir")


async def _help(app: TfdbgApp, pilot, number: str) -> str:  # type: ignore[no-untyped-def]
    await pilot.press(number)
    await pilot.press("question_mark")
    await pilot.pause()
    assert isinstance(app.screen, HelpScreen)
    text = app.screen.plain_text()
    await pilot.press("escape")
    await pilot.pause()
    return "\n".join(" ".join(line.split()) for line in text.splitlines()) + "\n"


@sync
async def test_each_pane_lists_its_own_keys_and_the_global_ones(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        for number, (title, has, lacks) in PANES.items():
            text = await _help(app, pilot, number)
            assert f"the keys in {title} " in text.splitlines()[0], text
            own, everywhere = text.split("\nEverywhere\n", 1)
            assert f"In {title}\n" in own
            for phrase in has:
                assert phrase in text, (title, phrase, text)
            for phrase in lacks:
                assert phrase not in text, (title, phrase, text)
            # the global keys, whatever the pane
            for phrase in ("Next alert", "Jump to where", "Zoom the focused pane",
                           "Command palette", "q / ^c Quit"):
                assert phrase in everywhere, (title, phrase)
            assert "Copy selected text" not in text  # Textual's ctrl+c: here it quits
            assert "differs from run B" not in text  # d/D need --compare


@sync
async def test_what_help_says_a_key_does_there_is_what_it_does(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        # Graph Structure: "/ Filter Graph Executions"
        await pilot.press("4", "slash", *"Log", "enter")
        await settle(app, pilot)
        assert s.ge.pattern == "Log" and not s.structure.pattern
        # Alerts: "a" toggles Graph Executions' NaN/∞ rows
        await pilot.press("1", "a")
        await settle(app, pilot)
        assert s.ge.only_bad
        # Alerts: "← Fold the incident to its header"
        incident = s.alerts._groups.incident_at(s.alerts.selected_row())  # type: ignore[union-attr]
        await pilot.press("left")
        await settle(app, pilot)
        assert s.alerts.selected_incident() == incident and incident in s.alerts._collapsed
        # Graph Executions: ← and → are not listed, and do nothing there
        await pilot.press("3")
        before = (s.ge.vlist.cursor_index, s.ge.vlist.scroll_offset)
        await pilot.press("right", "left")
        await settle(app, pilot)
        assert (s.ge.vlist.cursor_index, s.ge.vlist.scroll_offset) == before
        # Stack Trace: "/ Filter Stack Trace (regex on file or function)"
        await pilot.press("6", "slash", *"cross_entropy", "enter")
        await settle(app, pilot)
        shown = [s.stack.frames[k] for k in s.stack.shown]
        assert shown and all(f.function == "cross_entropy" for f in shown), shown
        await pilot.press("slash", "enter")  # (empty: cleared)
        await settle(app, pilot)
        # Source Code: "end" goes to the end of the file, "k" scrolls up
        await pilot.press("5", "end")
        await settle(app, pilot)
        view = s.source.view
        bottom = view.scroll_offset.y
        await pilot.press("k")
        await settle(app, pilot)
        assert bottom > 0 and view.scroll_offset.y == bottom - 1
