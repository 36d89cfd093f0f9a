"""Memory from one field (issue 21, point 4): a count in a small record must not size a huge
allocation, and big files cost memory in proportion to their size.

Each check runs in a child process under `resource.setrlimit(RLIMIT_AS)`: a limit proves the
bound (the work either fits under it or fails), where a measurement would only describe one
run. The child prints one JSON line; a MemoryError or a traceback there fails the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hostile.raw import append, op_creation, tensor, trace
from support.paths import ROOT

from dumper.writer import LogdirWriter

T0 = 1_700_000_000.0
GIB = 1 << 30


def run_limited(code: str, limit_bytes: int, *args: str) -> dict:
    """Run `code` in a child whose address space is capped at `limit_bytes`; its JSON line."""
    prelude = textwrap.dedent(f"""
        import json, resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({limit_bytes}, {limit_bytes}))
    """)
    env = dict(os.environ, PYTHONPATH=f"{ROOT}:{ROOT / 'tests'}", OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def baseline_logdir(path: Path) -> None:
    w = LogdirWriter(path, run_id="run-1", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=int(T0))
    w.add_graph("g-train-step", "train_step")
    w.close()


def test_s_on_a_one_kb_record_declaring_a_huge_string_tensor(tmp_path: Path) -> None:
    """A [2**24] string tensor given by one 1,000-byte value: 1 KB on disk, 15.6 GiB as a
    fixed-width `.npy`. Under a 2 GiB limit, `s` must say so in one line and write nothing."""
    logdir = tmp_path / "logdir"
    baseline_logdir(logdir)
    (graphs,) = logdir.glob("*.graphs")
    append(graphs, op_creation("g-train-step", "StringJoin", "join"))
    (traces,) = logdir.glob("*.graph_execution_traces")
    proto = tensor(7, (1 << 24,), string_val=[b"x" * 1000])
    append(traces, trace("join", proto, mode=7))
    assert traces.stat().st_size < 2048
    out = run_limited("""
        from reader import open_logdir
        from reader.index.schema import GRAPH
        from reader.values import save_npy
        from tfdbg_tui.core.values import load
        logdir = open_logdir(sys.argv[1])
        loaded = load(logdir, GRAPH, 0, 0)
        try:
            save_npy(loaded.value, "join:0", sys.argv[2])
            said = None
        except ValueError as exc:
            said = str(exc)
        print(json.dumps({"said": said}))
    """, 2 * GIB, str(logdir), str(tmp_path / "saved"))
    assert out["said"] is not None and "\n" not in out["said"]
    assert "GiB" in out["said"]
    saved = tmp_path / "saved"
    assert not saved.exists() or list(saved.iterdir()) == []
