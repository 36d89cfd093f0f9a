"""`tfdbg-tui report LOGDIR`: the non-interactive summary, for humans (Rich) or machines (JSON).

It leads with what the user came for: how many NaN/∞ events, and for the first ones (earliest
in wall time) which op produced them and the user's own line of code that created it.
Exit status: 0 read and no alerts, 1 alerts found, 2 nothing readable or bad usage.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.frames import Frame

# Extra per-alert sections (e.g. diagnosis, values) register here: name → fn(logdir, alert dict,
# options) that may add keys to the alert dict. Keeps this module free of their details.
AlertEnricher = Callable[[DebugLogdir, dict[str, Any], argparse.Namespace], None]
ENRICHERS: list[AlertEnricher] = []
HUMAN_ENRICHERS: list[Callable[[dict[str, Any]], list[str]]] = []


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="tfdbg-tui report", description="Summarize a tfdbg2 logdir.")
    p.add_argument("logdir")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--run", help="run id (or unique prefix) when the logdir holds several")
    p.add_argument("--limit", type=int, default=10, help="how many first alerts to detail")
    p.add_argument("--values", action="store_true",
                   help="add value statistics for alerts with FULL_TENSOR data")
    return p


def _frame_dict(f: Frame) -> dict[str, Any]:
    return {"file": f.file, "line": f.line, "function": f.function}


def alert_details(logdir: DebugLogdir, limit: int) -> list[dict[str, Any]]:
    """The first `limit` alerts (wall-time order) as plain dicts, stack included."""
    alerts = logdir.alerts()
    out: list[dict[str, Any]] = []
    for k in range(min(limit, len(alerts))):
        kind, index, slot = int(alerts.kind[k]), int(alerts.index[k]), int(alerts.slot[k])
        if kind == GRAPH:
            t = logdir.traces
            op = logdir.op_of_trace(index)
            graph = logdir.graph(logdir.graph_of_trace(index))
            health = {c: int(t.col(c)[index]) for c in ("size", "nan", "neg_inf", "pos_inf")}
            entry: dict[str, Any] = {
                "kind": "graph", "index": index, "wall_time": float(alerts.wall_time[k]),
                "op_type": logdir.op_type_of_trace(index),
                "op_name": logdir.strings[int(t.col("op_name")[index])],
                "output_slot": slot,
                "graph_name": (graph.name or None) if graph else None,
            }
            frames = logdir.op_stack(op) if op else []
        else:
            ex = logdir.executions
            row = int(ex.col("first_output")[index]) + slot
            o = logdir.outputs
            health = {c: int(o.col(c)[row]) for c in ("size", "nan", "neg_inf", "pos_inf")}
            gid = int(ex.col("graph_id")[index])
            graph = logdir.graph(logdir.strings[gid]) if gid >= 0 else None
            entry = {
                "kind": "eager", "index": index, "wall_time": float(alerts.wall_time[k]),
                "op_type": logdir.strings[int(ex.col("op_type")[index])],
                "op_name": None, "output_slot": slot,
                "graph_name": (graph.name or None) if graph else None,
            }
            try:
                frames = logdir.stack(logdir.read_execution(index).stack_frame_ids)
            except ReaderError as exc:
                logdir.warn(str(exc))
                frames = []
        for key, value in health.items():
            entry[key] = value if value >= 0 else None
        entry["stack"] = [_frame_dict(f) for f in frames]
        uf = logdir.user_frame(frames)
        entry["user_frame"] = (
            {**_frame_dict(uf), "code": (logdir.code_line(uf) or "").strip()} if uf else None
        )
        out.append(entry)
    return out


# Modules that extend each alert (diagnosis, value statistics). Each registers itself in
# ENRICHERS / HUMAN_ENRICHERS when imported; a module not written yet is simply absent.
ENRICHER_MODULES = ("tfdbg_tui.report_diagnosis", "tfdbg_tui.report_values")


def _load_enrichers() -> None:
    for name in ENRICHER_MODULES:
        if name not in sys.modules and importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def build_report(logdir: DebugLogdir, limit: int = 10,
                 options: argparse.Namespace | None = None) -> dict[str, Any]:
    """The report as one JSON-able dict (the `--json` output)."""
    options = options or argparse.Namespace(values=False)
    _load_enrichers()
    first = alert_details(logdir, max(0, limit))
    for entry in first:
        for enrich in ENRICHERS:
            enrich(logdir, entry, options)
    return {
        "logdir": logdir.path,
        "run": {"id": logdir.run_id, "hosts": logdir.hosts,
                "tensorflow_version": logdir.tensorflow_version},
        "runs": [r.run_id for r in logdir.runs],
        "tensor_debug_modes": logdir.tensor_debug_modes,
        "counts": {
            "executions": len(logdir.executions),
            "graph_traces": len(logdir.traces),
            "graphs": len(logdir.graphs.graphs),
            "ops": logdir.graphs.num_ops,
            "source_files": logdir.num_source_files,
            "stack_frames": logdir.num_stack_frames,
        },
        "alerts": {"total": logdir.num_alerts, "by_type": {"inf_nan": logdir.num_alerts}},
        "first_alerts": first,
        "warnings": logdir.all_warnings(),
    }


def _nothing_readable(logdir: DebugLogdir) -> bool:
    c = (len(logdir.executions), len(logdir.traces), len(logdir.graphs.graphs),
         logdir.num_source_files, logdir.num_stack_frames)
    return not any(c) and bool(logdir.warnings)


def _load(path: str, run: str | None, show_progress: bool) -> DebugLogdir:
    logdir = DebugLogdir(path, run)
    if not show_progress:
        logdir.update()
        return logdir
    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    with Progress("reading", BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                  transient=True, console=_stderr_console()) as bar:
        task = bar.add_task("read", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        logdir.update(progress)
    return logdir


def _stderr_console() -> Any:
    from rich.console import Console

    return Console(stderr=True)


def main(argv: Sequence[str]) -> int:
    """Run the report command; returns the exit status (0 clean, 1 alerts, 2 error)."""
    try:
        opts = build_parser().parse_args(list(argv))
    except _UsageError as exc:
        print(f"tfdbg-tui report: error: {exc}", file=sys.stderr)
        return 2
    try:
        logdir = _load(opts.logdir, opts.run, sys.stderr.isatty() and not opts.json)
    except ReaderError as exc:
        print(f"tfdbg-tui report: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tfdbg-tui report: error: {opts.logdir}: {exc.strerror}", file=sys.stderr)
        return 2
    if _nothing_readable(logdir):
        print(f"tfdbg-tui report: error: nothing readable in {opts.logdir}: "
              f"{logdir.warnings[0]}", file=sys.stderr)
        return 2
    report = build_report(logdir, opts.limit, opts)
    if opts.json:
        json.dump(report, sys.stdout, indent=1, allow_nan=False, default=str)
        sys.stdout.write("\n")
    else:
        from tfdbg_tui.report_text import print_report

        print_report(report)
    return 1 if report["alerts"]["total"] else 0


__all__ = ["EAGER", "GRAPH", "build_report", "main"]
