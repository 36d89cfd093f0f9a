"""The list panes follow a theme switch, and a user keymap file rebinds keys.

Both drive the real app on a deterministic logdir (`write_reference`); the theme test reads
the segments the list really draws, the keymap test presses keys and reads the help screen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.style import Style
from support.tui import follow_first_alert, settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.core.keymap import load_keymap
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen
from tfdbg_tui.ui.main_screen import MainScreen
from tfdbg_tui.ui.vlist import VirtualList

SIZE = (200, 50)


@pytest.fixture(scope="module")
def ref_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("theme") / "logdir"
    write_reference(path, steps=3)
    return str(path)


def row_backgrounds(vlist: VirtualList, rows: range) -> set[str]:
    """The background colours of the plain text the list draws on `rows` (health chips,
    which carry their own background, left out)."""
    out = set()
    for y in rows:
        for seg in vlist.render_line(y):
            style = seg.style or Style()
            if style.bgcolor is not None and not seg.text.startswith(("NaN", "−∞", "+∞")):
                out.add(style.bgcolor.name)
    return out


@sync
async def test_rows_take_the_new_theme_colours(ref_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(ref_logdir), follow=False)
    app.theme = "textual-dark"
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        vlist = s.ge.vlist
        # the launch follows the first alert (cursor and marked inputs): put the cursor on
        # row 0 and clear the marks, so that rows 1.. are plain rows
        vlist.select_index(0)
        s.ge.mark_inputs(frozenset())
        await pilot.pause()
        assert vlist.row_count >= 10
        rows = range(2, 8)
        dark = row_backgrounds(vlist, rows)
        dark_surface = vlist.rich_style.bgcolor
        assert dark_surface is not None and dark == {dark_surface.name}

        app.theme = "textual-light"  # what the palette's theme switcher sets
        await pilot.pause()
        light_surface = vlist.rich_style.bgcolor
        assert light_surface is not None and light_surface != dark_surface
        assert row_backgrounds(vlist, rows) == {light_surface.name}


def write_keymap(config_home: Path, name: str, content: str) -> None:
    directory = config_home / "tfdbg-tui"
    directory.mkdir(parents=True)
    (directory / name).write_text(content, encoding="utf-8")


@sync
async def test_user_keymap_rebinds_keys_and_help_shows_them(
        ref_logdir: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_keymap(tmp_path, "keymap.toml", '"alert.next" = "x"\n"app.help" = ["f1"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    app = TfdbgApp(DebugLogdir(ref_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await follow_first_alert(app, pilot)
        s = app.main
        assert s is not None
        assert len(s.alerts.alerts) >= 2 and s.alerts.selected == 0
        await pilot.press("n")  # no longer bound
        assert s.alerts.selected == 0
        await pilot.press("x")
        await settle(app, pilot)
        assert s.alerts.selected == 1

        await pilot.press("question_mark")  # rebound too: nothing opens
        assert isinstance(app.screen, MainScreen)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        lines = app.screen.plain_text().splitlines()
        next_alert = next(ln for ln in lines if "Next alert" in ln)
        assert next_alert.split()[0] == "x"  # each key on its own row (the footer pairs them)
        previous = next(ln for ln in lines if "Previous alert" in ln)
        assert previous.split()[0] == "N"
        help_line = next(ln for ln in lines if "Help: the keys that work here" in ln)
        assert help_line.split()[0] == "f1"


def test_keymap_problems_are_reported_and_the_rest_applies(tmp_path: Path) -> None:
    write_keymap(tmp_path, "keymap.json", json.dumps(
        {"alert.next": "x", "no.such.binding": "y", "app.quit": 3}))
    keymap = load_keymap({"alert.next", "app.quit"}, tmp_path / "tfdbg-tui")
    assert keymap.keys == {"alert.next": "x"}
    assert len(keymap.problems) == 2
    assert any("no.such.binding" in p for p in keymap.problems)
    assert any("app.quit" in p for p in keymap.problems)


def test_a_broken_keymap_file_is_one_problem(tmp_path: Path) -> None:
    write_keymap(tmp_path, "keymap.toml", "this is = = not toml")
    keymap = load_keymap({"alert.next"}, tmp_path / "tfdbg-tui")
    assert keymap.keys == {} and len(keymap.problems) == 1
    assert "keymap.toml" in keymap.problems[0]
