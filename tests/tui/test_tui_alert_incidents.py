"""The Alerts pane grouped by incident (issue 31, point 2): a header per origin — its origin,
cause, step, how many alerts are downstream — with its alerts beneath, foldable; selection,
follow, `n`/`N`, `g`, `o`, filter and zoom working on the grouped rows.

The logdir (tests/tui/incident_logdir.py) has two origins whose alerts interleave in time
(Sqrt of negatives, then Log of a zero, every step), so grouping must reorder rows; what the
groups hold is checked against `report --json`'s incidents (first alert and count).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from incident_logdir import write_two_origins
from support.step_runs import RUNS, step_logdir
from support.tui import settle, sync

from reader import GRAPH, DebugLogdir
from tfdbg_tui.commands import report
from tfdbg_tui.core.alert_groups import AlertGroups
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen


@pytest.fixture
def two(tmp_path: Path) -> str:
    write_two_origins(tmp_path / "logdir")
    return str(tmp_path / "logdir")


def incidents_json(logdir: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    report.main([logdir, "--json"])
    out: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["incidents"]
    return out


def rows(s: MainScreen) -> list[int]:
    vl = s.alerts.vlist
    return [vl.index_at(k) for k in range(vl.row_count)]


def plain(s: MainScreen, row: int) -> str:
    return s.alerts.render_row(row, 200).plain


@sync
async def test_alerts_are_grouped_under_their_incident(
        two: str, capsys: pytest.CaptureFixture[str]) -> None:
    want = incidents_json(two, capsys)
    assert len(want) == 2
    app = TfdbgApp(DebugLogdir(two), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        n = len(s.alerts.alerts)
        shown = rows(s)
        headers = [k for k, r in enumerate(shown) if r >= n]
        assert headers[0] == 0 and len(headers) == 2
        groups = [shown[1:headers[1]], shown[headers[1] + 1:]]
        for inc, members in zip(want, groups, strict=True):
            assert len(members) == inc["alerts"]
            assert members[0] == inc["first_alert"] and members == sorted(members)
        assert sorted(groups[0] + groups[1]) == list(range(n))  # every alert, once
        assert groups[0] != list(range(len(groups[0])))  # interleaved in time: reordered
        for k, inc in enumerate(want):
            head = plain(s, shown[headers[k]])
            assert head.startswith(f"▼ {k + 1}/2 ")
            assert inc["origin"]["op_name"] in head
            assert f"{inc['alerts']} alerts downstream" in head
            assert inc["explanation"] in head  # the cause, in words
            assert plain(s, groups[k][0]).split()[0] == str(groups[k][0] + 1)
        # the first alert is selected and followed, under its header
        assert s.alerts.selected == 0 and s.alerts.vlist.position_of(0) == 1
        assert s.ge.selected == int(s.alerts.alerts.index[0])
        summary = str(s.query_one("#alerts-summary").render())
        assert summary.startswith("2 incidents")


@sync
async def test_fold_unfold_and_the_keys_on_grouped_rows(two: str) -> None:
    app = TfdbgApp(DebugLogdir(two), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        a, n = s.alerts, len(s.alerts.alerts)
        await pilot.press("left")  # fold incident 1: its header is selected
        await settle(app, pilot)
        assert rows(s)[:2] == [n, n + 1] and a.selected_incident() == 0
        assert a.selected is None and plain(s, n).startswith("▶ 1/2")
        assert "incident 1" in a.diagnosis_box.plain and "Sqrt produced NaN" in (
            a.diagnosis_box.plain)
        await pilot.press("o")  # the header's origin
        await settle(app, pilot)
        assert s.current_pane() is s.ge
        assert s.ge.selected == int(a.alerts.index[0])
        await pilot.press("1", "n")  # from the folded header: the next alert shown (incident 2)
        await settle(app, pilot)
        assert a.selected == 1 and s.ge.selected == int(a.alerts.index[1])
        await pilot.press("N")  # nothing before it but headers and folded alerts
        await settle(app, pilot)
        assert a.selected == 1
        await pilot.press("home", "enter")  # Enter on the folded header unfolds it
        await settle(app, pilot)
        assert len(rows(s)) == n + 2 and a.selected_incident() == 0
        await pilot.press("down", "left", "right")  # fold from an alert, unfold the header
        await settle(app, pilot)
        assert len(rows(s)) == n + 2 and a.selected_incident() == 0
        # g: an alert of a folded incident unfolds it
        s.alerts.vlist.select_index(n + 1)
        await pilot.press("left")
        await settle(app, pilot)
        assert 2 not in rows(s)
        await pilot.press("g", "3", "enter")
        await settle(app, pilot)
        assert a.selected == 2 and 2 in rows(s)
        # zoom keeps the selected row in view
        await pilot.press("end")
        await settle(app, pilot)
        for _ in range(2):
            await pilot.press("z")
            await settle(app, pilot)
            vl = a.vlist
            top, cur = int(vl.scroll_offset.y), vl.position_of(vl.cursor_index or 0)
            assert cur is not None and top <= cur < top + vl.scrollable_content_region.height


@sync
async def test_a_filter_keeps_the_groups_of_what_it_keeps(two: str) -> None:
    app = TfdbgApp(DebugLogdir(two), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        n = len(s.alerts.alerts)
        await pilot.press("slash", *"Sum", "enter")
        await settle(app, pilot)
        shown = rows(s)
        assert shown[0] == n + 1  # only incident 2 holds Sum alerts
        names = [s.state.logdir.trace_name(int(s.alerts.alerts.index[r])) for r in shown[1:]]
        assert names == ["Sum:0"] * 3
        assert "3 of 9 alerts" in plain(s, n + 1)
        assert int(s.alerts.alerts.kind[shown[1]]) == GRAPH


def test_groups_reorder_interleaved_alerts_and_fold() -> None:
    """`AlertGroups` alone: alerts counted with the diagnosed alert before them."""
    from reader.diagnosis.incidents import Incident, Incidents

    items = [Incident(1, ("a",), None, 0, None, alerts=5),
             Incident(2, ("b",), None, 2, None, alerts=3)]
    incidents = Incidents(items, {0: 1, 2: 2, 5: 1}, {}, 8)
    g = AlertGroups.of(incidents, 8)
    assert g is not None
    assert g.incident_of.tolist() == [0, 0, 1, 1, 1, 0, 0, 0]
    assert g.rows(None, ()).tolist() == [8, 0, 1, 5, 6, 7, 9, 2, 3, 4]
    assert g.rows(None, {0}).tolist() == [8, 9, 2, 3, 4]
    assert g.rows(np.array([3, 6]), ()).tolist() == [8, 6, 9, 3]
    assert g.rows(np.array([3]), ()).tolist() == [9, 3]  # an incident with none: left out
    assert g.shown(np.array([3, 6])).tolist() == [1, 1]
    assert AlertGroups.of(incidents, 9) is None  # not these alerts' incidents


@pytest.mark.tf
@pytest.mark.parametrize("form", ["eager", "function"])
@sync
async def test_incident_headers_say_the_step(tmp_path_factory: pytest.TempPathFactory,
                                             form: str) -> None:
    bad, _ = RUNS[form]
    app = TfdbgApp(DebugLogdir(step_logdir(tmp_path_factory, form)), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        first = s.alerts.vlist.index_at(0)
        assert first >= len(s.alerts.alerts)  # a header comes first
        assert f" step {bad} " in plain(s, first)
