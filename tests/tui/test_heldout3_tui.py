"""The third held-out NaN corpus in the TUI (tests/programs/heldout_nan3: a learning rate the
user's own schedule code made too large — a LearningRateScheduler callback in fit, a
LearningRateSchedule subclass in a tf.function step, a helper assigned in an eager loop),
opened with the pilot as a new user meets them (issue 31).

What the screen must say was written from the programs' own marks before the app was opened
on them (EXPECT below: the proof's step, the step count, the `# FIX` line and the name of the
function holding it): the header "first NaN at step K of N", with "(steps 0–N−1)" where
the line has room; the diagnosis under Alerts naming the schedule's function; Source Code
marking the `# FIX` line — the schedule's, which is in no recorded op's stack — as the
line to change, its file and line in the title.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import NamedTuple

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_run
from support.tui import settle
from textual.widget import Widget
from textual.widgets import Static

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = pytest.mark.tf

HELDOUT = PROGRAMS / "heldout_nan3"


class Expect(NamedTuple):
    step: int
    steps: int
    fix_line: int
    function: str  # the function the FIX line is in: the diagnosis names it


EXPECT = {"fit_lr_callback": Expect(31, 36, 36, "step_decay"),
          "warmup_class_fn": Expect(27, 30, 69, "__call__"),
          "helper_rate_eager": Expect(24, 30, 37, "decayed_rate")}
SIZES = [(160, 45), (80, 24)]
CASES = [pytest.param(n, s, id=f"{n}-{s[0]}x{s[1]}") for n in sorted(EXPECT) for s in SIZES]


@dataclass
class Seen:
    header: str = ""
    diagnosis: str = ""
    source: list[str] = field(default_factory=list)


def _lines(app: TfdbgApp, widget: Widget) -> list[str]:
    strips = app.screen._compositor.render_strips()
    r = widget.region
    return [strips[y].crop(r.x, r.x + r.width).text for y in range(r.y, r.y + r.height)]


async def _look(logdir: str, size: tuple[int, int]) -> Seen:
    seen = Seen()
    app = TfdbgApp(DebugLogdir(logdir), follow=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        seen.header = str(s.query_one("#header-line", Static).visual)
        seen.diagnosis = s.alerts.whole_text().plain
        await pilot.press("5")  # at 80×24 one pane shows at a time: the focused one
        await settle(app, pilot)
        seen.source = _lines(app, s.source)
    return seen


_SEEN: dict[tuple[str, tuple[int, int]], Seen] = {}


def _seen(tmp_path_factory: pytest.TempPathFactory, name: str, size: tuple[int, int]) -> Seen:
    if (name, size) not in _SEEN:
        pytest.importorskip("tensorflow")
        logdir = recorded_run(tmp_path_factory, f"heldout-nan3-{name}",
                              HELDOUT / f"{name}.py", cwd=HELDOUT)[0]
        _SEEN[name, size] = asyncio.run(_look(logdir, size))
    return _SEEN[name, size]


@pytest.mark.parametrize(("name", "size"), CASES)
def test_the_header_says_the_step_counted_from_0(tmp_path_factory: pytest.TempPathFactory,
                                                 name: str, size: tuple[int, int]) -> None:
    want, seen = EXPECT[name], _seen(tmp_path_factory, name, size)
    assert f"first NaN at step {want.step} of {want.steps}" in seen.header, seen.header
    if size[0] >= 160:
        assert f"of {want.steps} (steps 0–{want.steps - 1})" in seen.header, seen.header


@pytest.mark.parametrize(("name", "size"), CASES)
def test_the_schedule_is_the_line_to_change(tmp_path_factory: pytest.TempPathFactory,
                                            name: str, size: tuple[int, int]) -> None:
    want, seen = EXPECT[name], _seen(tmp_path_factory, name, size)
    said = " ".join(seen.diagnosis.split())
    assert f"{want.function} at {name}.py:{want.fix_line}" in said, said
    body = [line[1:-1] for line in seen.source[1:-1]]
    marked = [b for b in body if re.match(rf"{want.fix_line}▶", b)]
    code = (HELDOUT / f"{name}.py").read_text().splitlines()[want.fix_line - 1].strip()
    assert marked and code[:30] in marked[0], (code, body)
    title = seen.source[-1]
    assert re.search(rf"[/…]{name}\.py:{want.fix_line} ", title), title
    assert "line to change" in title, title
