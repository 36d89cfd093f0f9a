"""Diff benchmark: `tfdbg-tui diff` of two 1M-trace FULL_HEALTH logdirs vs one `report`.

The bar (the migration issue) is diff ≤ 1.5× report on a first read (it was ≤ 2×). Run B
is a copy of run A, so every one of the 1.25M tensor rows aligns by name and is compared —
the most work a diff of two such runs can do. Both commands run as fresh processes, each
timed cold (a new, empty index cache) and warm (its cache filled by the cold run), median of
`repeats`, the two commands interleaved after a round not counted.

Usage: python -m benchmarks.bench_diff LOGDIR [--repeats N]
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

from benchmarks.bench_reader import run_measured


def _copy_of(logdir: Path) -> Path:
    """Run B: a copy of the logdir next to it (made once, kept with the benchmark data)."""
    copy = logdir.parent / (logdir.name + "-copy")
    marker = copy / ".complete-copy"
    if not marker.exists():
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(logdir, copy, ignore=shutil.ignore_patterns(".complete*"))
        marker.write_text("copy\n")
    return copy


def _timed(cmds: dict[str, list[str]], repeats: int) -> dict[str, dict[str, Any]]:
    """Cold and warm wall times (medians) and the peak RSS of each command, the commands
    interleaved (report, diff, report, …: a load that comes and goes weighs on both alike),
    after one round not counted (both runs' files in the page cache, as in every later
    round) and with the machine's pending writes flushed first."""
    os.sync()
    runs: dict[str, dict[str, Any]] = {
        name: {"cold": [], "warm": [], "rss": 0, "out": ""} for name in cmds}
    for round_ in range(repeats + 1):
        for name, cmd in cmds.items():
            r = runs[name]
            with tempfile.TemporaryDirectory() as cache:
                os.environ["TFDBG_TUI_CACHE_DIR"] = cache
                try:
                    for bucket in ("cold", "warm"):
                        wall, peak, r["out"], status = run_measured(cmd)
                        if status not in (0, 1):
                            raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
                        if round_:
                            r[bucket].append(wall)
                            r["rss"] = max(r["rss"], peak)
                finally:
                    del os.environ["TFDBG_TUI_CACHE_DIR"]
    return {name: {"cold": statistics.median(r["cold"]), "warm": statistics.median(r["warm"]),
                   "rss": r["rss"], "cold_runs": r["cold"], "out": r["out"]}
            for name, r in runs.items()}


def main(logdir: str, repeats: int = 5) -> tuple[str, dict[str, Any]]:
    """Run the benchmark; returns (Markdown section, raw numbers)."""
    a = Path(logdir)
    b = _copy_of(a)
    timed = _timed({"report": [sys.executable, "-m", "tfdbg_tui", "report", "--json", str(a)],
                    "diff": [sys.executable, "-m", "tfdbg_tui", "diff", "--json", str(a),
                             str(b)]}, repeats)
    report, diff = timed["report"], timed["diff"]
    result = json.loads(diff["out"])
    rows = [
        ("`tfdbg-tui report --json A`", report),
        ("`tfdbg-tui diff --json A B`", diff),
    ]
    ratio_cold, ratio_warm = diff["cold"] / report["cold"], diff["warm"] / report["warm"]
    lines = [
        "## Diff: two runs vs one report",
        "",
        f"Run A: {result['a']['graph_traces']:,} graph traces + {result['a']['eager_outputs']:,}"
        f" eager outputs (FULL_HEALTH, the reader benchmark's logdir); run B: a copy. "
        f"{result['compared']:,} tensor pairs compared, {result['different']:,} different, "
        f"{result['unmatched_a']:,} / {result['unmatched_b']:,} unmatched "
        f"(equivalent: {'yes' if result['equivalent'] else 'NO'}).",
        "",
        "| what | cold (empty index cache) | warm (cache filled) | peak RSS |",
        "|---|---:|---:|---:|",
        *[f"| {name} | {r['cold']:.2f} s | {r['warm']:.2f} s | {r['rss'] / 2**20:.0f} MiB |"
          for name, r in rows],
        "",
        f"- diff / report: **{ratio_cold:.2f}×** cold, **{ratio_warm:.2f}×** warm "
        "(bar: ≤ 1.5× cold).",
        f"- Cold runs: report {', '.join(f'{w:.2f}' for w in report['cold_runs'])} s; diff "
        f"{', '.join(f'{w:.2f}' for w in diff['cold_runs'])} s (medians shown).",
    ]
    raw = {"report": {k: v for k, v in report.items() if k != "out"},
           "diff": {k: v for k, v in diff.items() if k != "out"},
           "ratio_cold": ratio_cold, "ratio_warm": ratio_warm}
    return "\n".join(lines) + "\n", raw


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_diff")
    p.add_argument("logdir")
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args()
    text, raw = main(args.logdir, args.repeats)
    print(text)
    print(json.dumps(raw))  # the last line: the numbers, for make bench's goals
