"""`tfdbg-tui export` and `tfdbg_tui.open()`: the index as tables, read back by a second
reader (DuckDB over the Parquet files, pyarrow's CSV reader) and checked against what
`report --json` says of the same run: the reference NaN case a real TensorFlow program wrote.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest
from support.paths import ROOT
from support.slowdown import guard

import tfdbg_tui
from tfdbg_tui.commands.export.tables import COLUMNS, TABLES


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=guard(300))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.fixture(scope="module")
def report(reference_logdir: str) -> dict[str, Any]:
    proc = cli("report", "--json", "--limit", "10", reference_logdir)
    assert proc.returncode == 1
    return dict(json.loads(proc.stdout))


@pytest.fixture(scope="module")
def exported(reference_logdir: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("export") / "tables"
    proc = cli("export", reference_logdir, str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def q(sql: str) -> list[tuple[Any, ...]]:
    return duckdb.sql(sql).fetchall()


def test_tables_agree_with_the_report(exported: Path, report: dict[str, Any]) -> None:
    t = {name: f"'{exported / name}.parquet'" for name in TABLES}
    counts = report["counts"]
    assert q(f"select count(*) from {t['executions']}") == [(counts["executions"],)]
    assert q(f"select count(*) from {t['graph_traces']}") == [(counts["graph_traces"],)]
    assert q(f"select count(*) from {t['stack_frames']}") == [(counts["stack_frames"],)]
    assert q(f"select count(*) from {t['alerts']}") == [(report["alerts"]["total"],)]
    # every alert is a tensor holding NaN/∞ in the health columns, and vice versa
    assert q(f"select count(*) from {t['graph_traces']} where bad") == q(
        f"select count(*) from {t['alerts']} where kind = 'graph'")
    assert q(f"select count(*) from {t['eager_outputs']} where bad") == q(
        f"select count(*) from {t['alerts']} where kind = 'eager'")
    assert q(f"select count(*) from {t['graph_traces']} where bad and nan + neg_inf + "
             "pos_inf = 0") == [(0,)]
    # the first alerts, row by row, as the report gives them
    rows = duckdb.sql(f"select * from {t['alerts']} order by rank limit 10").fetchall()
    names = [d[0] for d in duckdb.sql(f"select * from {t['alerts']} limit 0").description]
    first = report["first_alerts"]
    assert len(rows) == len(first) == 10
    for row, entry in zip(rows, first, strict=True):
        r = dict(zip(names, row, strict=True))
        assert (r["kind"], r["row"], r["output_slot"]) == (
            entry["kind"], entry["index"], entry["output_slot"])
        assert (r["op_type"], r["op_name"], r["graph_name"]) == (
            entry["op_type"], entry["op_name"], entry["graph_name"])
        assert (r["size"], r["nan"], r["neg_inf"], r["pos_inf"]) == (
            entry["size"], entry["nan"], entry["neg_inf"], entry["pos_inf"])
        assert r["wall_time"] == entry["wall_time"]
        assert r["user_file"] == entry["user_frame"]["file"]
        assert r["user_line"] == entry["user_frame"]["line"]
        origin = entry["diagnosis"]["origin"]
        assert r["diagnosis"] == entry["diagnosis"]["explanation"]
        assert (r["origin_kind"], r["origin_row"]) == (origin["kind"], origin["index"])
        assert (r["fix_file"], r["fix_line"]) == (origin["fix_frame"]["file"],
                                                  origin["fix_frame"]["line"])
    # what the reference bug is, known before running anything: Log of a zero gives −∞
    r0 = dict(zip(names, rows[0], strict=True))
    assert r0["op_type"] == "Log" and r0["neg_inf"] > 0 and r0["nan"] == 0
    assert "log 0" in r0["diagnosis"]
    # the alerts past the first ten are not diagnosed: null, never a guess
    assert q(f"select count(*) from {t['alerts']} where rank >= 10 and diagnosis is not null"
             ) == [(0,)]


def test_graph_trace_health_matches_the_report_per_tensor(exported: Path,
                                                          report: dict[str, Any]) -> None:
    """The first alert's row in graph_traces holds the counts the report shows for it."""
    entry = report["first_alerts"][0]
    got = q(f"select op_name, size, nan, neg_inf, pos_inf, mode, dtype from "
            f"'{exported}/graph_traces.parquet' where row = {entry['index']}")
    assert got == [(entry["op_name"], entry["size"], entry["nan"], entry["neg_inf"],
                    entry["pos_inf"], "FULL_HEALTH", "float32")]


