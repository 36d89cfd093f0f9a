"""Out of memory where we choose (`reader/io/headroom.py`): under an address-space limit a
logdir too big for it fails before a chunk is parsed, with room left to say so, and a single
record with no room to parse it is skipped with a warning while the rest loads.

Why it matters: a limit that falls inside a chunk's parsing leaves Python itself no room
while the error unwinds — `report` then printed "Exception ignored in: <generator …>" lines
before its one line (1 run in 6 of `test_report_under_a_too_small_limit_is_one_line` in a
full suite), and once spun for ever. Each check runs in a child under RLIMIT_AS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from support.paths import ROOT

from dumper.writer import LogdirWriter

T0 = 1_700_000_000


def run_under(code: str, room: int, *args: str) -> dict:
    """`code` in a child whose address space may grow `room` bytes past its size after
    importing the reader; its JSON line."""
    prelude = textwrap.dedent(f"""
        import json, resource, sys
        from reader import open_logdir  # imported before the limit
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                limit = int(line.split()[1]) * 1024 + {room}
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    """)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MALLOC_ARENA_MAX="1")
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_limit_too_small_for_the_graphs_fails_before_their_first_chunk(tmp_path: Path
                                                                         ) -> None:
    """28 MB of `.graphs` (it takes ~2.9x that to index) with 20 MB of room: MemoryError
    before anything of the file is parsed, naming the file and byte 0, and nothing printed
    by Python meanwhile (the child's stderr must stay empty)."""
    logdir = tmp_path / "logdir"
    w = LogdirWriter(logdir, run_id="run-1", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=T0)
    w.add_graph("g", "model")
    for i in range(180_000):
        w.add_op("g", "AddV2", f"model/layer_{i}/add",
                 [f"model/layer_{i - 1}/add:0"] if i else [])
    w.close()
    (graphs,) = logdir.glob("*.graphs")
    assert graphs.stat().st_size > 24 << 20
    out = run_under("""
        try:
            open_logdir(sys.argv[1])
            print(json.dumps({"error": None}))
        except MemoryError as exc:
            print(json.dumps({"error": str(exc)}))
    """, 20 << 20, str(logdir))
    assert out["error"] is not None
    assert out["error"].startswith(f"{graphs.name} at byte 0: ")
    assert "address-space limit" in out["error"]


def test_a_record_with_no_room_to_parse_is_skipped_and_the_rest_loads(tmp_path: Path) -> None:
    """A 24 MB `.source_files` record and a small one, with 60 MB of room: parsing the big
    one may take up to 3x its size (SECURITY.md's bound; this one would have fitted, which
    cannot be known before parsing it), more than is left, so it is skipped with a one-line
    warning naming it and the limit, and the small file after it is read and shown."""
    logdir = tmp_path / "logdir"
    w = LogdirWriter(logdir, run_id="run-1", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=T0)
    w.add_source_file("/p/generated.py", ["x = 1  # generated"] * 1_200_000)
    w.add_source_file("/p/train.py", ["import tensorflow as tf", "x = 1"])
    w.close()
    (sources,) = logdir.glob("*.source_files")
    assert sources.stat().st_size > 20 << 20
    out = run_under("""
        logdir = open_logdir(sys.argv[1])
        print(json.dumps({"files": [p for _, p in logdir.source_files()],
                          "train": logdir.source_lines("host", "/p/train.py"),
                          "warnings": logdir.all_warnings()}))
    """, 60 << 20, str(logdir))
    assert out["files"] == ["/p/train.py"]
    assert out["train"] == ["import tensorflow as tf", "x = 1"]
    skipped = [w for w in out["warnings"] if "address-space limit" in w]
    assert len(skipped) == 1 and "\n" not in skipped[0]
    assert skipped[0].startswith(f"{sources.name}: record at byte 0 holds ")
