"""Hostile and damaged logdirs never beat the reader: no traceback, no hang, no silent loss,
bounded memory — in `report`, `report --json` and the terminal app.

Each corpus item (`hostile.corpus`) is read by `tfdbg-tui report` in a child process whose
address space is capped (RLIMIT_AS) and which must exit before a hang guard; the app opens
it with Textual's pilot. Items that still beat the reader are marked xfail(strict=True)
with the reason, so the mark must go when the reader is fixed.
"""

from __future__ import annotations

import io
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from hostile.checks import (
    HANG_GUARD,
    assert_clean_stderr,
    assert_no_raw_controls,
    names,
    run_report,
    strict_json,
)
from hostile.corpus import BUILDERS, Case, build
from rich.console import Console
from support.tui import record_notifications, sync, workers_done
from textual.worker import WorkerFailed, WorkerState

from reader import DebugLogdir, ReaderError, open_logdir

# Items that beat `report` today, with the root cause (details in the findings notes).
XFAIL_REPORT: dict[str, str] = {
}
# Items that beat the terminal app today.
XFAIL_TUI: dict[str, str] = {
}
# Items that hang or exhaust memory inside the test process today: not run at all (a hung
# thread would take the whole session down with it) until they are fixed.
NOT_RUN_TUI: dict[str, str] = {
}
# Items that hang or crawl in `report` today: not run (each would spend the hang guard twice,
# minutes of the suite's budget, to learn what the mark already says).
NOT_RUN_REPORT: dict[str, str] = {
    n: XFAIL_REPORT[n]
    for n in ()
}
# Items whose memory is unbounded today (tracemalloc peak while opening).
XFAIL_MEMORY: dict[str, str] = {
}


def _params(names_: list[str], xfails: dict[str, str],
            not_run: dict[str, str] | None = None) -> list[object]:
    out: list[object] = []
    for n in names_:
        if not_run and n in not_run:
            out.append(pytest.param(n, marks=pytest.mark.xfail(
                run=False, strict=True, reason=not_run[n])))
        elif n in xfails:
            out.append(pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=xfails[n])))
        else:
            out.append(n)
    return out


_CASES: dict[str, Case] = {}


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile")


def case(name: str, root: Path) -> Case:
    """Build an item once per session (some are hundreds of megabytes or 40,000 files)."""
    if name not in _CASES:
        _CASES[name] = build(name, root)
    return _CASES[name]


@pytest.mark.parametrize("name", _params(list(BUILDERS), XFAIL_REPORT, NOT_RUN_REPORT))
def test_report(name: str, corpus_root: Path, tmp_path: Path) -> None:
    """`report --json` reads the item and saves its index cache (whatever its size: a cache
    of its own, no minimum), then `report` shows the same index, restored from that cache —
    the reading is the same code for both, so it is done once (orphans_40000: 60 s -> 25 s),
    and every item goes through the cache's save and restore too."""
    c = case(name, corpus_root)
    cache = {"TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache"), "TFDBG_TUI_CACHE_MIN_BYTES": "0"}
    machine = run_report(["--json", str(c.logdir), *c.args], c.address_space_mb, cache)
    human = run_report([str(c.logdir), *c.args], c.address_space_mb, cache)
    for label, r in (("report", human), ("report --json", machine)):
        assert r.status in c.statuses, (
            f"{label}: exit {r.status}, expected one of {sorted(c.statuses)}\n"
            f"{r.stderr[-3000:]}")
        err = assert_clean_stderr(r.stderr, label)
        assert_no_raw_controls(r.stdout, f"{label} stdout")
        if r.status == 2:
            assert len(err) == 1, f"{label}: exit 2 needs one error line, got {err!r}"
            assert r.stdout == "", f"{label}: exit 2 with output {r.stdout[:300]!r}"
            if c.damaged is not None:
                assert names(err[0], c.damaged, c.offset), (
                    f"{label}: the error does not name {c.damaged!r} at byte {c.offset}: "
                    f"{err[0][:500]!r}")
    if machine.status == 2:
        return
    report = strict_json(machine.stdout)
    for key, value in c.counts.items():
        assert report["counts"][key] == value, (key, report["counts"], report["warnings"][:5])
    if c.alerts is not None:
        assert report["alerts"]["total"] == c.alerts, (report["alerts"], report["warnings"][:5])
    if c.damaged is not None:
        assert any(names(w, c.damaged, c.offset) for w in report["warnings"]), (
            f"no warning names {c.damaged!r} at byte {c.offset}: {report['warnings'][:10]}")
        shown = [ln for ln in human.stdout.splitlines() if ln.startswith("warning: ")]
        assert any(names(ln, c.damaged, c.offset) for ln in shown), (
            f"the human report shows no warning naming {c.damaged!r}: {shown[:10]}")


