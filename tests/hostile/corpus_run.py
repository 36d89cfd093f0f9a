"""What the corpus tests share: the marks of the items that still beat the reader, each item
built once per test run, and the terminal app driven over an item.

The corpus tests are three files (`report`, and the app over each half of the items) so the
suite's workers share them: with `--dist loadfile` a file runs on one worker, and the single
file they were set the suite's shortest possible run (1,526 s of worker time). An item is
built once per run (`support.shared.build_once`), not once per file or worker: orphans_40000
is 40,000 files, op_name_100mb and the sparse tails hundreds of megabytes. No test writes
into an item's logdir (the index caches go to TFDBG_TUI_CACHE_DIR), so the files read the
same items at once.
"""

from __future__ import annotations

import io
import time
from typing import Any

import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, names
from hostile.corpus import BUILDERS, Case, build
from rich.console import Console
from support.shared import build_once, shared_root
from support.tui import record_notifications, workers_done
from textual.worker import WorkerFailed, WorkerState

from reader import DebugLogdir, ReaderError

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
_NOT_RUN_REPORT_NAMES: tuple[str, ...] = ()  # names of XFAIL_REPORT
NOT_RUN_REPORT: dict[str, str] = {n: XFAIL_REPORT[n] for n in _NOT_RUN_REPORT_NAMES}
# Items whose memory is unbounded today (tracemalloc peak while opening).
XFAIL_MEMORY: dict[str, str] = {
}


def params(names_: list[str], xfails: dict[str, str],
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


def case(name: str, tmp_path_factory: pytest.TempPathFactory) -> Case:
    """Corpus item `name`, built once per test run whichever file or worker needs it first."""
    return build_once(shared_root(tmp_path_factory), f"hostile-{name}",
                      lambda folder: build(name, folder))


def tui_half(half: int) -> list[object]:
    """Every other item (half 0 or 1) for the app's tests: the two slowest (orphans_40000,
    op_name_100mb) fall in different halves."""
    return params(list(BUILDERS)[half::2], XFAIL_TUI, NOT_RUN_TUI)


async def opens(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The app opens the item, follows the first alert, inspects it, and shows warnings."""
    from tfdbg_tui.ui.app import TfdbgApp

    c = case(name, tmp_path_factory)
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

