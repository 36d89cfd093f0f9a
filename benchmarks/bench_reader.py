"""Reader benchmark: `tfdbg-tui report --json` vs TensorFlow's DebugDataReader + InfNanMonitor.

Both run as fresh processes on the same big logdir in the same session; wall time and peak
RSS (of the whole process tree, from `wait4`) are measured the same way for both. TensorFlow's
time is also given without its import, which is the stricter comparison for us.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def run_measured(cmd: list[str]) -> tuple[float, int, str, int]:
    """(wall seconds, peak RSS bytes, stdout, exit status) of one child process."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            cwd=ROOT)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t0, usage.ru_maxrss * 1024, out.decode(), proc.returncode


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    try:
        from importlib.metadata import version

        tf = version("tensorflow")
    except Exception:
        tf = "not installed"
    return (f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python "
            f"{sys.version.split()[0]}, TensorFlow {tf}, Linux")


def incremental(logdir: Path) -> dict[str, float]:
    """Cost of `update()` on a live logdir: nothing new, and 10,000 new traces."""
    from reader import open_logdir

    with tempfile.TemporaryDirectory() as tmp:
        live = Path(tmp) / "live"
        shutil.copytree(logdir, live, ignore=shutil.ignore_patterns("*.graph_execution_traces",
                                                                     ".complete*"))
        (src,) = logdir.glob("*.graph_execution_traces")
        data = src.read_bytes()[: 40 << 20]
        from reader.io.tfrecord import ScanState, scan_records

        offsets = [off for off, _ in scan_records(data, 0, ScanState())]
        head, tail_end = offsets[100_000], offsets[110_000]
        dst = live / src.name
        dst.write_bytes(data[:head])
        index = open_logdir(str(live))
        times = []
        for _ in range(200):
            t0 = time.perf_counter()
            index.update()
            times.append(time.perf_counter() - t0)
        with open(dst, "ab") as f:
            f.write(data[head:tail_end])
        t0 = time.perf_counter()
        stats = index.update()
        append = time.perf_counter() - t0
        assert stats.traces == 10_000, stats
        return {"idle_ms": statistics.median(times) * 1e3, "append_10k_ms": append * 1e3}


def main(logdir: str, repeats: int = 3) -> tuple[str, dict[str, Any]]:
    """Run the comparison; returns (Markdown section, raw numbers)."""
    path = Path(logdir)
    ours_cmd = [sys.executable, "-m", "tfdbg_tui", "report", "--json", "--limit", "10", logdir]
    ours = [run_measured(ours_cmd) for _ in range(repeats)]
    walls = sorted(r[0] for r in ours)
    wall = statistics.median(walls)
    rss = max(r[1] for r in ours)
    report = json.loads(ours[0][2])
    tf_wall, tf_rss, tf_out, tf_status = run_measured(
        [sys.executable, "-m", "benchmarks.tf_reader_job", logdir])
    if tf_status != 0:
        raise SystemExit("TensorFlow's reader failed on the benchmark logdir")
    tf = json.loads(tf_out.strip().splitlines()[-1])
    same = (report["counts"]["executions"] == tf["executions"]
            and report["counts"]["graph_traces"] == tf["graph_traces"]
            and report["alerts"]["total"] == tf["alerts"])
    inc = incremental(path)
    size = sum(f.stat().st_size for f in path.iterdir() if f.is_file()) / 2**20
    n_exec, n_trace = report["counts"]["executions"], report["counts"]["graph_traces"]
    rows = [
        ("`tfdbg-tui report --json` (whole process)", f"{wall:.2f} s", f"{rss / 2**20:.0f} MiB"),
        ("TensorFlow reader + InfNanMonitor (whole process)", f"{tf_wall:.2f} s",
         f"{tf_rss / 2**20:.0f} MiB"),
        ("TensorFlow reader + InfNanMonitor (reading only, import excluded)",
         f"{tf['seconds']:.2f} s", f"{(tf_rss - tf['rss_after_import']) / 2**20:.0f} MiB "
         "above its import"),
    ]
    lines = [
        "## Reader: `report --json` vs TensorFlow's reader",
        "",
        f"Logdir: {n_trace:,} graph traces + {n_exec:,} executions ({size:.0f} MiB, "
        f"{report['alerts']['total']:,} NaN/∞ alerts), built by `benchmarks/synth.py` from a "
        "real TensorFlow run's records. Both readers agree on counts and alert total: "
        f"{'yes' if same else 'NO'}.",
        "",
        "| what | wall time | peak RSS |",
        "|---|---:|---:|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        f"- Speed-up, process vs process: **{tf_wall / wall:.1f}×**; against TensorFlow's "
        f"reading time alone: **{tf['seconds'] / wall:.1f}×** (bar: ≥ 10×).",
        f"- Peak memory: **{rss / tf_rss:.0%}** of TensorFlow's (bar: ≤ 25%).",
        f"- Our runs: {', '.join(f'{w:.2f} s' for w in walls)} (median shown).",
        f"- Live follow: `update()` with nothing new takes {inc['idle_ms']:.2f} ms; reading "
        f"10,000 appended traces takes {inc['append_10k_ms']:.0f} ms.",
    ]
    raw = {"ours_s": wall, "ours_rss": rss, "tf_s": tf_wall, "tf_read_s": tf["seconds"],
           "tf_rss": tf_rss, "same": same, **inc}
    return "\n".join(lines) + "\n", raw


if __name__ == "__main__":
    print(main(sys.argv[1])[0])
