"""Held-out cases, round 6 (issue 30): the shard folder of a logdir someone else controls.

The attacker owns the logdir (not the code): what sits in `LOGDIR/.tfdbg-index/` is theirs —
links at a shard's name (to /dev/zero, a FIFO, a folder, a shard outside), a FIFO or a
folder as a shard, a file that is not Parquet or only looks so, a sparse 8 GiB file,
metadata of the wrong kinds (row counts past what the files hold, another run's, another
endpoint's, a list where a table must be, megabytes of it), 10k junk shard files, and the
shard folder itself a link. And `index` is pointed where it cannot write, or through links.

Expected, written before the run: each damaged shard is dropped with one warning naming it,
its host read from the logdir, and the report is the direct read's (`report`, `diff`,
`export`, `tfdbg_tui.open`); nothing written through a link planted in the logdir; a shard
folder that cannot be made is one line and exit 2; never a traceback, never a raw control.

Found broken: `index` wrote its shards through a `.tfdbg-index` symlink planted in the
logdir (into the folder it points to, outside the logdir), then said "no report stored:
… [Errno 20] Not a directory" (exit 0); `index --out LINK` (a link of the user's own)
wrote shards no open could ever use ("cannot read it (Not a directory)" for each, from
`TFDBG_TUI_SHARDS=LINK`); `--out` where no folder can be made was one "not indexed" line
per file set and exit 1, where a path that is not a folder is one line and exit 2; a shard
whose Parquet footer claimed 2**30 rows for a row group was used and the report peaked at
760 MB (2**40: the report SIGKILLed); a 44 KB shard whose page inflates to 512 MB, its
footer saying 1000 bytes, took 2.2 GB before it was dropped; a folder at the stored
report's name was said as "IsADirectoryError: [Errno 21] … '.report-….json.tmp-…'".
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hostile.checks import HANG_GUARD, assert_clean_stderr, assert_no_raw_controls, child_env
from hostile.parquet_footer import forged
from hostile.test_attack_shards import META, PEAK, cli, report, rewrite
from support.paths import ROOT
from support.tui import record_notifications, settle, sync, write_reference

ALPHA = "tfdbg_events.1700000000.alpha.parquet"


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two hosts of one run (the reference file set copied under two host names), indexed
    into its own `.tfdbg-index`."""
    root = tmp_path_factory.mktemp("shard-files")
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
    """The run's report read from its files, not from any shard."""
    return report(run, shards=False)


def _meta(change: Callable[[dict[str, Any]], Any]) -> Callable[[Path, Path], None]:
    def plant(shard: Path, _outside: Path) -> None:
        table = pq.read_table(shard)
        meta = json.loads(table.schema.metadata[META])
        got = change(meta)
        shard.write_bytes(rewrite(table, meta if got is None else got))
    return plant


def _link(target: Callable[[Path, Path], Path]) -> Callable[[Path, Path], None]:
    def plant(shard: Path, outside: Path) -> None:
        to = target(shard, outside)
        shard.unlink()
        shard.symlink_to(to)
    return plant


def _fifo(shard: Path, outside: Path) -> Path:
    os.mkfifo(outside / "fifo")
    return outside / "fifo"


def _copy_out(shard: Path, outside: Path) -> Path:
    shutil.copyfile(shard, outside / shard.name)  # the real shard, outside the logdir
    return outside / shard.name


def _replace(how: Callable[[Path], Any]) -> Callable[[Path, Path], None]:
    def plant(shard: Path, _outside: Path) -> None:
        shard.unlink()
        how(shard)
    return plant


def _sparse(shard: Path) -> None:
    with open(shard, "wb") as f:
        f.truncate(8 << 30)  # 8 GiB of nothing (sparse): its size is a claim


def _drop_column(shard: Path, _outside: Path) -> None:
    table = pq.read_table(shard)
    meta = table.schema.metadata[META]
    shard.write_bytes(rewrite(table.drop_columns(["traces.wall_time"]), meta))


