"""An open from Parquet shards merges the graph traces window by window as it reads each
shard's row groups (reader/index/shard_stream.py): the index it ends with must be exactly the
whole merge's (every column, kept health, alerts) and its report a direct read's; the first
alerts must be there before the last windows are merged, and the first alert shown the
run's earliest even when an eager alert is known before the graph traces that precede it.

Three hosts of 150,000 graph traces each (ten row groups a shard) whose wall times
interleave at different rates, tie across hosts, and end in NaN on one host; FULL_TENSOR
traces (their health is kept per row) spread in time but written last; 70,000 eager calls
of two outputs on one host interleaved with another's few, whose NaN is earlier than the
first host's but later than the earliest alert, a graph one in the second window. Twice:
with every shard's executions in time order (merged window by window), and with one host's
out of order (merged whole first: its eager alert known up front).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.index.schema import EAGER, tensor_parts

pytest.importorskip("pyarrow")

N = 150_000
T0 = 1_000.0
FIRST_BAD = (2, 40_000)  # host, trace: the run's earliest alert (past the first row group)
EAGER_CALLS = 70_000


def health(n: int) -> np.ndarray:
    v = np.zeros((n, 11))
    v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
    return v


def write_run(d: Path, in_order: bool) -> None:
    """The run; host 1's executions written out of time order unless `in_order` (then
    the executions are merged whole first, not window by window)."""
    for k in range(3):
        with LogdirWriter(d, run_id="stream", hostname=f"h{k}",
                          file_timestamp=1000 + k) as w:
            f = w.add_source_file("/job/train.py", ["y = tf.math.log(x)"])
            frame = w.add_stack_frame(f, 1, "train_step")
            w.add_graph("g", "train_step")
            w.add_op("g", "Log", "log", [], stack_frame_ids=[frame])
            w.add_op("g", "Exp", "exp", [], stack_frame_ids=[frame])
            # hosts 0 and 1 at the same times; host 2 half as often (its row groups reach
            # twice as far in time: a window takes only part of what it has read)
            times = T0 + (np.arange(N) * 2e-3 + 6e-4 if k == 2 else np.arange(N) * 1e-3)
            if k == 0:
                times[50_000:50_100] = times[50_000]  # a run of equal times, across hosts
            if k == 2:
                times[-500:] = np.nan  # a host's last records without a time: last
            v = health(N)
            if k == 2:
                v[FIRST_BAD[1]:: 7_000, 5], v[FIRST_BAD[1]:: 7_000, 10] = 1, 7
            if k == 0:
                v[140_000, 6], v[140_000, 10] = 1, 7  # a late +inf
            w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v, wall_times=times)
            for j in range(40):  # written last, anywhere in time: their health kept per row
                tensor = np.full(4, np.nan if j == 33 and k == 1 else float(j), np.float32)
                w.add_graph_trace("g", "exp", 0, "FULL_TENSOR", tensor,
                                  wall_time=T0 + j * 3.7 + k * 1e-4)
            if k == 0:  # eager: 70,000 calls of two outputs (several row groups of each)
                ok = [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4]
                nan = [1, 1, 1, 1, 4, 0, 0, 1, 0, 0, 3]
                for j in range(EAGER_CALLS):
                    w.add_execution("Exp", "FULL_HEALTH", [ok, nan if j == 60_000 else ok],
                                    output_tensor_ids=[2 * j, 2 * j + 1],
                                    stack_frame_ids=[frame], wall_time=T0 + j * 2e-3 + 1e-4)
            if k == 1:  # eager: 30,000 calls, their times between host 0's; a NaN at 100 s
                # (later than the first graph alert, at 80 s)
                times = np.sort(np.append(T0 + np.arange(30_000) * 3e-3 + 5e-5, T0 + 100.0))
                order = np.arange(len(times))
                if not in_order:
                    order[[0, 1]] = order[[1, 0]]
                for j in order:
                    bad = times[j] == T0 + 100.0
                    w.add_execution("Log", "FULL_HEALTH",
                                    [[1, 1, 1, 1, 4, 0, 0, 1 if bad else 0, 0, 0,
                                      3 if bad else 4]],
                                    output_tensor_ids=[int(j)], stack_frame_ids=[frame],
                                    wall_time=float(times[j]))


def columns(logdir: DebugLogdir) -> dict[str, dict[str, bytes]]:
    """Every column of the index, as its bytes (NaN times compare equal)."""
    out = {name: {c: np.ascontiguousarray(part.col(c)).tobytes() for c in part.columns}
           for name, part in tensor_parts(logdir).items()}
    a = logdir.alerts()
    out["alerts"] = {"kind": np.asarray(a.kind).tobytes(), "index": a.index[:].tobytes()}
    return out


@pytest.fixture(scope="module", params=["executions in order", "executions out of order"])
def indexed(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from reader.index.shard_store import find
    from tfdbg_tui.commands.index import index_logdir

    d = tmp_path_factory.mktemp("stream") / "run"
    in_order = request.param == "executions in order"
    write_run(d, in_order)
    results, _, _ = index_logdir(str(d))
    assert [r.status for r in results] == ["indexed"] * 3, [r.error for r in results]
    logdir = DebugLogdir(str(d))
    stored = find(logdir.path, logdir.run_id, list(logdir.filesets))
    assert [s.in_order for s in stored.shards.values()] == [True, in_order, True]
    return d


def whole_merge(d: Path) -> DebugLogdir:
    """The index the whole shards merged at once give (`reader.index.shards.merge`)."""
    from reader.index.shard_store import find, whole
    from reader.index.shards import SMALL, merge

    logdir = DebugLogdir(str(d))
    stored = find(logdir.path, logdir.run_id, list(logdir.filesets))
    assert len(stored.shards) == 3 and not stored.dropped
    logdir.read_files(SMALL)
    merge(logdir, [whole(stored.shards[i]) for i in range(3)], 2)
    return logdir


def test_streamed_index_is_the_whole_merge_and_reports_as_a_direct_read(
        indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from reader.index import shard_stream
    from tfdbg_tui.commands.report import _finite, build_report

    windows: list[int] = []
    real = shard_stream._append_traces

    def counted(logdir: DebugLogdir, hosts: Any, until: float) -> None:
        real(logdir, hosts, until)
        windows.append(len(logdir.traces))

    monkeypatch.setattr(shard_stream, "_append_traces", counted)
    streamed = DebugLogdir(str(indexed))
    streamed.update()
    assert len(windows) >= 3 and windows[-1] == 3 * N + 120  # merged in several windows
    assert len(streamed.executions) == EAGER_CALLS + 30_001
    expected = whole_merge(indexed)
    assert columns(streamed) == columns(expected)
    assert len(streamed.traces.details) == 120
    assert np.isnan(streamed.traces.wall_time[-500:]).all()

    monkeypatch.setenv("TFDBG_TUI_SHARDS", str(indexed / "no-such-shard-folder"))
    direct = DebugLogdir(str(indexed))
    direct.update()

    def rep(logdir: DebugLogdir) -> Any:
        return json.loads(json.dumps(_finite(build_report(logdir, 50)), default=str))

    assert rep(streamed) == rep(direct)


def test_first_alerts_come_before_the_last_window_and_are_the_earliest(indexed: Path) -> None:
    seen: list[tuple[int, int, float]] = []
    logdir = DebugLogdir(str(indexed))

    def progress(done: int, total: int) -> None:
        a = logdir.alerts()
        if len(a):
            seen.append((len(logdir.traces), len(a), float(a.wall_time[0])))

    logdir.update(progress)
    final = logdir.alerts()
    earliest = float(final.wall_time[0])
    assert int(final.kind[0]) != EAGER  # a graph alert precedes the known eager one
    assert seen and seen[0][0] <= 0.9 * len(logdir.traces)  # before the last window
    assert {t for _, _, t in seen} == {earliest}  # never an alert that a later one precedes


def _mapped_files() -> set[str]:
    with open("/proc/self/maps") as f:
        return {line.split(None, 5)[5].strip() for line in f if len(line.split(None, 5)) == 6}


def _is_mapped(a: np.ndarray) -> bool:
    import mmap

    base: Any = a
    while isinstance(base, np.ndarray):
        base = base.base
    return isinstance(base.obj if isinstance(base, memoryview) else base, mmap.mmap)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
def test_merged_columns_are_mapped_files_that_become_the_cache_entry(
        indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tensor tables an open from shards merges are written to files and mapped (not
    numpy arrays in memory: reader/index/column_spool.py); with an index cache those files
    are renamed into its entry (not written twice), without one they have no name."""
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    expected = columns(whole_merge(indexed))
    streamed = DebugLogdir(str(indexed), cache=True)
    streamed.update()
    assert columns(streamed) == expected
    from reader.index.shard_store import find

    stored = find(streamed.path, streamed.run_id, list(streamed.filesets)).shards.values()
    # executions out of order are merged whole, in memory (see shard_stream)
    spooled = ["traces", *(["executions", "outputs"] if all(s.in_order for s in stored)
                           else [])]
    for name in spooled:
        table = getattr(streamed, name)
        assert all(_is_mapped(table.col(c)) for c in table.columns), name
    (entry,) = [p for p in (tmp_path / "cache").glob("*/*") if p.is_dir()]
    assert not entry.name.startswith("tmp-")  # the spool's folder is gone
    mapped = _mapped_files()
    for name in spooled:
        for c in getattr(streamed, name).columns:
            assert str(entry / f"{name}.{c}.npy") in mapped  # the very file it wrote
    reopened = DebugLogdir(str(indexed), cache=True)
    reopened.update()
    assert columns(reopened) == expected and len(reopened.traces) == 3 * N + 120

    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "none"))
    uncached = DebugLogdir(str(indexed))
    uncached.update()
    assert _is_mapped(uncached.traces.col("wall_time"))
    assert columns(uncached) == expected
    assert not list((tmp_path / "none").glob("**/*.npy"))
    gone = {p for p in _mapped_files() if "tfdbg-tui-spool-" in p}
    assert gone and all(p.endswith("(deleted)") for p in gone)


