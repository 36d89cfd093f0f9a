"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): a run's Parquet shards
(`tfdbg-tui index`, `LOGDIR/.tfdbg-index/`) forged, truncated or bloated — each one the
shard `index` wrote for one of two hosts, changed after (its metadata still naming the
files as they are, so only its contents decide).

Expected, written before the run: the shard is dropped with a warning naming it, its host
read from the logdir, and the report is the direct read's; memory follows the shard's
bytes and the logdir's, never what a shard's values claim; never a traceback.

Found broken: a shard whose string table repeats one 10 MB word 40 times (25 KB on disk:
Parquet stores a repeated value once) was used, and decoding it took 1.2 GB; a shard whose
traces point at offsets past the bytes it read (10**12) was used, the alerts' counts then
silently unknown (SECURITY.md promises every offset inside a file).
"""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, child_env
from support.paths import ROOT
from support.tui import write_reference

META = b"tfdbg-tui.shard"
OSC_52 = "\x1b]52;c;cHduZWQ=\x07"
# Peak memory of a `report` child measured by a parent of its own (ru_maxrss of its child)
PEAK = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True);"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two hosts of one run (the reference file set copied under two host names), indexed."""
    root = tmp_path_factory.mktemp("attack-shards")
    write_reference(root / "src")
    d = root / "run"
    d.mkdir()
    for f in (root / "src").iterdir():
        _, stamp, rest = f.name.split(".", 2)
        for i, host in enumerate(("alpha", "beta")):
            shutil.copyfile(f, d / f"tfdbg_events.{int(stamp) + i}.{host}.{rest.split('.')[-1]}")
    proc = cli("index", str(d), "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    return d


@pytest.fixture(scope="module")
def direct(run: Path) -> dict[str, Any]:
    """The run's report read directly (no shard), once: a test changes a shard, never the
    run's files, so its direct read would be this one (its `logdir` aside)."""
    return report(run, shards=False)


def cli(*args: str, shards: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**child_env(), "TFDBG_TUI_CACHE_MIN_BYTES": str(1 << 40)}
    if not shards:
        env["TFDBG_TUI_SHARDS"] = str(ROOT / "no-such-shard-folder")
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert_no_raw_controls(proc.stdout + proc.stderr, "output")
    return proc


def report(d: Path, shards: bool = True) -> dict[str, Any]:
    proc = cli("report", "--json", str(d), shards=shards)
    assert proc.returncode == 1, proc.stderr
    out: dict[str, Any] = json.loads(proc.stdout)
    return out


def rewrite(table: pa.Table, meta: dict[str, Any] | bytes) -> bytes:
    raw = meta if isinstance(meta, bytes) else json.dumps(meta).encode()
    sink = io.BytesIO()
    pq.write_table(table.replace_schema_metadata({META: raw}), sink, compression="zstd",
                   row_group_size=8192)
    return sink.getvalue()


def column(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    i = table.schema.get_field_index(name)
    return table.set_column(i, pa.field(name, values.type), values)


def _bloated_strings(t: pa.Table, meta: dict[str, Any]) -> bytes:
    """40 more strings, each the same 10 MB word, past the real ones (ids nothing uses)."""
    n_real, copies = meta["strings"], 40
    n = max(t.num_rows, n_real + copies)
    words = t.column("strings").to_pylist()[:n_real] + ["a" * (10 << 20)] * copies
    cols = []
    for name in t.column_names:
        c = t.column(name).combine_chunks()
        if name == "strings":
            c = pa.array(words + [None] * (n - len(words)), pa.string())
        elif len(c) < n:
            c = pa.concat_arrays([c, pa.nulls(n - len(c), c.type)])
        cols.append(c)
    return rewrite(pa.table(cols, names=t.column_names), {**meta, "strings": n_real + copies})


def _offsets(value: int) -> Callable[[pa.Table, dict[str, Any]], bytes]:
    def change(t: pa.Table, meta: dict[str, Any]) -> bytes:
        c = t.column("traces.offset")
        return rewrite(column(t, "traces.offset", pa.array(
            [None if x is None else value for x in c.to_pylist()], c.type)), meta)
    return change


CASES: dict[str, Callable[[pa.Table, dict[str, Any]], bytes]] = {
    "strings-one-word-40-times": _bloated_strings,
    "offsets-past-what-it-read": _offsets(10**12),
    "offsets-negative": _offsets(-5),
    "wall-time-as-text": lambda t, m: rewrite(column(t, "traces.wall_time", pa.array(
        [None if x is None else str(x) for x in t.column("traces.wall_time").to_pylist()])), m),
    "a-null-string": lambda t, m: rewrite(column(t, "strings", pa.array(
        [None, *t.column("strings").to_pylist()[1:]], pa.string())), m),
    "an-extra-column": lambda t, m: rewrite(t.append_column("evil", pa.array([1] * len(t))), m),
    "cursors-a-list": lambda t, m: rewrite(t, {**m, "cursors": []}),
    "row-counts-as-text": lambda t, m: rewrite(t, {**m, "rows": {
        k: str(v) for k, v in m["rows"].items()}}),
    "modes-unknown": lambda t, m: rewrite(t, {**m, "modes": [99, -1]}),
    "metadata-nested-200k-deep": lambda t, m: rewrite(
        t, b'{"format": 1, "x": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"),
    "no-rows": lambda t, m: rewrite(t.slice(0, 0), m),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_changed_shard_is_dropped_and_its_host_read(run: Path, direct: dict[str, Any],
                                                      tmp_path: Path, case: str) -> None:
    d = tmp_path / "run"
    shutil.copytree(run, d)
    (shard,) = (d / ".tfdbg-index").glob("*alpha.parquet")
    data = shard.read_bytes()
    table = pq.read_table(io.BytesIO(data))
    shard.write_bytes(CASES[case](table, json.loads(table.schema.metadata[META])))
    got = report(d)
    dropped = [w for w in got["warnings"] if shard.name in w]
    assert len(dropped) == 1 and "shard not used" in dropped[0], got["warnings"]
    got["warnings"].remove(dropped[0])
    assert {**got, "logdir": None} == {**direct, "logdir": None}


@pytest.mark.parametrize("how", ["truncated", "footer-flipped", "empty"])
def test_a_damaged_shard_file_is_dropped(run: Path, tmp_path: Path, how: str) -> None:
    d = tmp_path / "run"
    shutil.copytree(run, d)
    (shard,) = (d / ".tfdbg-index").glob("*beta.parquet")
    data = bytearray(shard.read_bytes())
    if how == "footer-flipped":
        data[-20] ^= 0xFF
    shard.write_bytes(bytes(data[: len(data) // 2] if how == "truncated"
                            else b"" if how == "empty" else data))
    got = report(d)
    assert [w for w in got["warnings"] if shard.name in w and "shard not used" in w]


def test_memory_follows_the_shard_not_its_repeats(run: Path, tmp_path: Path) -> None:
    """The 40-times-10-MB string table: the report's peak memory stays that of a run this
    small (~150 MB here), not the 1.2 GB its rows decode to."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    (shard,) = (d / ".tfdbg-index").glob("*alpha.parquet")
    table = pq.read_table(shard)
    shard.write_bytes(_bloated_strings(table, json.loads(table.schema.metadata[META])))
    proc = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "tfdbg_tui",
                           "report", str(d)], capture_output=True, text=True, cwd=ROOT,
                          env=child_env(), timeout=HANG_GUARD)
    peak_mb = int(proc.stdout) >> 10
    assert peak_mb < 600, peak_mb
