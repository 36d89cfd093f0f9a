"""Opening a run from its Parquet shards (`tfdbg-tui index`), against a direct first read.

Logdir: the reader benchmark's 1.25M-record run as ten hosts — its six files hard-linked
under ten host names (`hosts10`, 12.5M records, 4.0 GB; the hosts' records at the same
times, so the merge interleaves all ten everywhere). Parts:

- **index**: `tfdbg-tui index LOGDIR --force` on the local engine (2 worker processes) and on
  a Dask `LocalCluster` (`--engine dask --workers 2`, the cluster's start included); the
  throughput per worker (source bytes / wall / workers) against the in-process read, a
  cold `report --json` of one host (its 1.25M records) in the same run.
- **report**: `report --json` from the shards — the report `index` stored beside them, and
  merged from the shards with it moved aside — against a direct first read (the shard
  folder pointed nowhere: the hosts read in worker processes, as without an index), each
  cold (a new, empty index cache), interleaved; the outputs must be equal. Bar: ≤ 1/4.
- **tui**: the TUI's first open from the shards (headless, as benchmarks/bench_tui.py runs
  it, in a fresh process): first alert selected and drawn (bar ≤ 1 s), the process's peak
  RSS by then and once everything is merged (bar ≤ 300 MB), and whether the first alert
  shown is the run's earliest.

Usage: python -m benchmarks.bench_shards BIG_LOGDIR [--repeats N]   (BIG: the 1.25M run)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_reader import child_env, run_measured

ROOT = Path(__file__).resolve().parent.parent
HOSTS = 10
FIRST_ALERT_BAR = 1.0
RSS_BAR_MB = 300
REPORT_BAR = 0.25
MB = 1e6


def hosts_logdir(big: Path) -> Path:
    """`big`'s files as HOSTS hosts (hard links), next to it; made once."""
    out = big.parent / f"hosts{HOSTS}"
    out.mkdir(exist_ok=True)
    for f in sorted(big.glob("tfdbg_events.*")):
        _, stamp, _host, suffix = f.name.split(".", 3)
        for k in range(HOSTS):
            link = out / f"tfdbg_events.{int(stamp) + k}.h{k:02d}.{suffix}"
            if not link.exists():
                os.link(f, link)
    return out


def _bytes(logdir: Path) -> int:
    return sum(p.stat().st_size for p in logdir.glob("tfdbg_events.*"))


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "tfdbg_tui", *args]


def _cold(cmd: list[str], **env: str) -> tuple[float, int, str]:
    wall, peak, out, _ = _cold_cpu(cmd, **env)
    return wall, peak, out


