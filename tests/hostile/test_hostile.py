"""Hostile and damaged logdirs never beat the reader: no traceback, no hang, no silent loss,
bounded memory — in `report`, `report --json` and the terminal app.

Each corpus item (`hostile.corpus`) is read by `tfdbg-tui report` in a child process whose
address space is capped (RLIMIT_AS) and which must exit before a hang guard; the app opens
it with Textual's pilot (test_hostile_tui_even.py, test_hostile_tui_odd.py: the items split
so the suite's workers share them, `hostile.corpus_run`). Items that still beat the reader
are marked xfail(strict=True) with the reason, so the mark must go when the reader is fixed.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from hostile.checks import (
    assert_clean_stderr,
    assert_no_raw_controls,
    names,
    run_report,
    strict_json,
)
from hostile.corpus import BUILDERS
from hostile.corpus_run import (
    NOT_RUN_REPORT,
    NOT_RUN_TUI,
    XFAIL_MEMORY,
    XFAIL_REPORT,
    XFAIL_TUI,
    case,
    params,
)

from reader import open_logdir


@pytest.mark.parametrize("name", params(list(BUILDERS), XFAIL_REPORT, NOT_RUN_REPORT))
def test_report(name: str, tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """`report --json` reads the item and saves its index cache (whatever its size: a cache
    of its own, no minimum), then `report` shows the same index, restored from that cache —
    the reading is the same code for both, so it is done once (orphans_40000: 60 s -> 25 s),
    and every item goes through the cache's save and restore too."""
    c = case(name, tmp_path_factory)
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


@pytest.mark.parametrize("name", params(MEMORY_CASES, XFAIL_MEMORY))
def test_amplification_memory_is_bounded(name: str,
                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    """A count or shape from a file sizes nothing before it is checked against the record:
    a few bytes never become megabytes while the index is built."""
    c = case(name, tmp_path_factory)
    assert c.peak_mb is not None
    tracemalloc.start()
    try:
        logdir = open_logdir(str(c.logdir))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert c.counts.get("graph_traces", len(logdir.traces)) == len(logdir.traces)
    assert peak < c.peak_mb * (1 << 20), f"peak {peak / (1 << 20):.0f} MB"


def test_every_builder_is_documented() -> None:
    for name, fn in BUILDERS.items():
        assert fn.__doc__, name
    assert not set(XFAIL_REPORT) - set(BUILDERS)
    assert not set(XFAIL_TUI) - set(BUILDERS)
    assert not set(NOT_RUN_TUI) - set(BUILDERS)
