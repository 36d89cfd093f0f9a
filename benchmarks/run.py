"""`make bench`: build the benchmark logdirs once, run every benchmark, write BENCHMARKS.md.

Usage: python -m benchmarks.run [--only reader,scale,tui,tui-compare,cache,live,diff,dumper,
       scaleout,shards]
       [--output F]
Data lives in ./bench-data (git-ignored) and is reused between runs: the 1.25M-record logdir
(`big`, ~380 MB) and its ×10 (`big10`, ~3.7 GB), both real records of a real TensorFlow run
replicated by `benchmarks/synth.py`. Every measured child runs with PYTHONDONTWRITEBYTECODE=1; our
packages' bytecode is brought up to date, untimed, before each section.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import bench_reader as br
from benchmarks.bench_tui import FROZE_STATUS, FROZEN_AFTER
from benchmarks.report import render
from benchmarks.synth import build_big_logdir

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench-data"
TUI_TIMEOUT = 480.0  # a TUI run that takes longer is stuck (bench_tui's watchdog says why)
SECTIONS = ("reader", "scale", "tui", "tui-compare", "cache", "live", "diff", "dumper",
            "scaleout", "shards")


def say(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}, load {br.load():.1f}] {msg}", file=sys.stderr,
          flush=True)


def _child(module: str, *args: str, timeout: float | None = None, **env: str) -> str:
    """Run one benchmark module in its own interpreter, so its memory figures are its own."""
    proc = subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, check=True,
                          stdout=subprocess.PIPE, text=True, env=br.child_env(**env),
                          timeout=timeout)
    return proc.stdout


def _last_json(text: str) -> Any:
    return json.loads(text.strip().splitlines()[-1])


def _section_and_numbers(text: str) -> tuple[str, Any]:
    """A child's Markdown section, and the numbers it printed as its last line (JSON)."""
    *section, last = text.strip().splitlines()
    return "\n".join(section) + "\n", json.loads(last)


def _reopen(logdir: str) -> dict[str, Any]:
    """Fill a new cache with one `report`, then reopen from it in a fresh process."""
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        br.ours(logdir, 1, cache)
        out: dict[str, Any] = _last_json(_child("benchmarks.bench_cache", logdir,
                                                TFDBG_TUI_CACHE_DIR=cache))
        return out


def _tui(logdir: str) -> tuple[str, dict[str, Any]]:
    """The TUI's first open, in a fresh process with an empty cache: (section, numbers)."""
    try:
        with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
            text = _child("benchmarks.bench_tui", logdir, TFDBG_TUI_CACHE_DIR=cache,
                          timeout=TUI_TIMEOUT)
    except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as exc:
        if isinstance(exc, subprocess.CalledProcessError) and exc.returncode != FROZE_STATUS:
            raise
        why = ("the app froze (a key sent while indexing was not handled within "
               f"{FROZEN_AFTER:.0f} s; threads' stacks on stderr); measured again without them")
        say(f"tui: {why}")
        try:
            with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
                text = _child("benchmarks.bench_tui", logdir, "--no-keys-while-indexing", why,
                              TFDBG_TUI_CACHE_DIR=cache, timeout=TUI_TIMEOUT)
        except subprocess.TimeoutExpired as stopped:
            return _tui_stopped(why, stopped)
    lines = [ln for ln in text.strip().splitlines() if not ln.startswith("PARTIAL ")]
    return "\n".join(lines[:-1]) + "\n", json.loads(lines[-1])


def _tui_compare(logdir: str) -> str:
    """Compare mode on `logdir` and its copy (bench_diff's run B): the section. Its children
    (one per measured open) have their own time limit and frozen-app exit status."""
    from benchmarks.bench_diff import _copy_of

    copy = str(_copy_of(Path(logdir)))
    lines = _child("benchmarks.bench_tui_compare", logdir, copy).strip().splitlines()
    return "\n".join(lines[:-1]).rstrip() + "\n"