def _cold_cpu(cmd: list[str], **env: str) -> tuple[float, int, str, float]:
    """As `_cold`, and the CPU time (user + system) of the command with its worker
    processes: the figure a loaded machine flatters least (a direct read's two processes
    lose more wall time to other work than one process and its reading thread)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        wall, peak, out, status = run_measured(cmd, TFDBG_TUI_CACHE_DIR=cache, **env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # (the launcher's few ms with it)
    if status not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, peak, out, cpu


def index(logdir: Path, one_host: Path, repeats: int) -> dict[str, Any]:
    size = _bytes(logdir)
    out: dict[str, Any] = {"bytes": size}
    for name, extra in (("local", []), ("dask", ["--engine", "dask"])):
        walls = []
        for _ in range(repeats):
            wall, _, text = _cold(_cli("index", str(logdir), "--force", "--workers", "2",
                                       *extra))
            assert f"{HOSTS} indexed" in text, text
            walls.append(wall)
        out[name] = {"wall": statistics.median(walls), "walls": walls,
                     "per_worker_mbs": size / statistics.median(walls) / 2 / MB}
    walls = [_cold(_cli("report", "--json", "--limit", "10", str(one_host)))[0]
             for _ in range(repeats)]
    out["in_process"] = {"wall": statistics.median(walls), "walls": walls,
                         "mbs": _bytes(one_host) / statistics.median(walls) / MB}
    return out


def _current(logdir: Path) -> None:
    """Index again the file sets whose shards are stale (the working tree is shared: a
    change to the reader's code makes every shard stale); nothing when all are current."""
    _cold(_cli("index", str(logdir), "--workers", "2"))


def _stored(logdir: Path) -> Path:
    """The report `index` stored beside the shards (tfdbg_tui/commands/report/stored.py)."""
    where = Path(os.environ.get("TFDBG_TUI_SHARDS") or logdir / ".tfdbg-index")
    found = sorted(where.glob("report-*.json"))
    if len(found) != 1:
        raise SystemExit(f"index stored no report in {where}: {found}")
    return found[0]


def report(logdir: Path, repeats: int) -> dict[str, Any]:
    """`report --json` three ways, interleaved in each round: from the report `index` stored
    beside the shards, merged from the shards (the stored report moved aside for the run),
    and a direct first read; the three outputs must be byte-identical."""
    cmd = _cli("report", "--json", "--limit", "10", str(logdir))
    direct_env = {"TFDBG_TUI_SHARDS": str(ROOT / "no-such-shard-folder")}
    shards, merged, direct = [], [], []
    same = True
    for _ in range(repeats):
        _current(logdir)
        stored = _stored(logdir)
        shards.append(_cold_cpu(cmd))
        aside = stored.with_name("aside-" + stored.name)
        stored.rename(aside)
        try:
            merged.append(_cold_cpu(cmd))
        finally:
            aside.rename(stored)
        direct.append(_cold_cpu(cmd, **direct_env))
        # a round whose command failed (a traceback exits 1, as alerts do) is no timing
        for out in (shards[-1][2], merged[-1][2], direct[-1][2]):
            if not out.lstrip().startswith("{"):
                raise SystemExit(f"report printed no report: {out[:200]!r}")
        same = same and shards[-1][2] == direct[-1][2] == merged[-1][2]
        assert ".tfdbg-index" not in shards[-1][2], "the shards were not used"
    ratios = [a[0] / b[0] for a, b in zip(shards, direct, strict=True)]
    cpu_ratios = [a[3] / b[3] for a, b in zip(shards, direct, strict=True)]
    merged_cpu = [a[3] / b[3] for a, b in zip(merged, direct, strict=True)]
    return {"shards": [r[0] for r in shards], "direct": [r[0] for r in direct],
            "merged": [r[0] for r in merged],
            "shards_rss": max(r[1] for r in shards), "direct_rss": max(r[1] for r in direct),
            "ratio": statistics.median(ratios), "same": same,
            "shards_cpu": [r[3] for r in shards], "direct_cpu": [r[3] for r in direct],
            "merged_cpu": [r[3] for r in merged],
            "cpu_ratio": statistics.median(cpu_ratios),
            "merged_cpu_ratio": statistics.median(merged_cpu), "load": os.getloadavg()[0]}


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MB


async def _tui(logdir: str) -> dict[str, Any]:
    from benchmarks.bench_tui import settle
    from reader import DebugLogdir
    from tfdbg_tui.core.memory import calm_collector
    from tfdbg_tui.ui.app import TfdbgApp

    out: dict[str, Any] = {"rss_before": _rss_mb()}
    t0 = time.perf_counter()
    app = TfdbgApp(DebugLogdir(logdir, cache=True), follow=False)
    calm_collector()
    async with app.run_test(size=(200, 50)) as pilot:
        while app.main is None or app.main.alerts.selected_alert() is None:
            if app.read_error or (app.indexed.is_set() and not len(app.state.snapshot.alerts)):
                raise SystemExit(f"no alert shown: {app.read_error}")
            await asyncio.sleep(0.002)
        app.screen._on_timer_update()
        out["first_alert"] = time.perf_counter() - t0
        out["rss_first_alert"] = _rss_mb()
        out["traces_then"] = app.state.snapshot.traces
        first = app.main.alerts.selected_alert()
        while not app.indexed.is_set():
            await asyncio.sleep(0.01)
        out["indexed"] = time.perf_counter() - t0
        await settle(app, pilot)
        a = app.state.snapshot.alerts
        out["earliest"] = first == (int(a.kind[0]), int(a.index[0]), int(a.slot[0]))
        out["traces"] = app.state.snapshot.traces
        out["warnings"] = [w for w in app.state.logdir.all_warnings() if ".tfdbg-index" in w]
        index = app.state.logdir
        out["index_mb"] = (index.traces.nbytes() + index.executions.nbytes()
                           + index.outputs.nbytes()) / MB
    out["rss_peak"] = _rss_mb()
    return out


def tui(logdir: Path) -> dict[str, Any]:
    """The TUI's first open in a fresh process (an empty index cache)."""
    _current(logdir)
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        proc = subprocess.run([sys.executable, "-m", "benchmarks.bench_shards", "--tui",
                               str(logdir)], cwd=ROOT, check=True, stdout=subprocess.PIPE,
                              text=True, env=child_env(TFDBG_TUI_CACHE_DIR=cache),
                              timeout=600)
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return out


def _ok(good: bool) -> str:
    return "✅" if good else "❌"


def render(r: dict[str, Any]) -> str:
    ix, rep, t = r["index"], r["report"], r["tui"]
    lines = [
        "## A run opened from its shards (`tfdbg-tui index`), 12.5M records on 10 hosts", "",
        f"Logdir: the 1.25M-record run's files hard-linked as {HOSTS} hosts "
        f"({ix['bytes'] / 1e9:.1f} GB, 12.5M records, the hosts' records at the same times), "
        "indexed into `.tfdbg-index/` (benchmarks/bench_shards.py).", "",
        "| what | measured | bar | |", "|---|---|---|---|",
        f"| TUI first open from the shards: first alert selected (and drawn) | "
        f"{t['first_alert']:.2f} s | ≤ {FIRST_ALERT_BAR:.0f} s | "
        f"{_ok(t['first_alert'] <= FIRST_ALERT_BAR)} |",
        f"| … peak RSS when it is shown | {t['rss_first_alert']:.0f} MB | ≤ {RSS_BAR_MB} MB | "
        f"{_ok(t['rss_first_alert'] <= RSS_BAR_MB)} |",
        f"| … peak RSS once every shard is merged and the app has done its work (an index of "
        f"{t['index_mb']:.0f} MB, its tensor columns mapped files) | {t['rss_peak']:.0f} MB | "
        f"≤ {RSS_BAR_MB} MB | "
        f"{_ok(t['rss_peak'] <= RSS_BAR_MB)} |",
        f"| `report --json` from the shards / a direct first read (cold) | "
        f"{rep['ratio']:.2f} ({statistics.median(rep['shards']):.2f} s vs "
        f"{statistics.median(rep['direct']):.2f} s) | ≤ {REPORT_BAR} | "
        f"{_ok(rep['ratio'] <= REPORT_BAR)} |",
        f"| … the same, CPU time (user + system, with the worker processes) | "
        f"{rep['cpu_ratio']:.2f} ({statistics.median(rep['shards_cpu']):.2f} s vs "
        f"{statistics.median(rep['direct_cpu']):.2f} s) | ≤ {REPORT_BAR} | "
        f"{_ok(rep['cpu_ratio'] <= REPORT_BAR)} |",
        f"| … merged from the shards (no stored report: `--values`, another `--limit`, "
        f"or none stored), CPU time | {rep['merged_cpu_ratio']:.2f} "
        f"({statistics.median(rep['merged_cpu']):.2f} s) | | |",
        f"| `index`, local engine, 2 workers: per worker | "
        f"{ix['local']['per_worker_mbs']:.0f} MB/s ({ix['local']['wall']:.1f} s) | | |",
        f"| `index`, Dask LocalCluster, 2 workers (its start included): per worker | "
        f"{ix['dask']['per_worker_mbs']:.0f} MB/s ({ix['dask']['wall']:.1f} s) | | |",
        f"| in-process read: `report --json` of one host (1.25M records), cold | "
        f"{ix['in_process']['mbs']:.0f} MB/s ({ix['in_process']['wall']:.2f} s) | | |", "",
        f"- TUI: shards not used: {len(t['warnings'])}; first alert with "
        f"{t['traces_then']:,} of {t['traces']:,} graph traces merged; "
        f"it is the run's earliest: {'yes' if t['earliest'] else 'no'}; every shard merged "
        f"at {t['indexed']:.1f} s. RSS before opening (Python, Textual, numpy): "
        f"{t['rss_before']:.0f} MB.",
        f"- report: same output from the shards and directly: {'yes' if rep['same'] else 'no'};"
        f" runs {', '.join(f'{x:.2f}' for x in rep['shards'])} s from the shards, "
        f"{', '.join(f'{x:.2f}' for x in rep['direct'])} s directly; peak RSS "
        f"{rep['shards_rss'] / 2**20:.0f} vs {rep['direct_rss'] / 2**20:.0f} MiB.",
        f"- index: local {', '.join(f'{x:.1f}' for x in ix['local']['walls'])} s; Dask "
        f"{', '.join(f'{x:.1f}' for x in ix['dask']['walls'])} s; per worker / in-process: "
        f"{ix['local']['per_worker_mbs'] / ix['in_process']['mbs']:.2f} (local), "
        f"{ix['dask']['per_worker_mbs'] / ix['in_process']['mbs']:.2f} (Dask).",
    ]
    return "\n".join(lines) + "\n"


def main(big: str, repeats: int) -> dict[str, Any]:
    logdir = hosts_logdir(Path(big))
    res: dict[str, Any] = {"index": index(logdir, Path(big), repeats)}
    res["report"] = report(logdir, repeats)  # from the shards the last index wrote
    res["tui"] = tui(logdir)
    return res


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_shards")
    p.add_argument("logdir")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--tui", action="store_true", help="(internal) the TUI part, as JSON")
    args = p.parse_args()
    if args.tui:
        print(json.dumps(asyncio.run(_tui(args.logdir)), default=str))
        sys.exit(0)
    result = main(args.logdir, args.repeats)
    print(render(result))
    print(json.dumps(result, default=str))
