"""Panes register themselves: the screen's layout, number keys and tab line come from the
registry, and every pane module in the package is in it."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from support.tui import settle, sync, workers_done, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui import panes
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import SCREEN_KEYS
from tfdbg_tui.ui.panes.base import ListPane, Pane, TableListPane
from tfdbg_tui.ui.panes.registry import AREAS, register_pane, registered_panes


def pane_classes() -> set[type[Pane]]:
    """Every concrete pane class defined in the package's modules."""
    found: set[type[Pane]] = set()
    for info in pkgutil.iter_modules(panes.__path__):
        module = importlib.import_module(f"{panes.__name__}.{info.name}")
        for _name, obj in inspect.getmembers(module, inspect.isclass):
            if (issubclass(obj, Pane) and obj.__module__ == module.__name__
                    and obj not in (Pane, ListPane, TableListPane)):
                found.add(obj)
    return found


def test_every_pane_module_is_registered_once() -> None:
    specs = registered_panes()
    assert [s.number for s in specs] == list(range(1, len(specs) + 1))
    assert {s.widget for s in specs} == pane_classes()
    assert len({s.dom_id for s in specs}) == len(specs)
    assert all(s.area in AREAS for s in specs)
    focus = [k for k in SCREEN_KEYS if k.id.startswith("pane.") and k.keys.isdigit()]
    assert [(k.id, k.keys) for k in focus] == [(f"pane.{s.key}", str(s.number)) for s in specs]


def test_registering_a_taken_number_or_an_unknown_area_fails() -> None:
    with pytest.raises(ValueError, match="taken"):
        @register_pane(1, "other", "Other", short="Other", area="top-left")
        class Other(Pane):
            pass
    with pytest.raises(ValueError, match="area"):
        register_pane(99, "nowhere", "Nowhere", short="Nowhere", area="attic")
    assert len(registered_panes()) == len(pane_classes())


@sync
async def test_number_keys_and_tab_line_follow_the_registry(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("panes") / "logdir"
    write_reference(path)
    app = TfdbgApp(DebugLogdir(str(path)), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        specs = registered_panes()
        for spec in reversed(specs):
            await pilot.press(str(spec.number))
            pane = s.current_pane()
            assert pane is not None and type(pane) is spec.widget
            assert pane.id == spec.dom_id
            assert pane.parent is not None and pane.parent.id == spec.area
        tabs = str(s.query_one("#pane-tabs").render())
        assert tabs.split() == [w for spec in specs for w in (str(spec.number),
                                                               *spec.short.split())]


@sync
async def test_palette_runs_a_panes_own_key_on_that_pane(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    path = tmp_path_factory.mktemp("palette") / "logdir"
    write_reference(path)
    app = TfdbgApp(DebugLogdir(str(path)), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.stack.hide_framework  # the user's frames first, by default
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"framework frames")
        await workers_done(app)  # the palette searches in a worker
        await pilot.pause()
        await pilot.press("enter")
        await settle(app, pilot)
        assert not s.stack.hide_framework
