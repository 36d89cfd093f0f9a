"""`make bench`: build the big logdir once, run every benchmark, write BENCHMARKS.md.

Usage: python -m benchmarks.run [--traces N] [--executions N] [--only reader,diff,tui,dumper]
Data lives in ./bench-data (git-ignored) and is reused between runs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bench_reader import machine
from benchmarks.synth import build_big_logdir

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"


def say(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


def _in_fresh_process(module: str, *args: str) -> str:
    """Run one benchmark module in its own interpreter, so its memory figures are its own."""
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, check=True,
                          stdout=subprocess.PIPE, text=True)
    return proc.stdout


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run")
    p.add_argument("--traces", type=int, default=1_000_000)
    p.add_argument("--executions", type=int, default=250_000)
    p.add_argument("--only", default="reader,diff,tui,dumper")
    p.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    args = p.parse_args()
    wanted = set(args.only.split(","))
    say(f"building {args.traces:,} traces + {args.executions:,} executions in {DATA} (once)")
    t0 = time.perf_counter()
    big = build_big_logdir(DATA / "big", args.traces, args.executions, DATA / "work")
    say(f"logdir ready in {time.perf_counter() - t0:.0f} s: {big}")
    sections = []
    if "reader" in wanted:
        say("reader: ours ×3, then TensorFlow's reader once (about a minute)")
        from benchmarks.bench_reader import main as bench_reader

        sections.append(bench_reader(str(big))[0])
    if "diff" in wanted:
        say("diff: two 1M-trace runs against one report, cold and warm cache")
        sections.append(_in_fresh_process("benchmarks.bench_diff", str(big)))
    if "tui" in wanted:
        say("tui: first paint and key-to-repaint on the big logdir")
        sections.append(_in_fresh_process("benchmarks.bench_tui", str(big)))
    if "dumper" in wanted:
        say("dumper: `tfdbg-tui run` overhead and the TF-free writer's throughput")
        sections.append(_in_fresh_process("benchmarks.bench_dumper"))
    text = "\n".join([
        "# Benchmarks",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on: {machine()}.",
        "Reproduce with `make bench` (about 5 minutes; data is cached in `bench-data/`).",
        "Numbers are wall-clock on a shared 2-core VM: expect ±20% between runs.",
        "",
        *sections,
    ])
    Path(args.output).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
