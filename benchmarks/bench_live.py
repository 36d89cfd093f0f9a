"""Live follow: how soon records appended to a logdir being written become visible.

What a follower does (the TUI's follow worker): `ChangeWatcher.wait()` until a file of the
logdir changed, then `DebugLogdir.update()`, which reads only the appended bytes. Here a writer
thread appends real graph-trace records (the benchmark logdir's bytes, in order, 1,000 at a
time, flushed) at irregular intervals, and the follower — this process's main thread — notes
when `update()` has them. Latency = from the writer's flush returning to the rows being in
the index. Measured with file-system notifications (watchfiles/inotify) and with polling (what
network file systems get). Also: the CPU the follower burns while nothing changes, and the
cost of `update()` itself (nothing new; 10,000 new traces).

Usage: python -m benchmarks.bench_live LOGDIR   (prints one JSON line)
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BATCH = 1000  # traces per append
APPENDS = 15  # appends per mode


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _setup(logdir: Path, tmp: Path) -> tuple[Path, Path, bytes, list[int]]:
    """A copy of the logdir's small files and the first 100,000 traces; returns (live dir,
    its trace file, the source trace bytes, record offsets)."""
    from reader.io.tfrecord import ScanState, scan_records

    live = tmp / "live"
    shutil.copytree(logdir, live, ignore=shutil.ignore_patterns(
        "*.graph_execution_traces", "*.execution", ".complete*"))
    (src,) = logdir.glob("*.graph_execution_traces")
    (ex,) = logdir.glob("*.execution")
    (live / ex.name).write_bytes(b"")
    with open(src, "rb") as f:
        data = f.read(64 << 20)
    offsets = [off for off, _ in scan_records(data, 0, ScanState())]
    dst = live / src.name
    dst.write_bytes(data[: offsets[100_000]])
    return live, dst, data, offsets


def _follow(live: Path, dst: Path, data: bytes, offsets: list[int], start: int,
            notify: bool) -> dict[str, Any]:
    """Append APPENDS batches from record `start` on; latency of each, with one mode."""
    from reader import DebugLogdir
    from reader.io.watch import ChangeWatcher

    index = DebugLogdir(str(live))
    index.update()
    base = len(index.traces)
    watcher = ChangeWatcher(str(live), notify=notify)
    watcher.ready.wait(10)
    written: list[float] = []
    rng = random.Random(1)

    def writer() -> None:
        with open(dst, "ab") as f:
            for i in range(APPENDS):
                time.sleep(rng.uniform(0.3, 0.7))
                a, b = offsets[start + i * BATCH], offsets[start + (i + 1) * BATCH]
                f.write(data[a:b])
                f.flush()
                written.append(time.perf_counter())

    t = threading.Thread(target=writer)
    t.start()
    seen: list[float] = []
    deadline = time.monotonic() + APPENDS * 2 + 10
    while len(seen) < APPENDS and time.monotonic() < deadline:
        if not watcher.wait(1.0):
            continue
        index.update()
        now = time.perf_counter()
        while len(seen) < APPENDS and len(index.traces) >= base + (len(seen) + 1) * BATCH:
            seen.append(now)
    t.join()
    # idle: nothing changes for 3 s; what does waiting cost?
    c0, w0 = _cpu(), time.perf_counter()
    watcher.wait(3.0)
    idle_cpu = (_cpu() - c0) / (time.perf_counter() - w0)
    mode = watcher.mode
    watcher.close()
    lat = [s - w for s, w in zip(seen, written, strict=False)]
    return {"mode": mode, "latencies": lat, "missed": APPENDS - len(seen),
            "median": statistics.median(lat) if lat else None, "max": max(lat, default=None),
            "idle_cpu_share": idle_cpu}


def _update_cost(live: Path, dst: Path, data: bytes, offsets: list[int], start: int
                 ) -> dict[str, float]:
    from reader import DebugLogdir

    index = DebugLogdir(str(live))
    index.update()
    times = []
    for _ in range(200):
        t0 = time.perf_counter()
        index.update()
        times.append(time.perf_counter() - t0)
    with open(dst, "ab") as f:
        f.write(data[offsets[start]:offsets[start + 10_000]])
    t0 = time.perf_counter()
    stats = index.update()
    append = time.perf_counter() - t0
    assert stats.traces == 10_000, stats
    return {"idle_ms": statistics.median(times) * 1e3, "append_10k_ms": append * 1e3}


def main(logdir: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-live-") as tmp:
        live, dst, data, offsets = _setup(Path(logdir), Path(tmp))
        start = 100_000
        out: dict[str, Any] = {}
        for name, notify in (("notify", True), ("poll", False)):
            out[name] = _follow(live, dst, data, offsets, start, notify)
            start += APPENDS * BATCH
        out["update"] = _update_cost(live, dst, data, offsets, start)
    return out


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1])))
