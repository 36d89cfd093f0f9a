"""Worker-process indexing of several hosts gives exactly the index of reading them one after
another (rows, order, kept health, alerts), and a worker that dies loses only its host.

The run: three hosts record FULL_TENSOR graph traces (their health is kept in memory, so
the merge must move it with its rows) and eager FULL_TENSOR outputs. Host 1's clock jumps
back once (its file is not in wall-time order), host 2 writes the same wall times as host 0
(ties: host 0's rows first), and host 1's tensor at step 2 holds a NaN.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from support.alone import alone

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.index.sharding import start_method

T0 = 1_700_000_000.0
HOSTS, STEPS = 3, 6


def when(host: int, step: int) -> float:
    if host == 1 and step >= 3:
        return T0 + step - 2.5  # the clock jumps back: earlier than its own step 2
    return T0 + step + (0.0 if host == 2 else host * 0.01)


def write_run(d: Path) -> None:
    for k in range(HOSTS):
        with LogdirWriter(d, run_id="r", hostname=f"h{k}", file_timestamp=int(T0) + k) as w:
            w.add_graph("g", "f")
            w.add_op("g", "Log", "log", [])
            for step in range(STEPS):
                value = np.full(3, float(k + step))
                if k == 1 and step == 2:
                    value[1] = np.nan  # the bad tensor
                w.add_graph_trace("g", "log", 0, "FULL_TENSOR", value, wall_time=when(k, step))
                w.add_execution("Exp", "FULL_TENSOR", [value[:2]], output_tensor_ids=[step],
                                wall_time=when(k, step) + 0.001)


def read(d: Path, monkeypatch: pytest.MonkeyPatch, processes: bool) -> DebugLogdir:
    monkeypatch.setenv("TFDBG_TUI_WORKERS", "2" if processes else "1")
    monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", "0")
    logdir = DebugLogdir(str(d))
    logdir.update()
    return logdir


def host_rows(logdir: DebugLogdir, table: str) -> list[tuple[str, float, int]]:
    t = getattr(logdir, table)
    fs = t.fileset[:] if table != "outputs" else None
    hosts = ([logdir.filesets[int(i)].host for i in fs] if fs is not None else
             [logdir.filesets[int(logdir.executions.fileset[int(e)])].host
              for e in logdir.outputs.execution])
    return [(h, float(x), int(n)) for h, x, n in zip(
        hosts, t.wall_time if table != "outputs" else logdir.outputs.execution,
        t.offset if table == "executions" else t.nan[:], strict=True)]


@pytest.fixture
def run(tmp_path: Path) -> Path:
    write_run(tmp_path / "run")
    return tmp_path / "run"


# pytest-timeout's thread would make every read spawn: the fork cases time out by a signal
FORK = pytest.param("fork", marks=pytest.mark.timeout(300, method="signal"))


def read_in_a_thread(d: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[DebugLogdir, str]:
    """Read as the TUI does, from a thread of its own (workers are then spawned)."""
    out: list[tuple[DebugLogdir, str]] = []

    def work() -> None:
        method = start_method()
        out.append((read(d, monkeypatch, processes=True), method))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    return out[0]


@pytest.mark.parametrize("start", ["spawn", FORK])
def test_parallel_equals_serial_with_kept_health(run: Path, start: str,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 request: pytest.FixtureRequest) -> None:
    if start == "fork" and not alone(request):
        return
    serial = read(run, monkeypatch, processes=False)
    if start == "spawn":
        parallel, method = read_in_a_thread(run, monkeypatch)
    else:
        parallel, method = read(run, monkeypatch, processes=True), start_method()
    assert method == (start if sys.platform == "linux" else "spawn")
    # what the run says, before comparing the two ways of reading it
    t = serial.traces
    assert np.all(np.diff(t.wall_time) >= 0)
    at = {(serial.filesets[int(f)].host, float(w)) for f, w in zip(t.fileset[:], t.wall_time,
                                                                     strict=True)}
    assert len(at) == HOSTS * STEPS
    first_tie = [serial.filesets[int(f)].host for f, w in zip(t.fileset[:], t.wall_time,
                                                              strict=True) if w == T0]
    assert first_tie == ["h0", "h2"]  # equal times: the earlier file set first
    nan_rows = np.flatnonzero(np.asarray(t.nan[:]) > 0)
    assert [serial.filesets[int(t.fileset[int(r)])].host for r in nan_rows] == ["h1"]
    assert t.wall_time[int(nan_rows[0])] == when(1, 2)
    # and the two ways agree on everything
    for table in ("traces", "executions", "outputs"):
        a, b = getattr(serial, table), getattr(parallel, table)
        assert len(a) == len(b) > 0
        for col in a.logical_columns:
            va, vb = np.asarray(a.lazy(col)[:]), np.asarray(b.lazy(col)[:])
            if col in ("graph_id", "op_name", "op_type", "device"):
                va = np.array([serial.strings[int(i)] for i in va])
                vb = np.array([parallel.strings[int(i)] for i in vb])
            assert np.array_equal(va, vb), (table, col)
        assert host_rows(serial, table) == host_rows(parallel, table)
    assert np.array_equal(serial.alerts().index, parallel.alerts().index)
    assert np.array_equal(serial.alerts().kind, parallel.alerts().kind)
    assert len(serial.alerts()) == 2  # the NaN trace and the NaN eager output


CRASH = """\
import os, sys
def _die(event, args):
    if event == "open" and str(args[0]).endswith(".graph_execution_traces"):
        os._exit(70)
