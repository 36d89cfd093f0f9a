"""A keymap file nested too deep to parse is one warning, and the app starts with the default
keys (issue 21, point 9).

Both files are under the keymap's size cap (1 MB), so only the nesting is wrong: JSON and
TOML parsers recurse per level and raised RecursionError, which stopped the app.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tui import record_notifications, settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.core.keymap import MAX_BYTES, load_keymap
from tfdbg_tui.ui.app import TfdbgApp

DEEP = {
    "keymap.json": "[" * 200_000 + "]" * 200_000,
    "keymap.toml": '"alert.next" = ' + "[" * 200_000 + '"x"' + "]" * 200_000 + "\n",
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_a_deeply_nested_keymap_is_one_warning(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "tfdbg-tui"
    folder.mkdir()
    (folder / name).write_text(DEEP[name])
    assert (folder / name).stat().st_size <= MAX_BYTES
    keymap = load_keymap({"alert.next"}, folder)
    assert keymap.keys == {}
    assert len(keymap.problems) == 1 and "\n" not in keymap.problems[0]
    assert name in keymap.problems[0]


@sync
async def test_the_app_starts_with_the_default_keys(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config" / "tfdbg-tui"
    folder.mkdir(parents=True)
    (folder / "keymap.json").write_text(DEEP["keymap.json"])
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    write_reference(tmp_path / "logdir")
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    said = record_notifications(app)  # said at launch: its toast may be gone after settling
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        assert any("keymap.json" in m for m in said), said
        await pilot.press("2")  # a default key still works: Python Execution Timeline
        await pilot.pause()
        assert app.main is not None and app.main.current_pane() is app.main.timeline
