"""Helpers of the scale tests: the whole content of an index, to compare two of them."""

from __future__ import annotations

from typing import Any

import numpy as np

from reader import DebugLogdir

STRING_COLUMNS = ("graph_id", "op_name", "op_type", "device")


def snapshot(logdir: DebugLogdir) -> dict[str, Any]:
    """Everything the index holds, with interned strings resolved."""
    out: dict[str, Any] = {}
    for tname in ("traces", "executions", "outputs"):
        table = getattr(logdir, tname)
        health = (table.health_columns(np.arange(len(table)))  # read back from the records
                  if tname != "executions" else {})
        for col in table.logical_columns:
            values = health[col] if col in health else np.asarray(table.col(col))
            if col in STRING_COLUMNS:
                values = np.array([logdir.strings[int(i)] for i in values], dtype=object)
            out[f"{tname}.{col}"] = values
    alerts = logdir.alerts()
    for field in ("kind", "index", "slot", "wall_time"):
        out[f"alerts.{field}"] = np.asarray(getattr(alerts, field))
    out["warnings"] = logdir.all_warnings()
    out["corrupt_records"] = logdir.corrupt_records
    out["modes"] = sorted(logdir.modes)
    out["structure"] = (len(logdir.graphs.graphs), logdir.num_source_files,
                        logdir.num_stack_frames, logdir.hosts)
    return out


def assert_same(a: dict[str, Any], b: dict[str, Any]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], np.ndarray):
            np.testing.assert_array_equal(a[key], b[key], err_msg=key)
        else:
            assert a[key] == b[key], key