PLANTS: dict[str, Callable[[Path, Path], None]] = {
    "link-to-dev-zero": _link(lambda s, o: Path("/dev/zero")),
    "link-to-a-fifo": _link(_fifo),
    "link-to-a-folder": _link(lambda s, o: o),
    "link-to-the-shard-moved-outside": _link(_copy_out),
    "a-fifo": _replace(os.mkfifo),
    "a-folder": _replace(os.mkdir),
    "text": _replace(lambda s: s.write_text("hello\n")),
    "magic-only": _replace(lambda s: s.write_bytes(b"PAR1" + b"\xff" * 64 + b"PAR1")),
    "sparse-8-GiB": _replace(_sparse),
    "a-column-missing": _drop_column,
    "row-counts-past-the-files": _meta(lambda m: {**m, "rows": {
        k: 10**15 for k in m["rows"]}}),
    "another-run": _meta(lambda m: {**m, "run": "someone-else"}),
    "another-endpoint": _meta(lambda m: {**m, "source": "https://evil.example"}),
    "files-a-list": _meta(lambda m: {**m, "files": list(m["files"].values())}),
    "cursor-offsets-text": _meta(lambda m: {**m, "cursors": {
        k: {**c, "offset": str(c["offset"])} for k, c in m["cursors"].items()}}),
    "format-as-text": _meta(lambda m: {**m, "format": "1"}),
    "metadata-4-MB": _meta(lambda m: {**m, "padding": "x" * (4 << 20)}),
    "metadata-a-list": _meta(lambda m: json.dumps([m]).encode()),
}


def _planted(run: Path, tmp_path: Path, case: str) -> tuple[Path, Path]:
    d = tmp_path / "run"
    shutil.copytree(run, d, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    shard = d / ".tfdbg-index" / ALPHA
    PLANTS[case](shard, outside)
    return d, shard


def _same_but_the_warning(got: dict[str, Any], direct: dict[str, Any], shard: Path) -> None:
    dropped = [w for w in got["warnings"] if shard.name in w]
    assert len(dropped) == 1 and "shard not used" in dropped[0], got["warnings"]
    got["warnings"].remove(dropped[0])
    assert {**got, "logdir": None} == {**direct, "logdir": None}


@pytest.mark.parametrize("case", list(PLANTS))
def test_a_planted_shard_is_dropped_and_its_host_read(run: Path, direct: dict[str, Any],
                                                      tmp_path: Path, case: str) -> None:
    d, shard = _planted(run, tmp_path, case)
    _same_but_the_warning(report(d), direct, shard)


@pytest.mark.parametrize("case", ["link-to-dev-zero", "a-fifo", "magic-only"])
def test_every_command_drops_it(run: Path, tmp_path: Path, case: str) -> None:
    """`diff`, `export` and `tfdbg_tui.open` read shards as `report` does."""
    d, shard = _planted(run, tmp_path, case)
    proc = cli("diff", str(d), str(d))
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc.stderr, "diff")
    assert f"{shard.name}: " in proc.stdout and "shard not used" in proc.stdout
    proc = cli("export", str(d), str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert_clean_stderr(proc.stderr, "export")
    code = ("import sys, tfdbg_tui; r = tfdbg_tui.open(sys.argv[1]);"
            "print([w for w in r.report['warnings'] if 'shard not used' in w])")
    api = subprocess.run([sys.executable, "-c", code, str(d)], capture_output=True,
                         text=True, cwd=ROOT, env=child_env(), timeout=HANG_GUARD)
    assert api.returncode == 0 and shard.name in api.stdout, api.stdout + api.stderr[-2000:]


FOOTERS = {  # (row group, what it claims, the value claimed, of which column)
    "a-row-group-of-2**30-rows": (0, "num_rows", 1 << 30, None),
    "a-row-group-of-2**40-rows": (0, "num_rows", 1 << 40, None),
    "a-row-group-of-no-rows": (0, "num_rows", 0, None),
    "strings-of-2**31-values": (0, "num_values", (1 << 31) - 1, "strings"),
    "wall-times-of-2-GB-unpacked": (0, "total_uncompressed_size", 2 << 30,
                                    "traces.wall_time"),
    "wall-times-of-2-GB-packed": (0, "total_compressed_size", 2 << 30, "traces.wall_time"),
}


@pytest.mark.parametrize("case", list(FOOTERS))
def test_what_a_footer_claims_sizes_nothing(run: Path, direct: dict[str, Any],
                                            tmp_path: Path, case: str) -> None:
    """A shard `index` wrote whose Parquet footer (not its metadata: its row groups' and
    column chunks' numbers, pages unchanged) claims other counts: the report is the direct
    read's (the shard dropped with a warning when its rows cannot be had), and the peak
    memory is that of a run this small (~150 MB here, 45 MB for the intact shards), never
    what the footer claims. Before: 2**30 rows claimed for the first row group were taken,
    the shard used, and the report peaked at 760 MB."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    shard = d / ".tfdbg-index" / ALPHA
    shard.write_bytes(forged(shard.read_bytes(), *FOOTERS[case]))
    got = report(d)
    if any(shard.name in w for w in got["warnings"]):
        _same_but_the_warning(got, direct, shard)
    else:
        assert {**got, "logdir": None} == {**direct, "logdir": None}
    proc = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "tfdbg_tui",
                           "report", str(d)], capture_output=True, text=True, cwd=ROOT,
                          env=child_env(), timeout=HANG_GUARD)
    peak_mb = int(proc.stdout) >> 10
    assert peak_mb < 300, peak_mb


def test_a_page_that_unpacks_to_more_than_its_footer_says(run: Path, direct: dict[str, Any],
                                                         tmp_path: Path) -> None:
    """A string table of one more string, a 128 MB word (zstd packs it into a few KB: the
    shard stays ~40 KB), its footer saying its row group and that column unpack to 1000
    bytes: dropped, and the report's peak memory stays that of a run this small. Before:
    the footer's sizes passed the bound on unpacked columns, Arrow inflated the page its
    header sized, the text's own bound dropped the shard after (a 512 MB word: 2.2 GB)."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    shard = d / ".tfdbg-index" / ALPHA
    table = pq.read_table(shard)
    meta = json.loads(table.schema.metadata[META])
    n_real = meta["strings"]
    n = max(table.num_rows, n_real + 1)
    words = [*table.column("strings").to_pylist()[:n_real], "a" * (128 << 20)]
    cols = []
    for name in table.column_names:
        c = table.column(name).combine_chunks()
        if name == "strings":
            c = pa.array(words + [None] * (n - len(words)), pa.string())
        elif len(c) < n:
            c = pa.concat_arrays([c, pa.nulls(n - len(c), c.type)])
        cols.append(c)
    data = rewrite(pa.table(cols, names=table.column_names), {**meta, "strings": n_real + 1})
    del cols, words, table
    data = forged(forged(data, 0, "total_byte_size", 1000), 0, "total_uncompressed_size",
                  1000, "strings")
    shard.write_bytes(data)
    _same_but_the_warning(report(d), direct, shard)
    proc = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "tfdbg_tui",
                           "report", str(d)], capture_output=True, text=True, cwd=ROOT,
                          env=child_env(), timeout=HANG_GUARD)
    peak_mb = int(proc.stdout) >> 10
    assert peak_mb < 300, peak_mb


