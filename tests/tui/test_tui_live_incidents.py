"""A run still being written keeps its incidents in the Alerts pane (issue 31, point 2).

The logdir (tests/tui/incident_logdir.py) has two origins whose alerts interleave in time,
so the grouped rows are not in time order. It grows while the app follows it (the writer
appends a step: four more alerts). Every time the pane takes new alerts, before their
incidents are found again, the rows must stay grouped as before — the old alerts under their
incident headers in the same order, the cursor and a folded incident as they were — with the
new alerts in a visible last group, "new, not yet grouped"; once the incidents are found for
the grown list, every alert is in an incident. Waits are on the app's data event and on the
journey worker, never on a sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from incident_logdir import LINES, add_ops, add_two_origin_step
from support.slowdown import WAIT
from support.tui import start_reference, sync
from textual.worker import WorkerCancelled

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

PER_STEP = 4  # alerts per step: Sqrt's NaN, Log's −∞, then mul and Sum downstream


async def journey_found(app: TfdbgApp, pilot: Any) -> None:
    """Wait until the steps and incidents asked for the latest alerts are shown (the
    worker hands its result to the UI thread before it ends)."""
    async def wait() -> None:
        while True:
            running = [w for w in app.workers if w.group == "journey"]
            if not running:  # ended (they are launched with the data they are for)
                return
            try:
                await app.workers.wait_for_complete(running)
                return
            except WorkerCancelled:  # replaced by the one for a newer list
                continue

    await asyncio.wait_for(wait(), WAIT)
    await pilot.pause()


def rows(s: MainScreen) -> list[int]:
    vl = s.alerts.vlist
    return [vl.index_at(k) for k in range(vl.row_count)]


def texts(s: MainScreen) -> list[str]:
    return [s.alerts.render_row(r, 200).plain for r in rows(s)]


@sync
async def test_a_growing_run_keeps_its_incidents(tmp_path: Path) -> None:
    ref = start_reference(tmp_path / "live", source_lines=LINES)
    add_ops(ref)
    for step in range(2):
        add_two_origin_step(ref, step)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "live")), follow=True, notify=False,
                   poll_interval=0.05)
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await app.wait_for_data(lambda snap: not snap.indexing
                                    and len(snap.alerts) == 2 * PER_STEP, timeout=WAIT)
            await journey_found(app, pilot)
            s = app.main
            assert s is not None
            a = s.alerts
            n = 2 * PER_STEP
            before = rows(s)
            headers = [r for r in before if r >= n]
            assert len(headers) == 2, texts(s)
            assert [r for r in before if r < n] != list(range(n))  # grouped: not time order
            # incident 1 folded, the cursor on incident 2's first alert
            await pilot.press("1", "home", "down", "left", "down", "down")
            await pilot.pause()
            assert rows(s)[0] == n and texts(s)[0].startswith("▶ 1/2"), texts(s)
            chosen = a.selected_alert()
            assert chosen is not None and a.selected is not None
            assert a.vlist.position_of(a.selected) == 2

            seen: list[dict[str, Any]] = []  # the pane as each new alert list left it
            on_data = a.on_data

            def recorded() -> None:
                on_data()
                seen.append({"n": len(a.alerts), "rows": rows(s), "texts": texts(s),
                             "selected": a.selected_alert(),
                             "summary": str(s.query_one("#alerts-summary").render())})

            a.on_data = recorded  # type: ignore[method-assign]
            add_two_origin_step(ref, 2)
            m = 3 * PER_STEP
            await app.wait_for_data(lambda snap: len(snap.alerts) == m, timeout=WAIT)
            grown = next(r for r in seen if r["n"] == m)
            # the old rows as they were (row ids: alerts 0…n-1 kept their places, headers
            # renumbered n+k → m+k), the new alerts last under their own header
            old_rows = [r if r < n else r - n + m for r in rows_without_folded(before, n)]
            new_alerts = sorted(set(range(m)) - set(range(n)))
            fresh_header = m + 2
            assert grown["rows"] == [*old_rows, fresh_header, *new_alerts], grown["texts"]
            fresh = grown["texts"][len(old_rows)]
            assert fresh.startswith("▼ new") and f"{PER_STEP} alerts not yet grouped" in fresh
            assert grown["texts"][0].startswith("▶ 1/2"), grown["texts"]  # still folded
            assert grown["selected"] == chosen  # the cursor kept its alert
            assert grown["summary"].startswith(f"2 incidents + {PER_STEP} new not yet grouped")

            await journey_found(app, pilot)  # the incidents of the grown list
            assert not any("not yet grouped" in t for t in texts(s)), texts(s)
            assert texts(s)[0].startswith("▶ 1/2"), texts(s)  # the fold outlives it too
            assert a.selected_alert() == chosen
            assert str(s.query_one("#alerts-summary").render()).startswith("2 incidents ·")
            await pilot.press("home", "right")  # incident 1 unfolded
            await pilot.pause()
            after = rows(s)
            assert sorted(r for r in after if r < m) == list(range(m))  # each alert once
            assert len([r for r in after if r >= m]) == 2
    finally:
        ref.writer.close()


def rows_without_folded(shown: list[int], n: int) -> list[int]:
    """The rows of `shown` (all unfolded) once incident 1 is folded: its alerts go."""
    second = [r for r in shown if r >= n][1]
    return [shown[0], *shown[shown.index(second):]]


def test_alerts_sorted_between_old_ones_keep_their_neighbours_groups() -> None:
    """Records of two files can sort a new alert before old ones (another host's file read
    later): old alerts keep their incident wherever they now sit; the new ones go apart."""
    import numpy as np

    from reader import Alerts
    from reader.diagnosis.incidents import Incident
    from tfdbg_tui.core.alert_groups import AlertGroups, positions_in

    def alerts(pairs: list[tuple[int, int]]) -> Alerts:
        kind, index = zip(*pairs, strict=True)
        n = len(pairs)
        return Alerts(np.array(kind), np.array(index), np.zeros(n, np.int64),
                      np.arange(n, dtype=np.float64))

    old = alerts([(0, 5), (0, 7), (1, 2)])
    new = alerts([(0, 5), (1, 9), (0, 7), (1, 2), (0, 8)])
    moved = positions_in(old, new)
    assert moved is not None and moved.tolist() == [0, 2, 3]
    items = [Incident(1, ("a",), None, 0, 0), Incident(2, ("b",), None, 1, 0)]
    g = AlertGroups(3, items, np.array([0, 1, 1])).grown(moved, 5)
    assert g.incident_of.tolist() == [0, 2, 1, 1, 2] and g.fresh == 2 and g.groups == 3
    assert g.rows(None, ()).tolist() == [5, 0, 6, 2, 3, 7, 1, 4]
    assert g.grown(np.arange(5), 6).fresh == 3  # grown again: the new ones stay apart
    assert positions_in(old, alerts([(0, 5), (1, 2)])) is None  # rewritten, not grown
