"""`core.row_runs`: the grouped Alerts rows kept as ranges say what per-row arrays said.

The reference is the layout the pane had before it kept ranges: one incident per alert, the
rows in display order by a stable sort, a position per row through an inverse array.
"""

from __future__ import annotations

import numpy as np
import pytest

from reader.diagnosis.incidents import Incident, Incidents
from tfdbg_tui.core.alert_groups import AlertGroups
from tfdbg_tui.core.row_runs import Runs, Segments


def _dense_rows(inc: np.ndarray, groups: int, view: np.ndarray | None,
                collapsed: set[int]) -> np.ndarray:
    n = len(inc)
    positions = np.arange(n) if view is None else view
    order = np.argsort(inc[positions], kind="stable")
    grouped, sorted_inc = positions[order], inc[positions][order]
    parts: list[list[int]] = []
    for k in range(groups):
        mine = grouped[sorted_inc == k].tolist()
        if not mine and view is not None:
            continue
        parts.append([n + k] + ([] if k in collapsed else mine))
    return np.array([r for p in parts for r in p], np.int64)


def _inverse_positions(rows: np.ndarray, count: int) -> tuple[list[int | None], list[int]]:
    inverse = np.full(count, -1)
    inverse[rows] = np.arange(len(rows))
    exact = [int(p) if p >= 0 else None for p in inverse]
    nearest = []
    for i in range(count):
        below = np.flatnonzero(inverse[: i + 1] >= 0)
        nearest.append(int(inverse[below[-1]]) if len(below) else 0)
    return exact, nearest


@pytest.mark.parametrize("seed", range(12))
def test_grouped_rows_as_ranges_equal_the_per_row_layout(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    k = int(rng.integers(1, 5))
    diagnosed = sorted({0, *rng.integers(0, n, int(rng.integers(0, 8))).tolist()})
    of_alert = {p: int(rng.integers(1, k + 1)) for p in diagnosed}
    used = sorted(set(of_alert.values()))
    renumber = {u: i + 1 for i, u in enumerate(used)}
    of_alert = {p: renumber[v] for p, v in of_alert.items()}
    items = [Incident(i + 1, (i,), None, 0, None) for i in range(len(used))]
    g = AlertGroups.of(Incidents(items, of_alert, {}, n), n)
    assert g is not None
    starts = np.array(diagnosed)
    numbers = np.array([of_alert[p] for p in diagnosed])
    dense = numbers[np.maximum(np.searchsorted(starts, np.arange(n), "right") - 1, 0)] - 1
    assert g.incident_of.tolist() == dense.tolist()
    for collapsed in (set(), {0}, set(range(len(items)))):
        got = g.rows(None, collapsed)
        want = _dense_rows(dense, g.groups, None, collapsed)
        assert isinstance(got, Segments) and got.tolist() == want.tolist()
        assert [got[p] for p in range(len(got))] == want.tolist()
        exact, nearest = _inverse_positions(want, g.count())
        assert [got.position_of(r) for r in range(g.count())] == exact
        assert [got.nearest_position(r) for r in range(g.count())] == nearest
    view = np.flatnonzero(rng.random(n) < 0.5)
    assert g.rows(view, ()).tolist() == _dense_rows(dense, g.groups, view, set()).tolist()
    assert g.shown(None).tolist() == np.bincount(dense, minlength=g.groups).tolist()
    assert g.shown(view).tolist() == np.bincount(dense[view], minlength=g.groups).tolist()
    for j in range(g.groups):
        hits = np.flatnonzero(dense == j)
        assert g.first_of(j) == (int(hits[0]) if len(hits) else None)
    assert [g.incident_at(p) for p in range(n)] == dense.tolist()


def test_an_unordered_array_kept_as_ranges() -> None:
    rows = np.array([9, 3, 4, 5, 0, 7, 8])
    s = Segments.of_rows(rows)
    assert s.starts.tolist() == [9, 3, 0, 7] and s.lengths.tolist() == [1, 3, 1, 2]
    exact, nearest = _inverse_positions(rows, 10)
    assert [s.position_of(r) for r in range(10)] == exact
    assert [s.nearest_position(r) for r in range(10)] == nearest
    assert len(Segments.of_rows(np.zeros(0, np.int64))) == 0


def test_runs_count_and_lookup() -> None:
    dense = np.array([2, 2, 0, 0, 0, 1, 2, 2])
    r = Runs.of(dense)
    assert r.starts.tolist() == [0, 2, 5, 6]
    assert r.at(np.arange(8)).tolist() == dense.tolist()
    assert r.count(3).tolist() == [3, 1, 4]
    assert r.dense().tolist() == dense.tolist()


def test_five_million_grouped_alerts_hold_no_array_per_alert() -> None:
    """The layout of 5.5M alerts in two incidents is a few ranges."""
    n = 5_554_990
    items = [Incident(1, ("a",), None, 0, None), Incident(2, ("b",), None, 3, None)]
    g = AlertGroups.of(Incidents(items, {0: 1, 3: 2, 7: 1}, {}, n), n)
    assert g is not None
    rows = g.rows(None, ())
    assert isinstance(rows, Segments) and len(rows.starts) == 5 and len(rows) == n + 2
    assert [rows[p] for p in range(6)] == [n, 0, 1, 2, 7, 8]
    assert rows.position_of(n - 1) == n - 4 and rows.position_of(n + 1) == n - 3
    assert rows.position_of(3) == n - 2 and rows[n + 1] == 6
    assert g.shown(None).tolist() == [n - 4, 4]
