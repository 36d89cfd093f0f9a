"""Held-out cases (issue 30's acceptance): things planted at the paths commands write or read
— FIFOs, devices, folders and symlinks in export's OUT_DIR, at `diff --csv`/`--map`, the
cache folder, a run's `.tfdbg-index`, `index --out`, `run --logdir`.

Expected, written before the run (each case says which): never a hang nor a traceback; a
write target that cannot be one is one line naming it and exit 2, with the user's previous
file kept; a planted FIFO or symlink at a final name is replaced, never opened nor followed
(the file outside stays as it was); a cache or shard folder that is not one means "read the
logdir" (the report is as without it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import child_env
from support.paths import ROOT
from support.slowdown import guard
from support.tui import write_reference

WAIT = guard(120)  # each case ends in about a second; a blocking open would never end
TABLES = ["executions", "eager_outputs", "graph_traces", "alerts", "stack_frames"]


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("held-out-targets") / "ld"
    write_reference(d)
    return str(d)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], text=True,
                              capture_output=True, cwd=ROOT, timeout=WAIT,
                              env={**child_env(), **(env or {})})
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args} hung (a blocking open?)")
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def one_line(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tfdbg-tui"), proc.stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


def test_export_replaces_fifos_and_symlinks_at_final_names(ref: str, tmp_path: Path) -> None:
    """A FIFO at report.json and alerts.parquet, symlinks to a file outside at the others:
    exit 0, every file regular, the FIFOs never opened (no hang), the victim kept."""
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("keep")
    os.mkfifo(out / "report.json")
    os.mkfifo(out / "alerts.parquet")
    for t in ("executions", "eager_outputs", "graph_traces", "stack_frames"):
        (out / f"{t}.parquet").symlink_to(victim)
    proc = cli("export", ref, str(out))
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    for name in [f"{t}.parquet" for t in TABLES] + ["report.json"]:
        assert (out / name).is_file() and not (out / name).is_symlink(), name


def test_export_csv_through_planted_symlinks(ref: str, tmp_path: Path) -> None:
    """--format csv: links at each `<table>.csv` and `<table>.csv.partial` — replaced or
    passed over, never written through."""
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("keep")
    for t in TABLES:
        (out / f"{t}.csv").symlink_to(victim)
        (out / f"{t}.csv.partial").symlink_to(victim)
    proc = cli("export", ref, str(out), "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "keep"
    for t in TABLES:
        assert (out / f"{t}.csv").is_file() and not (out / f"{t}.csv").is_symlink()


def test_export_a_table_name_taken_by_a_folder_keeps_the_previous_export(
        ref: str, tmp_path: Path) -> None:
    """A folder where a table goes: one line naming that file, exit 2, and the previous
    export's report.json unchanged (all or nothing), no temporary left."""
    out = tmp_path / "out"
    assert cli("export", ref, str(out)).returncode == 0
    before = (out / "report.json").read_bytes()
    (out / "alerts.parquet").unlink()
    (out / "alerts.parquet").mkdir()
    (out / "alerts.parquet" / "x").write_text("x")
    one_line(cli("export", ref, str(out)), str(out / "alerts.parquet"))
    assert (out / "report.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == sorted(
        [f"{t}.parquet" for t in TABLES] + ["report.json"])


def test_export_into_a_folder_whose_parents_do_not_exist(ref: str, tmp_path: Path) -> None:
    """Made like `mkdir -p`, or one line: never a traceback, nothing outside tmp_path."""
    out = tmp_path / "a" / "b" / "c"
    proc = cli("export", ref, str(out))
    assert proc.returncode in (0, 2), proc.stderr
    if proc.returncode == 0:
        assert (out / "report.json").is_file()
    else:
        one_line(proc, str(out))


def test_diff_csv_to_a_full_device(ref: str) -> None:
    one_line(cli("diff", ref, ref, "--csv", "/dev/full"), "/dev/full")