@pytest.mark.parametrize("case", ["link-to-a-fifo", "sparse-8-GiB", "row-counts-past-the-files"])
@sync
async def test_the_app_drops_it_in_one_notification(run: Path, tmp_path: Path,
                                                    case: str) -> None:
    """`tfdbg-tui LOGDIR` opens the run as the commands do: one notification names the
    dropped shard, the app runs on and shows the run's alerts."""
    from reader import DebugLogdir
    from tfdbg_tui.ui.app import TfdbgApp

    d, shard = _planted(run, tmp_path, case)
    app = TfdbgApp(DebugLogdir(str(d)), follow=False)
    said = record_notifications(app)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        assert app.is_running
        assert app.state.snapshot is not None and app.state.snapshot.alerts
    about = [m for m in said if shard.name in m]
    assert len(about) == 1 and "shard not used" in about[0], said
    for m in said:
        assert_no_raw_controls(m, "notification")


def test_ten_thousand_junk_shards_are_not_read(run: Path, direct: dict[str, Any],
                                               tmp_path: Path) -> None:
    """Only the shards of the run's file sets are opened: 10k others named `*.parquet`
    change nothing (and say nothing)."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    for i in range(10_000):
        (d / ".tfdbg-index" / f"tfdbg_events.{i}.h{i}.parquet").write_bytes(b"PAR1junk")
    got = report(d)
    assert {**got, "logdir": None} == {**direct, "logdir": None}


def test_escapes_in_names_reach_no_terminal(run: Path, tmp_path: Path) -> None:
    """A host and a logdir named with OSC 52 and a clear-screen: a dropped shard's warning
    names them escaped, in `report`'s text, on stderr and in `diff`."""
    evil = "\x1b]52;c;aGk=\x07\x1b[2J\u202e"
    d = tmp_path / f"run{evil}"
    d.mkdir()
    for f in run.iterdir():
        if f.is_file():
            shutil.copyfile(f, d / f.name.replace("alpha", f"al{evil}pha"))
    assert cli("index", str(d), "--workers", "1").returncode == 0
    (shard,) = (d / ".tfdbg-index").glob("*pha.parquet")
    shard.write_text("junk\n")
    for args in (["report", str(d)], ["diff", str(d), str(d)]):
        proc = cli(*args)  # (asserts no raw control in stdout and stderr)
        assert "shard not used" in proc.stdout + proc.stderr
        assert "\\x1b]52" in proc.stdout + proc.stderr