MEMORY_CASES = [n for n, b in BUILDERS.items() if n in ("fill_float_nan", "fill_string")]


@pytest.mark.parametrize("name", _params(MEMORY_CASES, XFAIL_MEMORY))
def test_amplification_memory_is_bounded(name: str, corpus_root: Path) -> None:
    """A count or shape from a file sizes nothing before it is checked against the record:
    a few bytes never become megabytes while the index is built."""
    c = case(name, corpus_root)
    assert c.peak_mb is not None
    tracemalloc.start()
    try:
        logdir = open_logdir(str(c.logdir))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert c.counts.get("graph_traces", len(logdir.traces)) == len(logdir.traces)
    assert peak < c.peak_mb * (1 << 20), f"peak {peak / (1 << 20):.0f} MB"


@pytest.mark.parametrize("name", _params(list(BUILDERS), XFAIL_TUI, NOT_RUN_TUI))
@sync
async def test_tui_opens(name: str, corpus_root: Path) -> None:
    """The app opens every item, follows the first alert, inspects it, and shows warnings."""
    from tfdbg_tui.ui.app import TfdbgApp

    c = case(name, corpus_root)
    run = c.args[c.args.index("--run") + 1] if "--run" in c.args else None
    try:
        logdir = DebugLogdir(str(c.logdir), run)
    except ReaderError:
        assert 2 in c.statuses  # `tfdbg-tui LOGDIR` prints the one-line error
        return
    app = TfdbgApp(logdir, follow=False)
    shown = record_notifications(app)  # a warning's toast may be gone before the end
    async with app.run_test(size=(160, 48), notifications=True) as pilot:
        await _indexed(app, pilot)
        assert_no_raw_controls(screen_text(app), "the first screen")
        for keys in (("enter",), ("o",), ("v",), ("escape",), ("n",), ("3", "v"),
                     ("escape",), ("2", "v"), ("escape",)):
            await pilot.press(*keys)
            await _settle(app, pilot)
            assert_no_raw_controls(screen_text(app), f"the screen after {keys}")
        for message in shown:
            assert_no_raw_controls(message, "notification")
        if c.damaged is not None and c.statuses != frozenset({2}):
            assert any(names(m, c.damaged, c.offset) for m in shown), (
                f"no notification names {c.damaged!r}: {shown}")
    assert app.return_code in (None, 0)


def screen_text(app: Any) -> str:
    """Everything the terminal would be sent for the current screen, as text."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True,
                      color_system=None, record=True, legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True))
    return str(console.export_text(styles=False))


async def _indexed(app: Any, pilot: Any, timeout: float = HANG_GUARD) -> None:
    """Wait until the first full read is published; fail at once if its worker died."""
    deadline = time.monotonic() + timeout
    while not app.indexed.is_set():
        for worker in app.workers:
            if worker.state == WorkerState.ERROR:
                pytest.fail(f"the indexing worker died: {worker.error!r}")
        if time.monotonic() > deadline:
            pytest.fail("indexing never finished")
        await pilot.pause(0.05)
    await _settle(app, pilot)


async def _settle(app: object, pilot: object) -> None:
    try:
        await workers_done(app, HANG_GUARD)  # type: ignore[arg-type]
    except WorkerFailed as exc:
        pytest.fail(f"a worker died: {exc.error!r}")
    await pilot.pause()  # type: ignore[attr-defined]


def test_every_builder_is_documented() -> None:
    for name, fn in BUILDERS.items():
        assert fn.__doc__, name
    assert not set(XFAIL_REPORT) - set(BUILDERS)
    assert not set(XFAIL_TUI) - set(BUILDERS)
    assert not set(NOT_RUN_TUI) - set(BUILDERS)

