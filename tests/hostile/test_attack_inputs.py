"""Held-out attacker check, round 6: hostile inputs of a new kind for every command (report,
diff, export, index, cache, and `tfdbg-tui LOGDIR` with no terminal) — forged and truncated
records, planted FIFOs and symlinks in a logdir and in OUT_DIR, huge claims, names that are
not UTF-8 or hold escape sequences.

Expected, written before the run (SECURITY.md): one line per error naming the file, exit 2
for an input nothing can be made of, never a traceback; every string reaching the terminal
through the sanitizer (no raw control character on stdout or stderr); nothing written
through a planted link; nothing misleading (a command does not call "done" what another
calls "nothing readable").

Found broken (each failed before its fix): `index` into a folder whose shard folder is a
FIFO (planted at `LOGDIR/.tfdbg-index`) said "not indexed: …: File exists" once per file set
with exit 1 — now one line "is a FIFO, not a folder", exit 2, before any task; `index` of a
logdir with nothing readable (every record length forged, or only empty metadata files)
said "3000 indexed, 0 failed … open it with TFDBG_TUI_SHARDS=…", exit 0, where `report`
says "nothing readable", exit 2 — now `index` says the same.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, child_env
from support.paths import ROOT
from support.tui import write_reference

from dumper.writer import LogdirWriter

ESC = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\r\n"  # set the clipboard, clear the screen, new line
SUFFIXES = ("execution", "graph_execution_traces", "graphs", "source_files", "stack_frames")


def cli(*args: str | bytes, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    """`tfdbg-tui ARGS` without a terminal; bytes, so a name that is not UTF-8 is seen as
    it is. Asserts what holds for every input: no traceback, no raw control character (but
    the CR LF ending a CSV line: RFC 4180's own)."""
    e = {**child_env(), **(env or {})}
    try:
        proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                              cwd=ROOT, env=e, stdin=subprocess.DEVNULL, timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{args[:2]} hung")
    err = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    out = proc.stdout.decode("utf-8", "replace")
    assert_no_raw_controls(out.replace("\r\n", "\n") if "--csv" in args else out, "stdout")
    assert_no_raw_controls(err, "stderr")
    return proc


def one_line(proc: subprocess.CompletedProcess[bytes], *words: str) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr)
    (line,) = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    assert all(w in line for w in words), line
    return line


def forged_lengths(d: Path) -> None:
    """A file set whose every record claims 2^62 bytes or more (a forged or corrupt header)."""
    d.mkdir()
    (d / "tfdbg_events.1.h.metadata").write_bytes(struct.pack("<Q", (1 << 63) - 1) + bytes(14))
    for s in SUFFIXES:
        (d / f"tfdbg_events.1.h.{s}").write_bytes(struct.pack("<Q", 1 << 62) + bytes(20))


