"""The alert list stays in wall-time order however the run's files are read.

Why: while a big logdir indexes, the alerts are sorted again after every batch, and that is
done incrementally (`reader.index.alerts.AlertLog`): a batch whose alerts all come later is
appended, one whose alerts fall between earlier ones (an `.execution` file read after the
`.graph_execution_traces` file, as a first read does) is merged in. Either way the list
must be what the documentation promises: earliest wall time first, at equal times graph
traces before eager outputs, then file order.

The run (written with the TF-free writer): `train_step` steps, each five graph traces and
then the function call's execution, 1 ms apart; some steps go bad (−∞, NaN in four traces
and in the call's output), some stay clean. It is read in pieces — one file, then the
other, in a random order — while more steps are appended, as a live run is.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from support.tui import add_step, start_reference

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.core import model

TRACES, EXECUTIONS = ("graph_execution_traces",), ("execution",)


def expected_order(logdir: DebugLogdir) -> list[tuple[int, int]]:
    """(kind, index) of every NaN/∞ tensor read so far, by the documented order — from
    the tables' rows and wall times, not from the alert log."""
    t, o, e = logdir.traces, logdir.outputs, logdir.executions
    keyed = [(float(t.wall_time[r]), GRAPH, int(r), int(r))
             for r in np.flatnonzero(t.bad == 1)]
    keyed += [(float(e.wall_time[o.execution[r]]), EAGER, int(r), int(o.execution[r]))
              for r in np.flatnonzero(o.bad == 1)]
    return [(kind, index) for _, kind, _, index in sorted(keyed)]


def shown_order(logdir: DebugLogdir) -> list[tuple[int, int]]:
    a = logdir.alerts()
    return list(zip(np.asarray(a.kind).tolist(), np.asarray(a.index).tolist(), strict=True))


def test_alerts_stay_in_time_order_when_files_are_read_piece_by_piece(tmp_path: Path) -> None:
    ref = start_reference(tmp_path / "run")
    logdir = DebugLogdir(str(tmp_path / "run"))
    rng = random.Random(19)
    step = 0
    merged_between = appended = 0
    for _ in range(25):
        for _ in range(rng.randint(0, 3)):
            add_step(ref, step, bad=rng.random() < 0.6)
            step += 1
        pieces = [TRACES, EXECUTIONS]
        rng.shuffle(pieces)
        for suffixes in pieces:
            before = shown_order(logdir)
            logdir.read_files(suffixes)
            after = shown_order(logdir)
            assert after == expected_order(logdir)
            if after[: len(before)] == before:
                appended += 1
            else:
                merged_between += 1
    # both ways of sorting again were taken (else this test would not test them)
    assert merged_between > 5 and appended > 5
    assert len(logdir.alerts()) > 50


def test_the_summary_counts_every_alert_by_op_type(tmp_path: Path) -> None:
    """The Alerts pane's summary line, computed from the reader's per-kind counts while
    alerts arrive, says what the alerts themselves say."""
    ref = start_reference(tmp_path / "run")
    logdir = DebugLogdir(str(tmp_path / "run"))
    logdir.read_files(("graphs",))  # the op types
    bad_steps = [True, False, True, True]
    for step, bad in enumerate(bad_steps):
        add_step(ref, step, bad=bad)
        logdir.read_files(TRACES)
        logdir.read_files(EXECUTIONS)
    n_bad = sum(bad_steps)
    # each bad step: Log (−∞), mul (NaN), Sum (−∞) graph traces and the call's output
    line = model.alert_summary(logdir, logdir.alerts(), len(logdir.traces))
    assert line == (f"{4 * n_bad} NaN/∞ events · {3 * n_bad} of {5 * len(bad_steps)} graph "
                    f"tensors · {n_bad} eager · Log×{n_bad}, Mul×{n_bad}, Sum×{n_bad}")


def test_alerts_reopened_from_the_cache_keep_their_order_as_the_run_grows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run indexed before is reopened from the index cache (its alerts already sorted),
    then grows: the new alerts join the saved ones in order, and are counted."""
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    ref = start_reference(tmp_path / "run")
    for step in range(6):
        add_step(ref, step, bad=step % 2 == 0)
    DebugLogdir(str(tmp_path / "run"), cache=True).update()  # indexed, saved
    reopened = DebugLogdir(str(tmp_path / "run"), cache=True)
    assert reopened.update().bytes_read == 0  # restored from the cache, nothing read
    saved = shown_order(reopened)
    assert saved == expected_order(reopened) and len(saved) == 3 * 4
    for step in range(6, 12):
        add_step(ref, step, bad=step % 3 != 0)
    reopened.read_files(TRACES)
    reopened.read_files(EXECUTIONS)
    assert shown_order(reopened) == expected_order(reopened)
    assert len(reopened.alerts()) == (3 + 4) * 4
    line = model.alert_summary(reopened, reopened.alerts(), len(reopened.traces))
    assert line.endswith(" · 7 eager · Log×7, Mul×7, Sum×7")
