"""The report as one JSON-able dict: run facts, counts, and the first alerts in detail.

It leads with what the user came for: how many NaN/∞ events, and for the first ones (earliest
in wall time) which op produced them and the user's own line of code that created it. Extra
per-alert sections (diagnosis, values) come from `sections.SECTIONS`.
"""

from __future__ import annotations

import argparse
from typing import Any

from reader import GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame, program_frames
from tfdbg_tui.commands.report.journey import add_journey
from tfdbg_tui.commands.report.sections import SECTIONS
from tfdbg_tui.core.liveness import incomplete_tails


def _frame_dict(f: Frame) -> dict[str, Any]:
    return {"file": f.file, "line": f.line, "function": f.function}


def tensor_entry(logdir: DebugLogdir, kind: int, index: int, slot: int,
                 wall_time: float | None = None) -> dict[str, Any]:
    """One tensor (a graph trace, or output `slot` of an eager execution) as a plain dict:
    kind, index, op, graph, device, health counts, stack and the user's own frame with its
    code line.
    The report's alerts and `diff`'s divergences both describe tensors this way."""
    h = logdir.tensor_health(kind, index, slot)
    health = h.counts("size", "nan", "neg_inf", "pos_inf") if h is not None else {}
    if wall_time is None:
        table = logdir.traces if kind == GRAPH else logdir.executions
        wall_time = float(table.wall_time[index])
    if kind == GRAPH:
        op = logdir.op_of_trace(index)
        graph = logdir.graph(logdir.graph_of_trace(index))
        entry: dict[str, Any] = {
            "kind": "graph", "index": index, "wall_time": wall_time,
            "op_type": logdir.op_type_of_trace(index),
            "op_name": logdir.op_name_of_trace(index),
            "output_slot": slot,
            "graph_name": (graph.name or None) if graph else None,
            "device": logdir.strings[int(logdir.traces.device[index])] or None,
        }
        frames = logdir.op_stack(op) if op else []
    else:
        ex = logdir.execution(index)
        graph = logdir.graph(ex.graph_id) if ex.graph_id is not None else None
        entry = {
            "kind": "eager", "index": index, "wall_time": wall_time,
            "op_type": ex.op_type,
            "op_name": None, "output_slot": slot,
            "graph_name": (graph.name or None) if graph else None,
        }
        entry["device"] = None
        try:
            rec = logdir.read_execution(index)
            frames = logdir.stack(rec.stack_frame_ids)
            if 0 <= slot < len(rec.output_device_ids):  # devices are numbered per run
                entry["device"] = logdir.graphs.devices.get(int(rec.output_device_ids[slot]))
        except ReaderError as exc:
            logdir.warn(str(exc))
            frames = []
    for key, value in health.items():
        entry[key] = value if value >= 0 else None
    frames, _ = program_frames(frames)  # `tfdbg-tui run`'s own frames are not the user's
    entry["stack"] = [_frame_dict(f) for f in frames]
    uf = logdir.user_frame(frames)
    entry["user_frame"] = (
        {**_frame_dict(uf), "code": (logdir.code_line(uf) or "").strip()} if uf else None
    )
    return entry


def alert_details(logdir: DebugLogdir, limit: int) -> list[dict[str, Any]]:
    """The first `limit` alerts (wall-time order) as plain dicts, stack included."""
    alerts = logdir.alerts()
    return [tensor_entry(logdir, int(alerts.kind[k]), int(alerts.index[k]), int(alerts.slot[k]),
                         float(alerts.wall_time[k]))
            for k in range(min(limit, len(alerts)))]


def build_report(logdir: DebugLogdir, limit: int = 10,
                 options: argparse.Namespace | None = None) -> dict[str, Any]:
    """The report as one JSON-able dict (the `--json` output)."""
    options = options or argparse.Namespace(values=False)
    first = alert_details(logdir, max(0, limit))
    journey: dict[str, Any] = {}
    add_journey(logdir, journey, first)
    for entry in first:
        for section in SECTIONS:
            section.enrich(logdir, entry, options)
    notes = []
    if getattr(options, "values", False) and first and not any("values" in e for e in first):
        modes = ", ".join(logdir.tensor_debug_modes) or "no mode"
        notes.append(f"--values: no values to show: the alerts were recorded in {modes}, "
                     "which keeps health counts, not values (record with "
                     "tensor_debug_mode=\"FULL_TENSOR\" to see them)")
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
        "steps": journey["steps"],
        "incidents": journey["incidents"],
        "first_alerts": first,
        "notes": notes,
        "warnings": logdir.all_warnings() + incomplete_tails(logdir),
    }