def test_diff_csv_into_a_missing_folder(ref: str, tmp_path: Path) -> None:
    target = tmp_path / "nope" / "out.csv"
    one_line(cli("diff", ref, ref, "--csv", str(target)), str(target))
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("dangling", [True, False], ids=["dangling", "to-a-file"])
def test_diff_csv_at_another_users_symlink(ref: str, tmp_path: Path, dangling: bool) -> None:
    """In a shared (sticky, world-writable) folder, another user's symlink at the very name
    `--csv` writes: replaced by the file or refused in one line — the place it points to
    is never created nor written."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    target = tmp_path / "elsewhere.csv"
    if not dangling:
        target.write_text("mine\n")
    link = shared / "out.csv"
    link.symlink_to(target)
    try:
        os.lchown(link, 12345, 12345)
    except PermissionError:
        pytest.skip("giving a symlink to another user needs root")
    proc = cli("diff", ref, ref, "--csv", str(link))
    assert proc.returncode in (0, 2), proc.stderr
    if proc.returncode == 2:
        one_line(proc, str(link))
    assert (not target.exists()) if dangling else target.read_text() == "mine\n"


def test_diff_that_fails_keeps_the_previous_csv(ref: str, tmp_path: Path) -> None:
    target = tmp_path / "out.csv"
    target.write_text("mine\n")
    one_line(cli("diff", ref, str(tmp_path / "missing"), "--csv", str(target)))
    assert target.read_text() == "mine\n"


def test_map_through_a_symlink_to_a_device(ref: str, tmp_path: Path) -> None:
    (tmp_path / "map").symlink_to("/dev/zero")
    one_line(cli("diff", ref, ref, "--map", str(tmp_path / "map")), "--map")


def test_map_with_a_bad_regex_names_the_line(ref: str, tmp_path: Path) -> None:
    m = tmp_path / "pairs.map"
    m.write_text("# ok\ndense/kernel = dense_1/kernel\n(unclosed = x\n")
    one_line(cli("diff", ref, ref, "--map", str(m)), "3")


def test_map_of_binary_garbage(ref: str, tmp_path: Path) -> None:
    m = tmp_path / "pairs.map"
    m.write_bytes(b"\xff\xfe\x00\x00= \x80\x81\n\x00\x00\x00 = \xc3\x28\n")
    proc = cli("diff", ref, ref, "--map", str(m))
    assert proc.returncode in (0, 2), proc.stderr
    if proc.returncode == 2:
        one_line(proc, "--map")


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_cache_folder_that_is_not_a_folder(ref: str, tmp_path: Path, kind: str) -> None:
    """report reads the logdir (its alerts as without a cache), `cache` says why there is
    none, exit 0; neither hangs."""
    where = {"fifo": tmp_path / "c", "device": Path("/dev/null"), "file": tmp_path / "c"}[kind]
    if kind == "fifo":
        os.mkfifo(where)
    elif kind == "file":
        where.write_text("not a cache\n")
    env = {"TFDBG_TUI_CACHE_DIR": str(where), "TFDBG_TUI_CACHE_MIN_BYTES": "0"}
    proc = cli("report", "--json", ref, env=env)
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["alerts"]["total"] == 4
    assert cli("cache", env=env).returncode == 0
    if kind != "device":
        assert (where.read_text() == "not a cache\n") if kind == "file" else where.is_fifo()


def test_a_fifo_planted_in_a_cache_entry_is_not_opened(ref: str, tmp_path: Path) -> None:
    """Each of an entry's files in turn replaced by a FIFO: the entry is not used (the
    logdir is read) and nothing waits on the FIFO."""
    env = {"TFDBG_TUI_CACHE_DIR": str(tmp_path / "c"), "TFDBG_TUI_CACHE_MIN_BYTES": "0"}
    assert cli("report", ref, env=env).returncode == 1
    v1 = tmp_path / "c" / "v1"
    (desc,) = v1.glob("*.json")
    (cols,) = [p for p in v1.iterdir() if p.is_dir()]
    column = sorted(cols.iterdir())[0]
    for victim in (column, desc):
        victim.unlink()
        os.mkfifo(victim)
        proc = cli("report", "--json", ref, env=env)
        assert proc.returncode == 1, proc.stderr
        assert json.loads(proc.stdout)["alerts"]["total"] == 4
    assert cli("cache", env=env).returncode == 0


@pytest.mark.parametrize("kind", ["fifo", "shard-fifo", "shard-empty", "shard-link"])
def test_a_planted_index_folder_or_shard(ref: str, tmp_path: Path, kind: str) -> None:
    """`.tfdbg-index` a FIFO, or the shard a FIFO, an empty file, a symlink to a device:
    the host is read from its files (the report as without shards), no hang."""
    ld = tmp_path / "ld"
    write_reference(ld)
    idx = ld / ".tfdbg-index"
    shard = idx / "tfdbg_events.1700000000.host.parquet"
    if kind == "fifo":
        os.mkfifo(idx)
    else:
        idx.mkdir()
        if kind == "shard-fifo":
            os.mkfifo(shard)
        elif kind == "shard-empty":
            shard.write_bytes(b"")
        else:
            shard.symlink_to("/dev/zero")
    proc = cli("report", "--json", str(ld))
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["alerts"]["total"] == 4


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_index_out_that_is_not_a_folder(ref: str, tmp_path: Path, kind: str) -> None:
    out = tmp_path / "shards"
    if kind == "fifo":
        os.mkfifo(out)
    else:
        out.write_text("mine\n")
    proc = cli("index", ref, "--out", str(out), "--workers", "1")
    assert proc.returncode in (1, 2), proc.stderr
    assert str(out) in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    if kind == "file":
        assert out.read_text() == "mine\n"


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_run_logdir_that_is_not_a_folder(tmp_path: Path, kind: str) -> None:
    """Refused before the program starts (the program would print 'started')."""
    target = {"fifo": tmp_path / "ld", "file": tmp_path / "ld", "device": Path("/dev/null")}[kind]
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "file":
        target.write_text("mine\n")
    prog = tmp_path / "prog.py"
    prog.write_text("print('started')\n")
    proc = cli("run", "--logdir", str(target), "--", str(prog))
    assert "started" not in proc.stdout
    one_line(proc, str(target))
    if kind == "file":
        assert target.read_text() == "mine\n"
