"""Reader benchmark: `tfdbg-tui report --json` vs TensorFlow's DebugDataReader + InfNanMonitor.

Both run as fresh processes on the same logdir in the same session; wall time and peak RSS (of
the whole process, from `wait4`) are measured the same way for both. Our runs start with an
empty index cache (a new `TFDBG_TUI_CACHE_DIR` each), so they read every byte; the warm
(reopened from the cache) runs are separate rows. TensorFlow's process ends with `os._exit`
after printing (its teardown of millions of Python objects is not counted: that favours it).
On the 12.5M-record logdir TensorFlow's reader runs bounded (`tf_reader_job --limit`).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TF_LIMIT = 60.0  # seconds TensorFlow's reader gets on the 12.5M logdir


def child_env(**extra: str) -> dict[str, str]:
    """The environment of every measured child: no GPU, TensorFlow quiet, and no .pyc
    written while measuring (PYTHONDONTWRITEBYTECODE=1: the working tree is shared)."""
    return dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
                PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1", **extra)


def warm_bytecode() -> None:
    """Bring our packages' bytecode up to date (untimed; what any import would write, and
    what an installed package has), so that a measured child does not recompile — and time —
    every module edited lately. Called before each section."""
    import subprocess

    env = child_env()
    del env["PYTHONDONTWRITEBYTECODE"]
    subprocess.run([sys.executable, "-m", "compileall", "-q", "reader", "tfdbg_tui", "dumper",
                    "benchmarks"], cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL)


# Runs one command and notes its wall time, peak RSS and status in a file. The measured
# process is forked from this small interpreter, not from the benchmark's: Linux carries a
# process's peak RSS across fork and exec, so a child of a benchmark that holds hundreds of
# MB (data it just wrote or uploaded) would report at least that much as its own peak.
_LAUNCH = """
import os, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
with open(sys.argv[1], "w") as f:
    f.write(f"{wall} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}")
"""


def run_measured(cmd: list[str], **env: str) -> tuple[float, int, str, int]:
    """(wall seconds, peak RSS bytes, stdout, exit status) of one child process (started by
    a small launcher, see `_LAUNCH`; its wall time excludes the launcher's start)."""
    import subprocess

    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-run-") as tmp:
        stats = os.path.join(tmp, "stats")
        proc = subprocess.run([sys.executable, "-S", "-c", _LAUNCH, stats, *cmd],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              env=child_env(**env), cwd=ROOT, check=False)
        wall, rss, status = open(stats).read().split()
    return float(wall), int(rss) * 1024, proc.stdout.decode(), int(status)


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


def load() -> float:
    """The 1-minute load average (the machine is shared: say how busy it was)."""
    return os.getloadavg()[0]


def report_cmd(logdir: str) -> list[str]:
    return [sys.executable, "-m", "tfdbg_tui", "report", "--json", "--limit", "10", logdir]


def ours(logdir: str, repeats: int, cache: str | None = None) -> dict[str, Any]:
    """`report --json` `repeats` times: cold (each with a new, empty cache) unless `cache`
    names a filled one. Median wall time, max peak RSS, the parsed report."""
    runs, out = [], ""
    for _ in range(repeats):
        with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as fresh:
            wall, rss, out, status = run_measured(report_cmd(logdir),
                                                  TFDBG_TUI_CACHE_DIR=cache or fresh)
        if status not in (0, 1):
            raise SystemExit(f"report --json failed on {logdir} (status {status})")
        runs.append((wall, rss, load()))
    walls = [r[0] for r in runs]
    return {"wall": statistics.median(walls), "walls": walls, "rss": max(r[1] for r in runs),
            "loads": [r[2] for r in runs], "report": json.loads(out)}


def tensorflow(logdir: str, limit: float | None = None) -> dict[str, Any]:
    """TensorFlow's reader + InfNanMonitor as a fresh process (bounded with `limit`)."""
    cmd = [sys.executable, "-m", "benchmarks.tf_reader_job", logdir]
    if limit is not None:
        cmd[3:3] = ["--limit", str(limit)]
    wall, rss, out, status = run_measured(cmd)
    if status != 0 or not out.strip():
        raise SystemExit("TensorFlow's reader failed on the benchmark logdir")
    res: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    res.update(wall=wall, rss_process=rss, load=load())
    return res


def warm_files(logdir: str) -> None:
    """Read every file of `logdir` once, so the timed runs all find it in the page cache: a
    "first read" is one with an empty index cache; whether the disk or the page cache holds
    the files depends on what ran before (the 12.5M logdir read from disk took 23 s where
    the next run took 4), and both readers meet the same files."""
    for f in sorted(Path(logdir).iterdir()):
        if f.is_file():
            with open(f, "rb", buffering=0) as fh:
                while fh.read(16 << 20):
                    pass


def compare(logdir: str, repeats: int = 3) -> dict[str, Any]:
    """The 1.25M-record logdir: ours cold ×repeats, then TensorFlow's reader to the end."""
    warm_files(logdir)
    mine = ours(logdir, repeats)
    tf = tensorflow(logdir)
    rep = mine["report"]
    same = (rep["counts"]["executions"] == tf["executions"]
            and rep["counts"]["graph_traces"] == tf["graph_traces"]
            and rep["alerts"]["total"] == tf["alerts"])
    return {"ours": mine, "tf": tf, "same": same,
            "speedup": tf["wall"] / mine["wall"], "speedup_read": tf["seconds"] / mine["wall"],
            "memory_share": mine["rss"] / tf["rss_process"]}


def scale(logdir: str, repeats: int = 2, tf_limit: float = TF_LIMIT) -> dict[str, Any]:
    """The 12.5M-record logdir: ours cold ×repeats, warm (cache filled) ×repeats, and
    TensorFlow's reader bounded to `tf_limit` seconds."""
    warm_files(logdir)
    cold = ours(logdir, repeats)
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        ours(logdir, 1, cache)  # fills it
        warm = ours(logdir, repeats, cache)
    tf = tensorflow(logdir, tf_limit)
    return {"cold": cold, "warm": warm, "tf": tf}


def logdir_size(path: str) -> int:
    return sum(f.stat().st_size for f in Path(path).iterdir() if f.is_file())


if __name__ == "__main__":
    print(json.dumps(compare(sys.argv[1]), default=str, indent=1))