def test_csv_holds_what_parquet_holds(reference_logdir: str, exported: Path,
                                      tmp_path: Path) -> None:
    """Every cell of every table, not only the names and row counts: a text column written
    as its dictionary's indices (numbers where names belong) or a column shifted or cut
    differs somewhere. The CSV is read back with the Parquet columns' types (dictionaries
    as their plain values), so a cell must be the same value, not just parse."""
    proc = cli("export", reference_logdir, str(tmp_path / "csv"), "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    for name in TABLES:
        parquet = pq.read_table(exported / f"{name}.parquet")
        types = {f.name: f.type.value_type if pa.types.is_dictionary(f.type) else f.type
                 for f in parquet.schema}
        table = pcsv.read_csv(tmp_path / "csv" / f"{name}.csv", convert_options=pcsv.ConvertOptions(
            column_types=types, strings_can_be_null=True))
        assert table.column_names == list(COLUMNS[name])
        assert [(table.num_rows,)] == q(f"select count(*) from '{exported}/{name}.parquet'")
        for column in COLUMNS[name]:
            want, got = parquet.column(column).to_pylist(), table.column(column).to_pylist()
            if pa.types.is_string(types[column]):  # CSV writes a null string as an empty one
                want = ["" if v is None else v for v in want]
                got = ["" if v is None else v for v in got]
            bad = [i for i, (w, g) in enumerate(zip(want, got, strict=True))
                   if w != g and not (w != w and g != g)]  # NaN is NaN in both
            assert not bad, (f"{name}.{column} row {bad[0]}: parquet {want[bad[0]]!r}, "
                             f"csv {got[bad[0]]!r} ({len(bad)} rows differ)")


def test_python_api(reference_logdir: str, report: dict[str, Any]) -> None:
    run = tfdbg_tui.open(reference_logdir)
    assert run.graph_traces.num_rows == report["counts"]["graph_traces"]
    assert run.alerts.num_rows == report["alerts"]["total"]
    assert run.first_alerts(3) == report["first_alerts"][:3]
    assert run.first_alerts(1)[0]["diagnosis"]["origin"]["op_type"] == "Log"
    df = run.df("graph_traces")
    assert int(df["bad"].fillna(False).sum()) == int(
        (run.alerts.column("kind").to_pylist()).count("graph"))
    assert list(df.columns) == list(COLUMNS["graph_traces"])


def test_every_column_is_documented() -> None:
    """docs/export.md has a table per exported table whose first column lists the columns,
    in order."""
    text = (ROOT / "docs" / "export.md").read_text(encoding="utf-8")
    for name in TABLES:
        section = text.split(f"### `{name}`", 1)[1].split("###", 1)[0]
        documented = re.findall(r"^\| `([a-z_]+)` \|", section, flags=re.MULTILINE)
        assert documented == list(COLUMNS[name]), name


def test_errors_are_one_line(tmp_path: Path) -> None:
    proc = cli("export", str(tmp_path / "nope"), str(tmp_path / "out"))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out").exists()
    code = ("import sys; sys.modules['pyarrow'] = None\n"  # as if pyarrow were not installed
            "from tfdbg_tui.cli import main; "
            f"sys.exit(main(['export', {str(tmp_path)!r}, {str(tmp_path / 'o')!r}]))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=guard(120))
    assert proc.returncode == 2, proc.stderr
    assert "pip install 'tfdbg-tui[export]'" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
