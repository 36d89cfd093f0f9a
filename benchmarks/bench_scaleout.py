"""Beyond one machine: a logdir in a bucket, export, and many hosts (issue 22's bars).

- **remote**: `report --json` of the reader benchmark's logdir from a local S3 server (moto's
  stand-alone server on 127.0.0.1, as the tests use) against the same files on local disk,
  each cold (a new, empty index cache). Bar: remote ≤ 2× local.
- **export**: `tfdbg-tui export LOGDIR OUT` (Parquet) against one `report --json`. Bar: ≤ 1×.
- **hosts**: a run of 8 hosts (8 file sets of 1.5M graph traces each, ~1 GB in all, written by
  the TF-free writer; big enough that spawning workers is not the cost) indexed with worker
  processes (the default) against one after another in one process (`TFDBG_TUI_WORKERS=1`),
  and against 1 host of the same size per host. Bar: 8 hosts ≥ 1.6× faster than one after
  another on 2 cores.

Usage: python -m benchmarks.bench_scaleout LOGDIR [--repeats N] [--smoke] [--only PART]
`--smoke` runs each measurement once on small data (8 hosts × 20k traces; the remote and
export parts on LOGDIR as given) to check the code, not to measure. `--only hosts` (or
`remote`, `export`) runs one part. The hosts part runs its two modes interleaved (worker
processes, one after another, worker processes, …), so a load that comes and goes on a
shared machine weighs on both alike; it reports their CPU times (the children's included)
too, which the load inflates less than the wall times.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.bench_reader import run_measured

ROOT = Path(__file__).resolve().parent.parent
HOSTS = 8


def _once(cmd: list[str], **env: str) -> tuple[float, int, str, float]:
    """One cold run (a new, empty index cache) of `cmd`: wall, peak RSS, output, and the
    CPU seconds it and its children used."""
    before = os.times()
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        wall, peak, out, status = run_measured(cmd, TFDBG_TUI_CACHE_DIR=cache, **env)
    after = os.times()
    if status not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
    cpu = (after.children_user - before.children_user
           + after.children_system - before.children_system)
    return wall, peak, out, cpu


def _summary(runs: list[tuple[float, int, str, float]]) -> dict[str, Any]:
    walls = [r[0] for r in runs]
    return {"wall": statistics.median(walls), "walls": walls, "rss": max(r[1] for r in runs),
            "out": runs[-1][2], "cpu": statistics.median(r[3] for r in runs)}


def _timed(cmd: list[str], repeats: int, **env: str) -> dict[str, Any]:
    """Median cold wall time (a new, empty index cache each run) and peak RSS of `cmd`."""
    return _summary([_once(cmd, **env) for _ in range(repeats)])


def _interleaved(cmd: list[str], repeats: int, envs: dict[str, dict[str, str]]
                 ) -> dict[str, dict[str, Any]]:
    """`cmd` under each of `envs`, one after the other, `repeats` rounds."""
    runs: dict[str, list[tuple[float, int, str, float]]] = {name: [] for name in envs}
    for _ in range(repeats):
        for name, env in envs.items():
            runs[name].append(_once(cmd, **env))
    return {name: _summary(r) for name, r in runs.items()}


def _report(target: str) -> list[str]:
    return [sys.executable, "-m", "tfdbg_tui", "report", "--json", "--limit", "10", target]


def remote(logdir: str, repeats: int) -> dict[str, Any]:
    sys.path.insert(0, str(ROOT / "tests"))
    from support.s3 import start

    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-s3-") as home:
        for server in start(Path(home)):
            url = server.upload(logdir, "s3://bench/run")
            local = _timed(_report(logdir), repeats)
            far = _timed(_report(url), repeats, **server.settings())
            same = json.loads(local["out"])["counts"] == json.loads(far["out"])["counts"]
            return {"local": local, "remote": far, "ratio": far["wall"] / local["wall"],
                    "same_counts": same}
    raise RuntimeError("the S3 server did not start")


def export(logdir: str, repeats: int) -> dict[str, Any]:
    report = _timed(_report(logdir), repeats)
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-export-") as out:
        exp = _timed([sys.executable, "-m", "tfdbg_tui", "export", logdir, out], repeats)
        size = sum(p.stat().st_size for p in Path(out).iterdir())
    return {"report": report, "export": exp, "ratio": exp["wall"] / report["wall"],
            "bytes": size}


def write_hosts(d: Path, hosts: int, traces: int) -> None:
    """`hosts` file sets of one run, `traces` FULL_HEALTH graph traces each (bulk writer)."""
    from dumper.writer import LogdirWriter

    rng = np.random.default_rng(7)
    for k in range(hosts):
        with LogdirWriter(d, run_id="bench-hosts", hostname=f"worker-{k}",
                          file_timestamp=1_700_000_000 + k) as w:
            w.add_graph("g", "train_step")
            for op in range(8):
                w.add_op("g", "MatMul", f"dense_{op}/MatMul", [])
            per_op = traces // 8
            for op in range(8):
                v = np.zeros((per_op, 11))
                v[:, 2], v[:, 3], v[:, 4] = 1, 2, 64
                v[:, 8] = rng.integers(0, 64, per_op)
                v[:, 10] = 64 - v[:, 8]
                times = 1_700_000_000 + np.arange(per_op) * 0.01 + op * 1e-4 + k * 1e-5
                w.add_graph_traces("g", f"dense_{op}/MatMul", 0, "FULL_HEALTH", v,
                                   wall_times=times)


def hosts(traces: int, repeats: int, tmp: Path) -> dict[str, Any]:
    many, one = tmp / "hosts8", tmp / "hosts1"
    write_hosts(many, HOSTS, traces)
    write_hosts(one, 1, traces)
    modes = _interleaved(_report(str(many)), repeats,
                         {"parallel": {"TFDBG_TUI_PARALLEL_MIN_BYTES": "0"},
                          "serial": {"TFDBG_TUI_WORKERS": "1"}})
    parallel, serial = modes["parallel"], modes["serial"]
    single = _timed(_report(str(one)), repeats)
    return {"parallel": parallel, "serial": serial, "single": single,
            "speedup": serial["wall"] / parallel["wall"],
            "speedups": [s / p for s, p in zip(serial["walls"], parallel["walls"], strict=True)],
            "traces_per_host": traces}


def _row(name: str, r: dict[str, Any]) -> str:
    return (f"| {name} | {r['wall']:.2f} s | {r['cpu']:.2f} s | {r['rss'] / 2**20:.0f} MiB |")


def render(res: dict[str, Any], smoke: bool) -> str:
    r, e, h = res.get("remote"), res.get("export"), res.get("hosts")
    lines = ["## Beyond one machine: a bucket, export, many hosts", ""]
    if smoke:
        lines += ["**Smoke run** (small data, one run each): checks the code, measures nothing.",
                  ""]
    lines += ["| what | wall (median, cold) | CPU (with children) | peak RSS |",
              "|---|---:|---:|---:|"]
    if r:
        lines += [_row("`report --json` local disk", r["local"]),
                  _row("`report --json` from the local S3 server", r["remote"])]
    if e:
        lines += [_row("`export` (Parquet)", e["export"])]
    if h:
        lines += [_row(f"{HOSTS} hosts, worker processes", h["parallel"]),
                  _row(f"{HOSTS} hosts, one after another", h["serial"]),
                  _row("1 host of the same size", h["single"])]
    lines.append("")
    if r:
        lines.append(f"- Remote / local: **{r['ratio']:.2f}×** (bar: ≤ 2×); same counts: "
                     f"{'yes' if r['same_counts'] else 'NO'}.")
    if e:
        lines.append(f"- Export / report: **{e['ratio']:.2f}×** (bar: ≤ 1×); "
                     f"{e['bytes'] / 2**20:.1f} MiB of Parquet.")
    if h:
        each = ", ".join(f"{x:.2f}" for x in h["speedups"])
        lines.append(f"- {HOSTS} hosts ({h['traces_per_host']:,} traces each): worker "
                     f"processes **{h['speedup']:.2f}×** faster than one after another "
                     f"(bar: ≥ 1.6× on 2 cores; run by run, interleaved: {each}).")
    return "\n".join(lines) + "\n"


PARTS = ("remote", "export", "hosts")


def main(logdir: str, repeats: int = 3, smoke: bool = False, only: str | None = None
         ) -> tuple[str, dict[str, Any]]:
    if smoke:
        repeats = 1
    tmp = Path(tempfile.mkdtemp(prefix="tfdbg-bench-hosts-"))
    res: dict[str, Any] = {}
    try:
        if only in (None, "remote"):
            res["remote"] = remote(logdir, repeats)
        if only in (None, "export"):
            res["export"] = export(logdir, repeats)
        if only in (None, "hosts"):
            res["hosts"] = hosts(20_000 if smoke else 1_500_000, repeats, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    raw = {k: {kk: ({x: y for x, y in vv.items() if x != "out"} if isinstance(vv, dict) else vv)
               for kk, vv in v.items()} for k, v in res.items()}
    return render(res, smoke), raw


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_scaleout")
    p.add_argument("logdir")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--smoke", action="store_true")
    p.add_argument("--only", choices=PARTS, help="run this part only")
    args = p.parse_args()
    text, raw = main(args.logdir, args.repeats, args.smoke, args.only)
    print(text)
    print(json.dumps(raw, default=str))