def test_an_open_from_shards_hashes_each_source_once(
        indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shards' sources are checked (hashed) before they are used; the index cache saved
    right after identifies the same, unchanged files without hashing them again."""
    from reader.cache import identity

    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    hashed: list[int] = []
    real = identity._sample

    def counted(fd: int, size: int) -> str:
        hashed.append(os.fstat(fd).st_ino)
        return real(fd, size)

    monkeypatch.setattr(identity, "_sample", counted)
    logdir = DebugLogdir(str(indexed), cache=True)
    logdir.update()
    assert len(hashed) == len(set(hashed)) == 3 * 6  # six files a host, each hashed once
    assert list((tmp_path / "cache").glob("*/*.json"))  # and the entry was saved


def test_a_file_rewritten_after_its_check_is_hashed_again(tmp_path: Path) -> None:
    from reader.cache.identity import file_identity, still_holds

    f = tmp_path / "x.execution"
    f.write_bytes(b"a" * 5000)
    saved = file_identity(str(f))
    assert saved is not None and still_holds(saved, str(f))
    st = f.stat()
    with open(f, "r+b") as out:  # the same size and mtime: only the ctime tells
        out.write(b"b")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
    now = file_identity(str(f))
    assert now is not None and now["head"] != saved["head"]
    assert not still_holds(saved, str(f))


def test_a_row_group_damaged_past_the_first_stops_its_host_there(
        indexed: Path, tmp_path: Path) -> None:
    """A shard whose second row group of traces is damaged (a kind out of range, its
    metadata intact) passes the checks made before it is used; its rows stop there (one
    warning names it), read ahead in a thread or not, and every other host's are all there."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    from reader.index.parquet_shards import ROW_GROUP

    d = tmp_path / "run"
    shutil.copytree(indexed, d, copy_function=os.link)
    (shard,) = sorted((d / ".tfdbg-index").glob("*.h1.parquet"))
    table = pq.read_table(shard)
    kinds = table.column("traces.kind").to_pylist()
    kinds[ROW_GROUP + 5] = 9999
    i = table.schema.get_field_index("traces.kind")
    table = table.set_column(i, table.schema.field(i), pa.array(kinds, pa.int32()))
    shard.unlink()  # (a hard link of the fixture's)
    pq.write_table(table, shard, row_group_size=ROW_GROUP)
    logdir = DebugLogdir(str(d))
    logdir.update()
    warned = [w for w in logdir.warnings if "h1.parquet" in w]
    assert len(warned) == 1 and "the rest of its rows are not shown" in warned[0], warned
    fs = np.asarray(logdir.traces.fileset)
    host = next(k for k, f in enumerate(logdir.filesets) if f.name.endswith(".h1"))
    assert int((fs == host).sum()) == ROW_GROUP  # its first row group, not one row more
    assert int((fs != host).sum()) == 2 * N + 80  # the others whole (with their 40 kept)


def test_a_full_disk_under_the_spool_keeps_the_rest_in_memory(
        indexed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The index cache's folder on a real 2 MiB tmpfs: the merged columns' files fill it
    a few windows in (ENOSPC), and the merge goes on in memory — the same index, no error,
    and nothing of the spool left on the disk."""
    import subprocess

    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(mount))
        logdir = DebugLogdir(str(indexed), cache=True)
        logdir.update()
        assert columns(logdir) == columns(whole_merge(indexed))
        assert not list(mount.glob("*/tmp-*"))
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_the_merge_keeps_none_of_its_batches(
        indexed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once merged, the batches read from the shards are freed at once — not when the
    cyclic garbage collector next runs (the TUI runs it rarely: ~30 MB for 12.5M rows)."""
    import gc
    import weakref

    from reader.index import shard_rows

    seen: list[weakref.ref[np.ndarray]] = []
    real = shard_rows.Rows.pull

    def pull(self: Any) -> None:
        real(self)
        seen.extend(weakref.ref(a) for a in self.buf.values())

    monkeypatch.setattr(shard_rows.Rows, "pull", pull)
    logdir = DebugLogdir(str(indexed))
    gc.disable()
    try:
        logdir.update()
        assert len(seen) > 30 and len(logdir.traces) == 3 * N + 120
        assert [r for r in seen if r() is not None] == []
    finally:
        gc.enable()


class _Overlaps:
    """A Parquet file reader standing in front of Arrow's own, noting whether two row group
    reads were ever inside it at once (Arrow's reader is not thread-safe)."""

    def __init__(self, pf: Any) -> None:
        import threading

        self.pf, self.inside, self.overlapped = pf, 0, False
        self.metadata = pf.metadata
        self._count = threading.Lock()

    def read_row_group(self, *args: Any, **kwargs: Any) -> Any:
        with self._count:
            self.inside += 1
            self.overlapped = self.overlapped or self.inside > 1
        try:
            return self.pf.read_row_group(*args, **kwargs)
        finally:
            with self._count:
                self.inside -= 1


def test_a_shards_parts_read_from_threads_at_once_are_read_one_at_a_time(
        indexed: Path) -> None:
    """The merge reads a host's traces, executions and outputs ahead in two threads; one
    shard's row groups must never be read at once (Arrow's reader then fails or aborts the
    process: seen as 'Fatal Python error: Aborted' in a CI run). Each part read from its own
    thread gives what a read in one thread gives."""
    from concurrent.futures import ThreadPoolExecutor

    from reader.index.lazy_shard import PARTS
    from reader.index.shard_store import close, find

    logdir = DebugLogdir(str(indexed))
    stored = find(logdir.path, logdir.run_id, list(logdir.filesets))
    try:
        lazy = stored.shards[0]
        assert lazy.pf is not None
        seen = _Overlaps(lazy.pf)
        lazy.pf = seen

        def part(p: str) -> dict[str, np.ndarray]:
            got = list(lazy.batches(p))
            return {c: np.concatenate([b[c] for b in got]) for c in got[0]}

        with ThreadPoolExecutor(len(PARTS)) as pool:
            parts = dict(zip(PARTS, pool.map(part, PARTS), strict=True))
    finally:
        for s in stored.shards.values():
            close(s)
    assert not seen.overlapped
    again = find(logdir.path, logdir.run_id, list(logdir.filesets))
    try:
        for p in PARTS:
            one = list(again.shards[0].batches(p))
            for c, a in parts[p].items():
                assert np.array_equal(a, np.concatenate([b[c] for b in one]), equal_nan=True)
    finally:
        for s in again.shards.values():
            close(s)


def test_an_open_from_shards_does_not_import_pandas(indexed: Path, tmp_path: Path) -> None:
    """pyarrow's `to_numpy` (and `fill_null`) import pandas: 0.4 s of CPU, more than a sixth
    of a report from shards of 12.5M records. The open reads Arrow columns from their
    buffers instead; a report from the shards must not import it."""
    import subprocess
    import sys

    code = ("import sys\nfrom tfdbg_tui.cli import main\n"
            f"status = main(['report', '--json', {str(indexed)!r}])\n"
            "assert 'pandas' not in sys.modules, 'pandas was imported'\n"
            "sys.exit(status)")
    env = {**os.environ, "TFDBG_TUI_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("TFDBG_TUI_SHARDS", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, cwd=Path(__file__).resolve().parents[2])
    assert proc.returncode in (0, 1), proc.stderr
    assert ".tfdbg-index" not in proc.stdout  # (no shard dropped: the shards were read)
    assert json.loads(proc.stdout)["alerts"]["total"] > 0
