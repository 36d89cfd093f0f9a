"""`report` extension: each detailed alert gets a `"diagnosis"` (origin op, why, inputs, path).

Listed in `sections.SECTIONS`, so the report builder stays free of diagnosis details. A
diagnosis that cannot be made (a damaged record, say) never breaks the report: the alert gets
`"diagnosis": null` and a warning. One that fails on data it did not expect (DiagnosisFailed)
gets `"diagnosis": null` and `"diagnosis_error": "diagnosis failed: <one line>"`, printed
under that alert; the other alerts are diagnosed as usual.
"""

from __future__ import annotations

import argparse
from typing import Any

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.diagnosis import DiagnosisFailed, diagnose
from reader.diagnosis.functions import function_label
from tfdbg_tui.commands.report.journey import KNOWN


def enrich(logdir: DebugLogdir, entry: dict[str, Any], options: argparse.Namespace) -> None:
    """Set `entry["diagnosis"]` for one alert entry of the report (kind, index, output_slot)."""
    kind = GRAPH if entry.get("kind") == "graph" else EAGER
    if KNOWN in entry:  # diagnosed already, while the alerts were grouped into incidents
        known = entry.pop(KNOWN)
        if known is not None:
            entry["diagnosis"] = known.to_json()
            return
    try:
        entry["diagnosis"] = diagnose(logdir, kind, int(entry["index"]),
                                      int(entry.get("output_slot") or 0)).to_json()
    except DiagnosisFailed as exc:
        entry["diagnosis"] = None
        entry["diagnosis_error"] = f"diagnosis failed: {exc}"
    except ReaderError as exc:
        entry["diagnosis"] = None
        logdir.warn(f"no diagnosis for {entry.get('kind')} #{entry.get('index')}: {exc}")


def human_lines(entry: dict[str, Any]) -> list[str]:
    """Lines for the human report: why, where it was born, and the line to change."""
    diag = entry.get("diagnosis")
    if not diag:
        error = entry.get("diagnosis_error")
        return [error] if error else []
    lines = [f"why: {diag['explanation']}"]
    origin = diag["origin"]
    if (origin["kind"], origin["index"]) != (entry.get("kind"), entry.get("index")):
        where = origin["op_name"] or origin["op_type"]
        label = function_label(where)  # a call by its user's name, the full one after its #
        full = f": {where}" if label != where else ""
        graph = f" in {origin['graph_name']}" if origin.get("graph_name") else ""
        device = f" on {origin['device']}" if origin.get("device") else ""
        lines.append(f"born at: {label} ({origin['kind']} #{origin['index']}{full}){graph}"
                     f"{device}")
        uf = origin.get("user_frame")
        if uf:
            lines.append(f"origin at {uf['file']}:{uf['line']} in {uf['function']}")
            if uf.get("code"):
                lines.append(f"   {uf['code']}")
        lines.extend(f"then: {s}" for s in diag.get("steps", [])[:2])
    for key, label in (("forward", "forward op"), ("write", "written by"),
                       ("source", "comes from")):
        place = origin.get(key)
        if place:
            lines.append(f"{label}: {_place(place)}")
    fix = origin.get("fix_frame")
    if fix and fix != origin.get("user_frame"):
        lines.append(f"fix: {fix['file']}:{fix['line']} in {fix['function']}")
        if fix.get("code"):
            lines.append(f"   {fix['code']}")
    elif not fix and origin.get("cause") not in (None, "none"):
        lines.append("fix: the line to change is not known from this logdir")
    return lines


def _place(place: dict[str, Any]) -> str:
    name = place.get("op_name") or place.get("op_type")
    graph = f" in {place['graph']}" if place.get("graph") else ""
    uf = place.get("user_frame")
    at = f" at {uf['file']}:{uf['line']}" if uf else ""
    return f"{place.get('op_type')} {name if name != place.get('op_type') else ''}".strip() \
        + graph + at