sys.addaudithook(_die)
"""
_FORKED_DIE = {"parent": -1}  # the pid whose forked children die (-1: none)


def _die_if_forked_child(event: str, args: tuple[object, ...]) -> None:
    if (event == "open" and _FORKED_DIE["parent"] not in (-1, os.getpid())
            and str(args[0]).endswith(".graph_execution_traces")):
        os._exit(70)


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers: Linux")
@pytest.mark.parametrize("start", ["spawn", FORK])
def test_a_dead_worker_loses_only_its_host(run: Path, tmp_path: Path, start: str,
                                           monkeypatch: pytest.MonkeyPatch,
                                           request: pytest.FixtureRequest) -> None:
    """Every worker process dies as it opens a traces file (as if killed): the update ends,
    the hosts this process indexed are all there, and each other one is named once. Workers
    are spawned when the caller has other threads (the TUI), forked when it has none."""
    if start == "fork" and not alone(request):
        return
    serial = read(run, monkeypatch, processes=False)
    if start == "spawn":  # the new interpreter loads sitecustomize; this process does not
        site = tmp_path / "site"
        site.mkdir()
        (site / "sitecustomize.py").write_text(CRASH)
        monkeypatch.setenv("PYTHONPATH", str(site))
        logdir, method = read_in_a_thread(run, monkeypatch)
        assert method == "spawn"
    else:
        assert start_method() == "fork"
        sys.addaudithook(_die_if_forked_child)  # stays for the session: inert unless armed
        _FORKED_DIE["parent"] = os.getpid()
        try:
            logdir = read(run, monkeypatch, processes=True)
        finally:
            _FORKED_DIE["parent"] = -1
    lost = {fs.host for fs in logdir.filesets
            if any(w.startswith(f"{fs.name}: not indexed") for w in logdir.warnings)}
    assert lost  # the worker always has the first file set before this process gets to it
    assert all("\n" not in w for w in logdir.warnings)
    kept = {h for h, _, _ in host_rows(logdir, "traces")}
    assert kept | lost == {f"h{k}" for k in range(HOSTS)} and not kept & lost
    for table in ("traces", "executions"):  # the hosts kept have exactly their rows
        want = [r for r in host_rows(serial, table) if r[0] in kept]
        assert host_rows(logdir, table) == want


def test_a_shard_goes_by_pipe_when_shared_memory_is_full(run: Path, tmp_path: Path) -> None:
    """A worker that cannot write its columns to shared memory (a container's small
    /dev/shm: here a directory that is not there) hands them back in the shard itself."""
    from reader.index.shards import index_fileset

    logdir = DebugLogdir(str(run))
    fs = logdir.filesets[1]
    spooled = index_fileset(DebugLogdir, logdir.path, logdir.run_id, fs,
                            spool_to=str(tmp_path / "not-there"))
    direct = index_fileset(DebugLogdir, logdir.path, logdir.run_id, fs)
    assert spooled.spooled is None and direct.spooled is None
    assert len(spooled.columns["traces"]["wall_time"]) == STEPS
    for table, cols in direct.columns.items():
        for col, a in cols.items():
            assert np.array_equal(spooled.columns[table][col], a, equal_nan=a.dtype.kind == "f")
