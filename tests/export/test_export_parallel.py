"""The export's fast paths: health read ahead on threads in batches, the alerts' counts taken
from those reads, Arrow arrays made from numpy buffers (no pandas on the CLI path).

Checked against independent facts: an alert's counts are those of its own tensor row (a
join of the tables), pyarrow's own `pa.array` for the array helpers, numpy's `unique`.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from support.paths import ROOT

from reader import open_logdir
from tfdbg_tui.commands.export import arrow
from tfdbg_tui.commands.export.tables import AlertCounts, Tables, _small_unique


def _by_key(table: Any, key: tuple[str, ...], cols: tuple[str, ...]) -> dict[Any, Any]:
    d = table.to_pydict()
    return {tuple(d[k][i] for k in key): tuple(d[c][i] for c in cols)
            for i in range(table.num_rows)}


@pytest.mark.parametrize("mode", ["FULL_HEALTH", "CURT_HEALTH"])
def test_alert_counts_from_batched_reads_are_their_rows_counts(
        make_tf_logdir: Any, mode: str) -> None:
    """Eager ops and tf.functions producing −∞, NaN and ∞ (tests/programs/tf_program.py
    `mixed`), tables built in batches of 3 rows with health read ahead on two threads: every
    alert carries the counts of the tensor it is about, and the tables are the ones a plain
    single-batch build gives."""
    logdir = open_logdir(make_tf_logdir("mixed", mode))
    counts = ("size", "nan", "neg_inf", "pos_inf")
    with ThreadPoolExecutor(2) as pool:
        fast = Tables(logdir, pool, AlertCounts(logdir), batch=3)
        traces, outputs = fast.table("graph_traces"), fast.table("eager_outputs")
        alerts = fast.table("alerts")
    plain = Tables(logdir)
    for name, table in (("graph_traces", traces), ("eager_outputs", outputs),
                        ("alerts", alerts)):
        want = plain.table(name)  # (in other batches, each with its own dictionaries)
        assert table.schema == want.schema and table.to_pylist() == want.to_pylist(), name
    kinds = alerts.column("kind").to_pylist()
    assert kinds.count("graph") > 0 and kinds.count("eager") > 0  # the program makes both
    graph_rows = _by_key(traces, ("row",), counts)
    eager_rows = _by_key(outputs, ("execution", "output_slot"), counts)
    for alert in alerts.to_pylist():
        key = (alert["row"],) if alert["kind"] == "graph" else (alert["row"],
                                                                alert["output_slot"])
        rows = graph_rows if alert["kind"] == "graph" else eager_rows
        assert tuple(alert[c] for c in counts) == rows[key]
        if mode == "CURT_HEALTH":  # it records whether, not how many: unknown, never 0
            assert alert["nan"] is None and alert["size"] is None
        else:
            assert alert["nan"] + alert["neg_inf"] + alert["pos_inf"] > 0


def test_export_cli_does_not_import_pandas(reference_logdir: str, tmp_path: Path) -> None:
    code = ("import sys\nfrom tfdbg_tui.cli import main\n"
            f"status = main(['export', {reference_logdir!r}, {str(tmp_path / 'out')!r}])\n"
            "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
            "sys.exit(status)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "graph_traces.parquet").is_file()


def test_arrays_from_buffers_are_what_pyarrow_makes() -> None:
    values = np.array([5, -1, 0, 7, 2**40], np.int64)
    null = values < 0
    assert arrow.numbers(pa, values, pa.int64(), null).equals(
        pa.array(values, pa.int64(), mask=null))
    assert arrow.numbers(pa, values.astype(np.int32), pa.int32()).equals(
        pa.array(values.astype(np.int32), pa.int32()))
    assert arrow.numbers(pa, np.zeros(0), pa.float64()).equals(pa.array([], pa.float64()))
    bits = np.array([True, False, True, True, False, False, True, False, True])
    assert arrow.booleans(pa, bits, ~bits[::-1]).equals(
        pa.array(bits, pa.bool_(), mask=~bits[::-1]))
    words = ["a", None, "", "é€𝄞", "x" * 300]
    assert arrow.strings(pa, words).equals(pa.array(words, pa.string()))
    assert arrow.strings(pa, words, 8).equals(pa.array(words + [None] * 3, pa.string()))
    assert arrow.strings(pa, ["bad \udcff byte"]).to_pylist() == ["bad ? byte"]
    assert arrow.optional_ints(pa, [3, None, -4], 5).equals(
        pa.array([3, None, -4, None, None], pa.int64()))
    with pytest.raises(ValueError):
        arrow.strings(pa, ["a", "b"], 1)


def test_small_unique_is_numpys_unique() -> None:
    rng = np.random.default_rng(3)
    for values in (rng.integers(-1, 9, 1000), rng.integers(0, 3, 7), np.array([4]),
                   np.array([-1, -1]), rng.integers(-5, 1 << 20, 500),
                   np.zeros(0, np.int64)):
        values = np.asarray(values, np.int64)
        uniq, inverse = _small_unique(values)
        want_u, want_i = np.unique(values, return_inverse=True)
        assert uniq.tolist() == want_u.tolist()
        assert inverse.tolist() == want_i.reshape(-1).tolist()


def test_alerts_written_in_batches_keep_each_diagnosis_on_its_rank(
        reference_logdir: str) -> None:
    """The alerts table in batches of 3 rows: the report's first ten diagnoses land on ranks
    0–9 (four batches), the rest have none, and the table is the single-batch one."""
    from tfdbg_tui.commands.report import build_report

    logdir = open_logdir(reference_logdir)
    first = build_report(logdir, 10)["first_alerts"]
    assert len(first) == 10
    small = Tables(logdir, batch=3).table("alerts", first)
    assert small.num_rows > 10 and small.to_batches()[0].num_rows == 3
    assert small.to_pylist() == Tables(logdir).table("alerts", first).to_pylist()
    rows = small.to_pylist()
    for entry, row in zip(first, rows, strict=False):
        assert (row["kind"], row["row"], row["output_slot"]) == (
            entry["kind"], entry["index"], entry["output_slot"])
        assert row["diagnosis"] == entry["diagnosis"]["explanation"]
    assert [r["rank"] for r in rows] == list(range(len(rows)))
    assert all(r["diagnosis"] is None for r in rows[10:])
