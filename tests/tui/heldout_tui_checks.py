"""The held-out NaN journey in the TUI (issue 31): the checks of test_heldout_tui.py (at
160×45) and test_heldout_tui_narrow.py (at 80×24), one app session per program and size.
Two files so that `make test`'s file-per-worker scheduler runs the 16 sessions on two
workers (one file was the longest left, 252 s of one worker, its recordings kept). The
eight programs of tests/programs/heldout_nan/, opened as a new user meets them.

Recorded with `tfdbg-tui run -- PROGRAM` exactly as tests/diagnosis/test_heldout_journey.py
records them (the same shared build key, so one test run records each program once).
What each must say is tests/tui/heldout_expect.py, written from the programs' marked lines
before the app was opened on any of them. Asserted from what the panes show (the screen's
text, pane by pane), one app session per program and size:
- the header says "first NaN at step K of N"; Alerts says "1 incident" and lists the alerts
  under one incident heading in step K, the first row in step K, no row before it;
- the diagnosis under the list starts "step K: <origin op>" and names the cause;
- Stack Trace lists the user's own frames, TensorFlow's collapsed in rows saying how many
  (the user frames plus the counts make the title's total), the origin's own line selected
  and visible without scrolling;
- Source Code shows the line to fix (`# FIX`), marked, its path and line in the title;
- `o` on the last alert focuses the origin's row, and `v` then inspects the origin;
- every count of Graph Executions is whole, at 80×24 too (or the pane says why it is
  empty);
- the footer offers `y` where a row is selected, `e`/`w`/`y` in Source Code and Stack Trace.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from heldout_expect import EXPECT, Expect
from support.paths import PROGRAMS
from support.recordings import recorded_run
from support.tui import settle
from textual.widget import Widget
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from reader import GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.inspector.inspector import ValueInspector
from tfdbg_tui.ui.render import health_chips

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan"
NAMES = sorted(EXPECT)
WIDE_ONLY = {"test_o_after_following_the_last_alert_shows_the_line_to_change"}


def parametrize(metafunc: pytest.Metafunc, sizes: list[tuple[int, int]]) -> None:
    """Every program at each of `sizes` (a test file's pytest_generate_tests); at 80×24 one
    pane shows at a time (`o` focuses the origin's list): the checks that need Source Code
    beside the list (WIDE_ONLY) run at a wide size only, not skipped at a narrow one."""
    if {"name", "size"} <= set(metafunc.fixturenames):
        wide = metafunc.function.__name__ in WIDE_ONLY
        metafunc.parametrize(("name", "size"), [
            pytest.param(n, s, id=f"{n}-{s[0]}x{s[1]}") for n in NAMES for s in sizes
            if not wide or s[0] >= 160])


def _logdir(tmp_path_factory: pytest.TempPathFactory, name: str) -> str:
    """The program recorded with `tfdbg-tui run` (once per test run, shared with
    tests/diagnosis/test_heldout_journey.py under the same key)."""
    pytest.importorskip("tensorflow")
    return recorded_run(tmp_path_factory, f"heldout-nan-{name}", HELDOUT / f"{name}.py",
                        cwd=HELDOUT)[0]


@dataclass
class Seen:
    """What the screen showed, pane by pane (each a list of lines, border included)."""

    header: str = ""
    alerts: list[str] = field(default_factory=list)
    stack: list[str] = field(default_factory=list)
    source: list[str] = field(default_factory=list)
    footer: dict[str, set[str]] = field(default_factory=dict)  # pane -> footer keys
    ge_cut: list[str] = field(default_factory=list)  # Graph Executions rows with counts cut
    ge_empty: str = ""  # what an empty Graph Executions says
    diagnosis: str = ""
    origin_type: str = ""
    # from which alert -> (its diagnosis' origin (kind, index), the origin's op type, the
    # pane focused after `o`, its selected row, the (kind, index) `v` inspected then)
    after_o: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    origin: tuple[int, int] = (-1, -1)
    total_alerts: int = 0
    source_after_o: list[str] = field(default_factory=list)  # (at 160×45: panes side by side)


def _lines(app: TfdbgApp, widget: Widget) -> list[str]:
    """The screen's cells under `widget` (its border and titles included), as text."""
    strips = app.screen._compositor.render_strips()
    r = widget.region
    return [strips[y].crop(r.x, r.x + r.width).text for y in range(r.y, r.y + r.height)]


def _footer(app: TfdbgApp) -> set[str]:
    """The footer's keys, each only if its key and description are whole on the screen."""
    line = app.screen._compositor.render_strips()[-1].text
    return {k.key for k in app.screen.query(FooterKey)
            if f" {k.key_display} {k.description} " in line}


async def _look(logdir: str, size: tuple[int, int]) -> Seen:
    seen = Seen()
    app = TfdbgApp(DebugLogdir(logdir), follow=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        seen.header = str(s.query_one("#header-line", Static).visual)
        seen.alerts = _lines(app, s.alerts)
        seen.footer["alerts"] = _footer(app)
        seen.diagnosis = s.alerts.whole_text().plain
        seen.total_alerts = len(app.state.snapshot.alerts)
        d = s.alerts.diagnosis
        assert d is not None
        seen.origin_type = d.origin_op_type
        seen.origin = (d.origin_kind, d.origin_index)
        for key, pane, name in (("6", s.stack, "stack"), ("5", s.source, "source")):
            await pilot.press(key)  # at 80×24 one pane shows at a time: the focused one
            await settle(app, pilot)
            setattr(seen, name, _lines(app, pane))
            seen.footer[name] = _footer(app)
        await pilot.press("3")
        await settle(app, pilot)
        seen.footer["ge"] = _footer(app)
        ge = s.ge
        logdir_ = app.state.logdir
        if len(logdir_.traces) == 0:
            seen.ge_empty = " ".join(_lines(app, ge))
        else:
            width = ge.vlist.scrollable_content_region.width
            for i in range(len(logdir_.traces)):
                row = ge._row(i, width)
                row.truncate(width)
                chips = health_chips(logdir_.traces.health(i), compact=width < 110).plain
                if chips not in row.plain:
                    seen.ge_cut.append(row.plain)
        # the last alert followed (Enter), then `o`: Source Code on the line to change
        await pilot.press("1", "end", "enter")
        await settle(app, pilot)
        await pilot.press("o")
        await settle(app, pilot)
        seen.source_after_o = _lines(app, s.source) if size[0] >= 160 else []
        # `o` from the second alert (downstream of the first, in the bad step), then `v`;
        # then the same from the last alert (its own walk's origin, steps later)
        for keys, name in ((("1", "home", "down"), "second"), (("1", "end"), "last")):
            await pilot.press(*keys)
            await settle(app, pilot)
            d = s.alerts.diagnosis
            assert d is not None
            await pilot.press("o")
            await settle(app, pilot)
            focused = s.current_pane()
            cursor = (focused.selected if focused is s.ge or focused is s.timeline
                      else None)  # type: ignore[union-attr]
            inspected = None
            await pilot.press("v")
            await settle(app, pilot)
            if isinstance(app.screen, ValueInspector):
                inspected = (app.screen.kind, app.screen.index)
                await pilot.press("escape")
                await settle(app, pilot)
            seen.after_o[name] = ((d.origin_kind, d.origin_index), d.origin_op_type,
                                  type(focused).__name__, cursor, inspected)
    return seen


_SEEN: dict[tuple[str, tuple[int, int]], Seen] = {}


@pytest.fixture
def seen(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Seen:
    name, size = request.node.callspec.params["name"], request.node.callspec.params["size"]
    if (name, size) not in _SEEN:
        _SEEN[name, size] = asyncio.run(_look(_logdir(tmp_path_factory, name), size))
    return _SEEN[name, size]


def _want(name: str) -> Expect:
    return EXPECT[name]


def test_the_header_and_alerts_say_the_step_and_one_incident(seen: Seen, name: str,
                                                             size: tuple[int, int]) -> None:
    want = _want(name)
    assert f"first NaN at step {want.step} of {want.steps}" in seen.header, seen.header
    body = [line[1:-1].strip() for line in seen.alerts[1:-1]]
    assert body[0].startswith("1 incident · "), body[:2]
    heads = [b for b in body if b.startswith("▼")]
    assert len(heads) == 1 and heads[0].startswith(f"▼ step {want.step} "), heads
    assert f"· {seen.total_alerts} alerts" in heads[0], heads
    rows = [b for b in body if re.match(r"\d+ s\d+ ", b)]
    assert rows and rows[0].startswith(f"1 s{want.step} "), rows[:2]
    assert all(int(r.split()[1][1:]) >= want.step for r in rows), rows


def test_the_diagnosis_says_the_step_origin_and_cause(seen: Seen, name: str,
                                                      size: tuple[int, int]) -> None:
    want = _want(name)
    assert seen.origin_type == want.origin
    text = " ".join(seen.diagnosis.split())
    assert f"step {want.step}: {want.origin} " in text, text[:200]
    assert any(c in text for c in want.cause), (want.cause, text)


# where the diagnosis is still wrong in what the TUI shows (strict: a fix makes them fail)
NUMBERS_WRONG: dict[str, str] = {}


# the last alert's own diagnosis, wrong (strict: a fix makes them fail)
LAST_WRONG = {
    "conv_dataset_inf": "reader/diagnosis: the last alert (step 4, Sub eager #541, Adam's "
                        "update at line 50) walks back only to tensor id 901, a variable "
                        "read no op recorded, and says 'the data carries it … check the array "
                        "before this line': line 50 to change, not the dataset (45) whose ∞ "
                        "entered in step 2 (the incident groups it there rightly)",
}


def test_every_number_in_the_diagnosis_is_a_row_to_go_to(
        seen: Seen, name: str, size: tuple[int, int], request: pytest.FixtureRequest) -> None:
    """'#N' in the diagnosis is an execution (eager #N, a Timeline row) or a graph tensor
    (graph #N, a Graph Executions row): what `g` goes to. A newcomer reads it as such."""
    if name in NUMBERS_WRONG:
        request.applymarker(pytest.mark.xfail(strict=True, reason=NUMBERS_WRONG[name]))
    text = " ".join(seen.diagnosis.split())
    bare = [m.group(0) for m in re.finditer(r".{0,30}(?<!eager )(?<!graph )#\d+", text)]
    assert bare == [], bare


def test_the_stack_lists_the_users_frames_and_counts_the_rest(
        seen: Seen, name: str, size: tuple[int, int]) -> None:
    want = _want(name)
    body = [line[1:-1].strip() for line in seen.stack[1:-1]]
    rows = [b for b in body if b]
    mine = [r for r in rows if re.search(rf"{name}\.py:\d+$", r)]
    counted = [int(m.group(1)) for r in rows
               if (m := re.match(r"… (\d+) framework frames? \(f: show\)$", r))]
    assert len(mine) + len(counted) == len(rows), rows  # nothing else listed
    assert rows[0] in mine, rows  # the outermost frame is the user's script
    selected = [r for r in mine if r.startswith("▶ ")]
    assert len(selected) == 1 and selected[0].endswith(f"{name}.py:{want.own_line}"), rows
    title = seen.stack[-1]
    total = re.search(r"(\d+) frames", title)
    assert total is not None, title
    assert len(mine) + sum(counted) == int(total.group(1)), (rows, title)


def test_source_code_shows_the_line_to_fix(seen: Seen, name: str,
                                           size: tuple[int, int]) -> None:
    want = _want(name)
    body = [line[1:-1] for line in seen.source[1:-1]]
    marked = [b for b in body if re.match(rf"{want.fix_line}▶", b)]
    code = (HELDOUT / f"{name}.py").read_text().splitlines()[want.fix_line - 1].strip()
    assert marked and code[:40] in marked[0], (code, body)
    assert not [b for b in body if "▶" in b and b not in marked], body
    title = seen.source[-1]
    # cut from the path's head only: the file's name and line stay whole
    assert re.search(rf"[/…]{name}\.py:{want.fix_line} ", title), title
    assert "line to change" in title, title
    if want.fix_line != want.own_line:
        assert "not in this op's st" in title, title  # ("…ack" may yield at 80×24)


def test_o_after_following_the_last_alert_shows_the_line_to_change(
        seen: Seen, name: str, size: tuple[int, int], request: pytest.FixtureRequest) -> None:
    """Enter on the last alert (steps after the bad one), then `o`: Source Code marks the
    line to change that alert's diagnosis names, as Enter had shown it (before: the origin
    op's own line, unnamed — a Stack Trace selection arriving after `o` dropped the name,
    or the gradient's `tape.gradient` line where its forward op's is the one to change)."""
    if name in LAST_WRONG:
        request.applymarker(pytest.mark.xfail(strict=True, reason=LAST_WRONG[name]))
    want = _want(name)
    body = [line[1:-1] for line in seen.source_after_o[1:-1]]
    assert next(b for b in body if "▶" in b).startswith(f"{want.fix_line}▶"), body
    title = seen.source_after_o[-1]
    assert "line to change" in title and f"{name}.py:{want.fix_line} " in title, title


def test_o_then_v_inspects_the_origin(seen: Seen, name: str, size: tuple[int, int]) -> None:
    """From an alert downstream of the first, `o` selects the incident's origin in its pane
    and `v` inspects it; from the last alert, `v` inspects whatever `o` selected."""
    for which in ("second", "last"):
        origin, op_type, pane, row, inspected = seen.after_o[which]
        if which == "second":
            assert (origin, op_type) == (seen.origin, _want(name).origin), seen.after_o
        assert pane == ("GraphExecutionsPane" if origin[0] == GRAPH else "TimelinePane")
        assert row == origin[1] and inspected == origin, (which, seen.after_o)


def test_graph_executions_counts_are_whole(seen: Seen, name: str,
                                           size: tuple[int, int]) -> None:
    if seen.ge_empty:
        assert "no graph executions: this run called no tf.function" in seen.ge_empty
        assert _want(name).form == "eager"
        return
    assert seen.ge_cut == []


def test_the_footer_offers_copy_edit_and_save_where_they_apply(
        seen: Seen, name: str, size: tuple[int, int]) -> None:
    """`e`/`w` only where a source line is focused; there, `e`, `w` and `y` at both sizes
    (at 80 columns they went first: the footer kept n/N, o and i, 2026-11-29); `y` in
    Alerts where the width leaves room for it."""
    assert not {"e", "w"} & seen.footer["alerts"], seen.footer["alerts"]
    if size[0] >= 160:
        assert "y" in seen.footer["alerts"], seen.footer["alerts"]
    for pane in ("source", "stack"):
        assert {"e", "w", "y", "question_mark", "q"} <= seen.footer[pane], (pane, seen.footer)