# ------------------------------------------------------------------ index writing
def test_index_never_writes_through_a_planted_shard_folder(run: Path, tmp_path: Path) -> None:
    """`.tfdbg-index` a link the logdir's owner planted to a folder outside: `index`
    refuses it in one line (exit 2) and writes nothing there."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    shutil.rmtree(d / ".tfdbg-index")
    victim = tmp_path / "victim"
    victim.mkdir()
    (d / ".tfdbg-index").symlink_to(victim)
    proc = cli("index", str(d), "--workers", "1")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = assert_clean_stderr(proc.stderr, "index")
    assert ".tfdbg-index" in line and "symlink" in line, line
    assert list(victim.iterdir()) == []


def test_index_replaces_links_planted_at_its_file_names(run: Path, tmp_path: Path) -> None:
    """Links at a shard's and at the stored report's names are replaced, not written
    through: the file they point to keeps its bytes."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    victim = tmp_path / "victim"
    victim.write_text("mine\n")
    for f in (d / ".tfdbg-index").iterdir():
        f.unlink()
        f.symlink_to(victim)
    proc = cli("index", str(d), "--workers", "1", "--force")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "mine\n"
    assert not any(f.is_symlink() for f in (d / ".tfdbg-index").iterdir())


def test_a_folder_at_the_stored_reports_name(run: Path, tmp_path: Path) -> None:
    """The shards land; the stored report cannot: said in `index`'s line naming the file,
    not a temporary, nor a Python error's text. Before: "no report stored:
    IsADirectoryError: [Errno 21] Is a directory: '.report-….json.tmp-…' -> 'report-….json'"."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    (stored,) = (d / ".tfdbg-index").glob("report-*.json")
    stored.unlink()
    stored.mkdir()
    proc = cli("index", str(d), "--workers", "1", "--force")
    assert proc.returncode == 0, proc.stderr
    (line,) = [x for x in proc.stdout.splitlines() if "report" in x]
    assert line == f"no report stored: {stored}: Is a directory", line


def test_index_out_through_a_link_of_ones_own(run: Path, direct: dict[str, Any],
                                              tmp_path: Path) -> None:
    """`--out LINK` (the user's own link to a folder): the shards land in the folder, and
    an open given the same LINK uses them."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    shutil.rmtree(d / ".tfdbg-index")
    (tmp_path / "real").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "real")
    proc = cli("index", str(d), "--workers", "1", "--out", str(link))
    assert proc.returncode == 0, proc.stderr
    assert "no report stored" not in proc.stdout, proc.stdout
    assert sorted(p.suffix for p in (tmp_path / "real").iterdir()) == [
        ".json", ".parquet", ".parquet"]
    env = {**child_env(), "TFDBG_TUI_SHARDS": str(link)}
    out = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--json", str(d)],
                         capture_output=True, text=True, cwd=ROOT, env=env,
                         timeout=HANG_GUARD)
    assert out.returncode == 1, out.stderr
    got = json.loads(out.stdout)
    assert {**got, "logdir": None} == {**direct, "logdir": None}


def test_index_out_a_link_to_nothing(run: Path, tmp_path: Path) -> None:
    """`--out` a dangling link (of one's own): refused in one line, exit 2, as export's
    OUT_DIR is; nothing made where it points."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    link = tmp_path / "out"
    link.symlink_to(tmp_path / "nowhere")
    proc = cli("index", str(d), "--workers", "1", "--out", str(link))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = assert_clean_stderr(proc.stderr, "index")
    assert str(link) in line and "symlink to nothing" in line, line
    assert not (tmp_path / "nowhere").exists()


@pytest.mark.parametrize("out", ["/proc/tfdbg-tui-shards", "/proc/self/tfdbg-tui/x"])
def test_index_out_where_no_folder_can_be_made(run: Path, tmp_path: Path, out: str) -> None:
    """One line naming the folder and exit 2 (as for a path that is not a folder), not one
    "not indexed" per file set."""
    d = tmp_path / "run"
    shutil.copytree(run, d)
    proc = cli("index", str(d), "--workers", "1", "--out", out)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    (line,) = assert_clean_stderr(proc.stderr, "index")
    assert out in line and "not indexed" not in line, line
    assert_no_raw_controls(proc.stdout, "index")
