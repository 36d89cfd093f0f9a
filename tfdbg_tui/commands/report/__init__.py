"""`tfdbg-tui report LOGDIR`: the non-interactive summary, for humans (Rich) or machines (JSON).

This module is the command (arguments, loading, exit status); `build` makes the report dict,
`text` renders it for humans, `sections` lists the extra per-alert sections.
Exit status: 0 read and no alerts, 1 alerts found, 2 nothing readable, nothing recorded (the
program ran no TensorFlow op while dumping) or bad usage.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from typing import Any

from reader import DebugLogdir, ReaderError
from reader.cache.location import cache_dir_problem
from tfdbg_tui.commands.args import (
    Parser,
    UsageError,
    add_remote_timeout,
    apply_remote_timeout,
    count,
)
from tfdbg_tui.commands.output import planned
from tfdbg_tui.commands.report.build import build_report
from tfdbg_tui.core.recorded import nothing_recorded
from tfdbg_tui.core.sanitize import error_line


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="tfdbg-tui report", description="Summarize a tfdbg2 logdir.",
               epilog="exit status: 0 no NaN/∞ in what was recorded, 1 NaN/∞ found, 2 an "
                      "error or nothing recorded to judge (no verdict)")
    p.add_argument("logdir")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--run", help="run id (or unique prefix) when the logdir holds several")
    p.add_argument("--limit", type=count, default=10,
                   help="how many first alerts to detail (0 or more)")
    p.add_argument("--values", action="store_true",
                   help="add value statistics for alerts with FULL_TENSOR data")
    add_remote_timeout(p)
    return p



def _nothing_readable(logdir: DebugLogdir) -> bool:
    c = (len(logdir.executions), len(logdir.traces), len(logdir.graphs.graphs),
         logdir.num_source_files, logdir.num_stack_frames)
    return not any(c) and bool(logdir.warnings)


def _load(path: str, run: str | None, show_progress: bool,
          watch: Callable[[DebugLogdir], Callable[[int, int], None] | None] | None = None,
          save: bool = True) -> DebugLogdir:
    """Read a logdir (with a progress bar on a terminal). `watch(logdir)`, if given, is
    called before the load (the export sets the index's `health_sink` there) and may return
    a callback also called after each chunk read; `save=False`: the caller saves the index
    cache (`DebugLogdir.save_cache`)."""
    logdir = DebugLogdir(path, run, cache=True)
    also = watch(logdir) if watch is not None else None
    if not show_progress:
        logdir.update(also, save)
        return logdir
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    with Progress("reading", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                  transient=True, console=_stderr_console()) as bar:
        task = bar.add_task("read", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)
            if also is not None:
                also(done, total)

        logdir.update(progress, save)
    return logdir


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


PROG = "tfdbg-tui report: error"


def _finite(obj: Any) -> Any:
    """`obj` with every non-finite float replaced by None (JSON has no NaN or Infinity)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite(v) for v in obj]
    return obj


def main(argv: Sequence[str]) -> int:
    """Run the report command; returns the exit status (0 clean, 1 alerts, 2 error)."""
    try:
        opts = build_parser().parse_args(list(argv))
    except UsageError as exc:
        print(error_line(PROG, exc), file=sys.stderr)
        return 2
    apply_remote_timeout(opts.remote_timeout)
    from tfdbg_tui.commands.report.stored import read as read_stored

    stored = read_stored(opts.logdir, opts.run, opts.limit, opts.values)
    # the JSON form too prints only what the human form can be made of: a stored report
    # is read from a file, and a forged one with a report's top level might hold anything
    if stored is not None and _renders(stored):
        return _print(stored, opts.json)
    try:
        logdir = _load(opts.logdir, opts.run, sys.stderr.isatty() and not opts.json)
    except ReaderError as exc:
        print(error_line(PROG, exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(error_line(PROG, f"{opts.logdir}: {exc.strerror}"), file=sys.stderr)
        return 2
    problem = cache_dir_problem()  # also among the report's warnings; here as one line too
    if problem is not None:
        print(error_line("tfdbg-tui report: warning", problem), file=sys.stderr)
    if _nothing_readable(logdir):
        print(error_line(PROG, f"nothing readable in {opts.logdir}: {logdir.warnings[0]}"),
              file=sys.stderr)
        return 2
    empty = nothing_recorded(logdir)
    if empty is not None:  # a valid logdir with no tensor: no verdict on NaN/∞ (exit 2)
        print(error_line(PROG, f"{opts.logdir}: {empty}"), file=sys.stderr)
        return 2
    return _print(build_report(logdir, opts.limit, opts), opts.json)


def _renders(report: dict[str, Any]) -> bool:
    """Can the human form be made of this stored report (read from a file: a forged one
    might hold anything)? Made before anything is printed, so a failure prints nothing."""
    from tfdbg_tui.commands.report.stored import damaged
    from tfdbg_tui.commands.report.text import render_report

    try:
        list(render_report(report))
    except Exception as exc:
        damaged(exc)
        return False
    return True


def _print(report: dict[str, Any], as_json: bool) -> int:
    """Print the report (JSON or text); its exit status."""
    status = planned(1 if report["alerts"]["total"] else 0)  # (also if the output is cut)
    if as_json:
        # strict JSON: a NaN or ±∞ read from a file (a wall time, say) becomes null
        json.dump(_finite(report), sys.stdout, indent=1, allow_nan=False, default=str)
        sys.stdout.write("\n")
    else:
        # imported here: rich costs ~3 MB resident that `--json` has no use for
        from tfdbg_tui.commands.report.text import print_report

        print_report(report)
    return status


__all__ = ["build_report", "main"]