def escaped_run(d: Path) -> None:
    """Run id, host, file, function, op type and op names holding escape sequences and a
    new line; a record damaged in the middle of the traces and the file cut short."""
    with LogdirWriter(d, run_id="r" + ESC, hostname="h" + ESC, file_timestamp=1000) as w:
        f = w.add_source_file("/job/tr" + ESC + ".py", ["x = 1" + ESC, "y"])
        frame = w.add_stack_frame(f, 1, "fn" + ESC)
        w.add_graph("g", "step" + ESC)
        w.add_op("g", "Log" + ESC, "log" + ESC, [], stack_frame_ids=[frame])
        v = np.zeros((200, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[::7, 7], v[::7, 10] = 1, 7
        w.add_graph_traces("g", "log" + ESC, 0, "FULL_HEALTH", v,
                           wall_times=1000 + np.arange(200) * 1e-3)
    (t,) = d.glob("*.graph_execution_traces")
    data = bytearray(t.read_bytes())
    data[len(data) // 2] ^= 0xFF
    t.write_bytes(bytes(data[:-5]))


# 1
def test_index_into_a_fifo_planted_as_its_shard_folder(tmp_path: Path) -> None:
    d = tmp_path / "ld"
    write_reference(d)
    os.mkfifo(d / ".tfdbg-index")
    one_line(cli("index", str(d)), ".tfdbg-index", "FIFO", "not a folder")
    assert not (d / ".tfdbg-index").is_dir()


# 2
def test_index_of_a_logdir_with_nothing_readable_says_so(tmp_path: Path) -> None:
    """Every record's length forged: `report` says nothing readable (exit 2); `index` must
    not call it indexed and point to shards of nothing."""
    d = tmp_path / "forged"
    forged_lengths(d)
    one_line(cli("report", str(d)), "nothing readable")
    proc = cli("index", str(d), "--out", str(tmp_path / "shards"))
    one_line(proc, "nothing readable", "corrupt record length")
    assert b"TFDBG_TUI_SHARDS" not in proc.stdout


# 3
@pytest.mark.parametrize("command", ["export", "diff"])
def test_forged_record_lengths_everywhere_are_one_line(tmp_path: Path, command: str) -> None:
    d = tmp_path / "forged"
    forged_lengths(d)
    args = [str(d), str(tmp_path / "out")] if command == "export" else [str(d), str(d)]
    one_line(cli(command, *args), "corrupt record length")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


# 4
def test_escape_sequences_in_every_name_reach_no_terminal(tmp_path: Path) -> None:
    d = tmp_path / "esc"
    escaped_run(d)
    for args in (["report", str(d)], ["report", "--values", str(d)], ["diff", str(d), str(d)],
                 ["diff", str(d), str(d), "--csv", "-"], ["export", str(d), str(tmp_path / "o")],
                 ["index", str(d), "--out", str(tmp_path / "s")]):
        proc = cli(*args)  # (raw controls are refused by `cli`)
        assert proc.returncode in (0, 1), (args, proc.stderr)
    out = cli("report", "--json", str(d)).stdout
    assert json.loads(out)["run"]["id"] == "r" + ESC  # the JSON keeps it, escaped


# 5
def test_a_file_set_name_that_is_not_utf8(tmp_path: Path) -> None:
    """A host name of bytes that decode to nothing, with an escape sequence: shown escaped,
    JSON still JSON (its text valid UTF-8)."""
    d = tmp_path / "ld"
    write_reference(d)
    (x,) = d.glob("*.execution")
    os.rename(x, os.fsencode(d) + b"/tfdbg_events.1700000000.h\xff\x1b[31m.execution")
    assert cli("report", str(d)).returncode == 1
    out = cli("report", "--json", str(d)).stdout
    json.loads(out.decode("utf-8"))


# 6
def test_the_app_without_a_terminal_on_a_hostile_path(tmp_path: Path) -> None:
    """`tfdbg-tui LOGDIR` with no terminal, LOGDIR not UTF-8 and holding escapes: the one
    line pointing to `report`, exit 2, the path escaped."""
    path = os.fsencode(tmp_path) + b"/ld\xff\x1b[2J"
    os.makedirs(path)
    write_reference(os.fsdecode(path))
    one_line(cli(path), "tfdbg-tui report")
    one_line(cli(path, "--compare", path), "tfdbg-tui report")


# 7
def test_a_symlink_planted_at_a_shard_name_is_replaced_not_written_through(
        tmp_path: Path) -> None:
    d, out = tmp_path / "ld", tmp_path / "shards"
    write_reference(d)
    out.mkdir()
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    (meta,) = d.glob("*.metadata")
    shard = out / meta.name.replace(".metadata", ".parquet")
    shard.symlink_to(victim)
    assert cli("index", str(d), "--out", str(out)).returncode == 0
    assert victim.read_text() == "precious\n"
    assert not shard.is_symlink() and shard.stat().st_size > 0


# 8
def test_a_symlink_loop_named_as_a_run_file(tmp_path: Path) -> None:
    """`.execution` a link to itself, and a stray looping name: read as missing (ELOOP),
    the rest of the run read; no command fails on it."""
    d = tmp_path / "ld"
    write_reference(d)
    (x,) = d.glob("*.execution")
    x.unlink()
    x.symlink_to(x)
    (d / "tfdbg_events.1700000000.host.zzz").symlink_to(d / "tfdbg_events.1700000000.host.zzz")
    proc = cli("report", "--json", str(d))
    assert proc.returncode == 1 and json.loads(proc.stdout)["counts"]["graph_traces"] > 0
    assert cli("export", str(d), str(tmp_path / "o")).returncode == 0
    assert cli("index", str(d), "--out", str(tmp_path / "s")).returncode == 0


# 9
def test_cache_folder_holding_a_fifo_and_an_escaped_name(tmp_path: Path) -> None:
    """A cache folder someone filled: `cache` lists it without opening the FIFO (no hang)
    and without printing the name raw; `report` reads the logdir anyway."""
    cache = tmp_path / "cache"
    (cache / "v1").mkdir(parents=True)
    os.mkfifo(cache / "v1" / "entry")
    (cache / "v1" / ("x" + ESC.replace("\n", ""))).mkdir()
    env = {"TFDBG_TUI_CACHE_DIR": str(cache), "TFDBG_TUI_CACHE_MIN_BYTES": "0"}
    assert cli("cache", env=env).returncode == 0
    d = tmp_path / "ld"
    write_reference(d)
    assert cli("report", str(d), env=env).returncode == 1


# 10
def test_a_cache_folder_named_in_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/c\xff\x1b[2J"
    env = {k: v for k, v in child_env().items()}
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "cache"], capture_output=True,
                          cwd=ROOT, stdin=subprocess.DEVNULL, timeout=HANG_GUARD,
                          env={**{k.encode(): v.encode() for k, v in env.items()},
                               b"TFDBG_TUI_CACHE_DIR": folder})
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    text = proc.stdout.decode("utf-8")  # (valid UTF-8: the name escaped)
    assert_no_raw_controls(text, "stdout")
    assert "\\x1b" in text, text


# 11
def test_a_folder_planted_at_a_shard_name_is_named_not_our_temporary(tmp_path: Path) -> None:
    """`index --out` where a folder has the shard's name: the file set is not indexed, and
    the line names the shard (before: '.NAME.parquet.tmp-…: Is a directory', our random
    temporary — which is no folder, and which the user never saw)."""
    d, out = tmp_path / "ld", tmp_path / "shards"
    write_reference(d)
    (meta,) = d.glob("*.metadata")
    shard = meta.name.replace(".metadata", ".parquet")
    (out / shard).mkdir(parents=True)
    proc = cli("index", str(d), "--out", str(out))
    assert proc.returncode == 1, proc.stderr
    (line,) = proc.stderr.decode().strip().splitlines()
    assert f"not indexed: {out / shard}:" in line and ".tmp-" not in line, line
    assert sorted(p.name for p in out.iterdir()) == [shard]  # nothing left beside it


# 12
def test_an_export_over_a_folder_at_one_table_name_changes_nothing(tmp_path: Path) -> None:
    """A folder planted at one table's name: one line naming it, exit 2, and OUT_DIR as it
    was (before: the tables renamed before it stayed — half an export beside the old one)."""
    d, out = tmp_path / "ld", tmp_path / "out"
    write_reference(d)
    (out / "executions.parquet").mkdir(parents=True)
    (out / "executions.parquet" / "mine").write_text("kept\n")
    one_line(cli("export", str(d), str(out)), str(out / "executions.parquet"))
    assert sorted(p.name for p in out.iterdir()) == ["executions.parquet"]
    assert (out / "executions.parquet" / "mine").read_text() == "kept\n"
