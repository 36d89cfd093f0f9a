"""A run written by several hosts at once: each host's file set is indexed on its own (in
worker processes when the run is big) and the parts merged into one index in wall-time order,
every row knowing its host.

The run: four workers of one job (one file set each, as TensorFlow writes them) call
`train_step` in lock-step; worker k runs each step 10·k ms after worker 0, so their records
interleave in time. Worker 2's data goes bad at step 3: its Log produces −∞ there.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support.hosts import HOSTS, STEPS, T0, health, host_of_time, when, write_job

from dumper.writer import LogdirWriter
from reader import DebugLogdir


@pytest.fixture
def job(tmp_path: Path) -> Path:
    d = tmp_path / "job"
    write_job(d)
    return d


def row_hosts(logdir: DebugLogdir, filesets: np.ndarray) -> list[str]:
    return [logdir.filesets[int(i)].host for i in filesets]


def test_hosts_merge_into_one_timeline(job: Path) -> None:
    logdir = DebugLogdir(str(job))
    logdir.update()
    assert len(logdir.filesets) == HOSTS and len(logdir.hosts) == HOSTS
    t, e = logdir.traces, logdir.executions
    assert len(t) == HOSTS * STEPS * 2 and len(e) == HOSTS * STEPS
    assert np.all(np.diff(t.wall_time) >= 0) and np.all(np.diff(e.wall_time) >= 0)
    # every row names the host that wrote it
    assert row_hosts(logdir, t.fileset[:]) == [f"worker-{k}" for k in host_of_time(t.wall_time)]
    assert row_hosts(logdir, e.fileset[:]) == [f"worker-{k}" for k in host_of_time(e.wall_time)]
    # outputs follow their executions: the bad outputs are worker 2's steps 3..5
    bad_exec = sorted(int(logdir.outputs.execution[r]) for r in
                      np.flatnonzero(np.asarray(logdir.outputs.bad) == 1))
    assert [logdir.filesets[int(e.fileset[i])].host for i in bad_exec] == ["worker-2"] * 3
    assert [round(e.wall_time[i] - T0) for i in bad_exec] == [3, 4, 5]
    for i in range(len(e)):
        assert [int(logdir.outputs.execution[r]) for r in logdir.output_rows(i)] == [i]
    # the first alert: worker 2's Log at step 3
    a = logdir.alerts()
    assert len(a) == 2 * 3  # a Log trace and a call output per bad step
    first = int(a.index[0])
    assert int(a.kind[0]) == 0 and logdir.op_name_of_trace(first) == "log"
    assert logdir.filesets[int(t.fileset[first])].host == "worker-2"
    assert t.wall_time[first] == when(2, 3, 1)
    h = logdir.traces.health(first)
    assert (h.neg_inf, h.neg) == (1, 3)  # the health read back from the right host's file


def test_worker_processes_give_the_same_index(job: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_WORKERS", "1")  # one core: in this process
    alone = DebugLogdir(str(job))
    alone.update()
    monkeypatch.setenv("TFDBG_TUI_WORKERS", "2")
    monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", "0")  # small, but in processes
    from reader.index.shards import workers

    assert workers(HOSTS, 1) == 2
    parallel = DebugLogdir(str(job))
    parallel.update()
    texts = {"traces": ("graph_id", "op_name", "op_type", "device"),
             "executions": ("op_type", "graph_id")}
    for name in ("traces", "executions", "outputs"):
        a, b = getattr(alone, name), getattr(parallel, name)
        assert len(a) == len(b) > 0
        for col in a.logical_columns:
            va, vb = np.asarray(a.lazy(col)[:]), np.asarray(b.lazy(col)[:])
            if col in texts.get(name, ()):  # string ids are numbered as they were met
                va = np.array([alone.strings[int(i)] for i in va])
                vb = np.array([parallel.strings[int(i)] for i in vb])
            assert np.array_equal(va, vb), (name, col)
    assert np.array_equal(alone.alerts().index, parallel.alerts().index)
    assert np.array_equal(alone.alerts().kind, parallel.alerts().kind)


def test_follow_after_the_merge_appends(job: Path, tmp_path: Path) -> None:
    """A live run: after the merged first read, new records of any host are appended."""
    logdir = DebugLogdir(str(job))
    logdir.update()
    before = len(logdir.traces)
    extra = tmp_path / "late"
    with LogdirWriter(extra, run_id="job-7", hostname="worker-9", file_timestamp=int(T0) + 9,
                      ) as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "Log", "log", [])
        w.add_graph_trace("g", "log", 0, "FULL_HEALTH", health(4, neg=4),
                          wall_time=T0 + 100)
    for f in extra.iterdir():  # another host starting late
        f.rename(job / f.name)
    logdir.update()
    assert len(logdir.traces) == before + 1
    assert logdir.filesets[int(logdir.traces.fileset[before])].host == "worker-9"
    assert len(logdir.hosts) == HOSTS + 1


def test_reopened_from_the_index_cache_in_the_same_order(job: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    first = DebugLogdir(str(job), cache=True)
    assert first.update().bytes_read > 0
    again = DebugLogdir(str(job), cache=True)
    assert again.update().bytes_read == 0  # all from the cache
    assert np.array_equal(first.traces.wall_time, again.traces.wall_time)
    assert np.array_equal(np.asarray(first.traces.fileset[:]), np.asarray(again.traces.fileset[:]))
    assert np.array_equal(first.alerts().index, again.alerts().index)
    assert row_hosts(again, again.executions.fileset[:]) == [
        f"worker-{k}" for k in host_of_time(again.executions.wall_time)]


@pytest.mark.parametrize("processes", [False, True], ids=["here", "worker-processes"])
def test_op_type_from_another_hosts_graphs(job: Path, monkeypatch: pytest.MonkeyPatch,
                                           processes: bool) -> None:
    """Worker 3's `.graphs` file is lost: its traces' op types come from the graphs the
    other workers recorded (same graph id, same op), in whichever way the run is read."""
    if processes:
        monkeypatch.setenv("TFDBG_TUI_WORKERS", "2")
        monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", "0")
    else:
        monkeypatch.setenv("TFDBG_TUI_WORKERS", "1")
    (graphs,) = job.glob("*.worker-3.graphs")
    graphs.unlink()
    logdir = DebugLogdir(str(job))
    logdir.update()
    t = logdir.traces
    mine = [i for i in range(len(t)) if logdir.filesets[int(t.fileset[i])].host == "worker-3"]
    assert len(mine) == STEPS * 2
    assert {logdir.op_type_of_trace(i) for i in mine} == {"Placeholder", "Log"}
