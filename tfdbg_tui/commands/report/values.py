"""`report --values`: value statistics for alerts whose tensor was dumped in FULL_TENSOR.

A section of `sections.SECTIONS`: it adds `entry["values"]` (see
`reader.values.ValueStats.to_json`: JSON types only, null where a statistic does not exist) and
a one-line human summary. Alerts recorded in other modes are left alone: their health counts are
already in the entry.
"""

from __future__ import annotations

import argparse
from typing import Any

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.modes import FULL_TENSOR
from tfdbg_tui.core.values import InspectError, load


def add_values(logdir: DebugLogdir, entry: dict[str, Any], options: argparse.Namespace) -> None:
    """Set entry["values"] when --values was given and the alert's tensor has FULL_TENSOR data."""
    if not getattr(options, "values", False):
        return
    kind = GRAPH if entry.get("kind") == "graph" else EAGER
    index, slot = int(entry["index"]), int(entry.get("output_slot") or 0)
    if logdir.tensor_mode(kind, index) != FULL_TENSOR:
        return
    try:
        loaded = load(logdir, kind, index, slot)
    except (ReaderError, InspectError) as exc:
        logdir.warn(f"values of alert {entry['kind']} #{index}: {exc}")
        entry["values"] = None
        return
    entry["values"] = loaded.stats.to_json() if loaded.stats is not None else None


def values_lines(entry: dict[str, Any]) -> list[str]:
    """The human report's line for `entry["values"]`, if any."""
    v = entry.get("values")
    if not v:
        return []

    def num(x: float | None) -> str:
        return "—" if x is None else format(x, ".6g")

    parts = [f"values: {v['dtype']}{v['shape']}"]
    if v.get("min") is not None:
        parts.append(f"min {num(v['min'])} max {num(v['max'])} mean {num(v['mean'])} "
                     f"std {num(v['std'])} (finite)")
    if v.get("first_nonfinite") is not None:
        parts.append(f"first NaN/∞ at {v['first_nonfinite']}")
    return ["; ".join(parts)]