def _tui_stopped(why: str, exc: subprocess.TimeoutExpired) -> tuple[str, dict[str, Any]]:
    """The section for a TUI run stopped at the time limit: what it measured before."""
    out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
    partial = [json.loads(ln[8:]) for ln in out.splitlines() if ln.startswith("PARTIAL ")]
    got = partial[-1] if partial else {}
    lines = ["## TUI (`tfdbg-tui LOGDIR`, first open)", "",
             f"1. With keys sent while indexing: {why}.",
             f"2. Without them: the run did not end within {TUI_TIMEOUT:.0f} s (stopped); "
             "before that:"]
    if got:
        lines.append(f"first paint {got['first_paint'] * 1000:.0f} ms, first alert selected "
                     f"{got['first_alert']:.2f} s.")
    say("tui: stopped at the time limit")
    return "\n".join(lines) + "\n", {"stopped": True, **got}


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.run")
    p.add_argument("--only", default=",".join(SECTIONS))
    p.add_argument("--output", default=str(ROOT / "BENCHMARKS.md"))
    p.add_argument("--tf-limit", type=float, default=br.TF_LIMIT)
    args = p.parse_args()
    wanted = [s for s in args.only.split(",") if s]
    unknown = set(wanted) - set(SECTIONS)
    if unknown:
        p.error(f"unknown sections {sorted(unknown)}; choose from {','.join(SECTIONS)}")
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    t_start = time.perf_counter()
    say(f"logdirs in {DATA} (built once, then reused)")
    big = str(build_big_logdir(DATA / "big", 1_000_000, 250_000, DATA / "work"))
    big10 = str(build_big_logdir(DATA / "big10", 10_000_000, 2_500_000, DATA / "work"))
    res: dict[str, Any] = {"machine": br.machine(), "date": time.strftime("%Y-%m-%d %H:%M %Z"),
                           "load_start": os.getloadavg(), "loads": {}}

    def section(name: str, what: str, fn: Any) -> None:
        if name not in wanted:
            return
        say(what)
        os.sync()  # the previous section's writes (caches, logdirs) flushed before this one
        br.warm_bytecode()
        t0 = time.perf_counter()
        before = br.load()
        res[name] = fn()
        res["loads"][name] = (before, br.load(), time.perf_counter() - t0)

    section("reader", "1.25M: report --json ×3 (cold) and TensorFlow's reader once (~1 min)",
            lambda: br.compare(big))
    section("scale", f"12.5M: report --json cold ×2, warm ×2, TensorFlow's reader for "
            f"{args.tf_limit:.0f} s", lambda: br.scale(big10, tf_limit=args.tf_limit))
    section("tui", "12.5M: the TUI's first open (first alert, keys while indexing)",
            lambda: _tui(big10))
    section("tui-compare", "1.25M pair: the TUI in compare mode (A --compare B) vs one run",
            lambda: _tui_compare(big))
    section("cache", "reopen from the cache (1.25M and 12.5M) and bytes per record",
            lambda: {"big": _reopen(big), "big10": _reopen(big10)})
    section("live", "live follow through ChangeWatcher (notifications, polling)",
            lambda: _last_json(_child("benchmarks.bench_live", big)))
    section("diff", "diff of two 1.25M-record runs vs one report (cold and warm)",
            lambda: _section_and_numbers(_child("benchmarks.bench_diff", big)))
    section("dumper", "dumper: `tfdbg-tui run` overhead and the TF-free writer",
            lambda: _child("benchmarks.bench_dumper"))
    section("scaleout", "1.25M from a local S3 server vs disk, export vs report, 8 hosts "
            "in worker processes vs one after another",
            lambda: _section_and_numbers(_child("benchmarks.bench_scaleout", big)))
    section("shards", "12.5M records as 10 hosts: index (local, Dask), report and the TUI "
            "opened from the shards vs a direct read",
            lambda: _section_and_numbers(_child("benchmarks.bench_shards", big)))
    res["load_end"] = os.getloadavg()
    res["total_s"] = time.perf_counter() - t_start
    (DATA / "last-run.json").write_text(json.dumps(res, default=str, indent=1))
    text = render(res, big, big10)
    Path(args.output).write_text(text)
    print(text)
    say(f"done in {res['total_s'] / 60:.1f} min; wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
