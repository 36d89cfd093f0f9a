"""Reopening from the persistent index cache, and what the index costs per record.

`python -m benchmarks.bench_cache LOGDIR` (with `TFDBG_TUI_CACHE_DIR` naming a cache the
caller filled) runs in a fresh process and prints one JSON line:
- `import_s`: importing the reader (paid by every command);
- `reopen_s`: `DebugLogdir(LOGDIR, cache=True).update()` — from nothing to a complete index
  (the cache is checked against the files, its columns memory-mapped, nothing re-read);
- `columns`: bytes per row of every column the index keeps, by table, and the totals per
  indexed record (a graph trace or an execution), from the index itself.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def column_bytes(logdir: Any) -> dict[str, Any]:
    """Per table: rows, and bytes per row of each stored column; plus the small side tables
    (kinds, kept health details, alerts, strings) as totals."""
    from reader.index.schema import tensor_parts

    tables: dict[str, Any] = {}
    side = 0
    for name, table in tensor_parts(logdir).items():
        n = len(table)
        cols = {c: int(table.column_dtype(c).itemsize) for c in table.columns}
        if "." in name:  # kinds / details: a few thousand rows, counted as a total
            side += n * sum(cols.values())
        else:
            tables[name] = {"rows": n, "bytes_per_row": cols}
    alerts = logdir.alerts()
    n_alerts = len(alerts)
    alert_cols = {c: int(dt.itemsize) for c, dt in logdir._alerts.spec().items()}
    alert_row = sum(alert_cols.values())
    strings = sum(len(s.encode("utf-8", "surrogateescape")) for s in logdir.strings.all())
    main = sum(t["rows"] * sum(t["bytes_per_row"].values()) for t in tables.values())
    records = tables["traces"]["rows"] + tables["executions"]["rows"]
    return {"tables": tables, "side_bytes": side, "alerts": n_alerts,
            "alert_bytes_per_alert": alert_row, "alert_columns": alert_cols,
            "strings_bytes": strings,
            "main_bytes": main, "records": records,
            "total_bytes": main + side + n_alerts * alert_row + strings}


def main(path: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    from reader import DebugLogdir

    t1 = time.perf_counter()
    logdir = DebugLogdir(path, cache=True)
    logdir.update()
    t2 = time.perf_counter()
    stats = logdir.update()  # nothing new: what a follower pays per check
    t3 = time.perf_counter()
    return {"import_s": t1 - t0, "reopen_s": t2 - t1, "idle_update_s": t3 - t2,
            "idle_changed": stats.changed, "traces": len(logdir.traces),
            "columns": column_bytes(logdir)}


if __name__ == "__main__":
    if not os.environ.get("TFDBG_TUI_CACHE_DIR"):
        raise SystemExit("set TFDBG_TUI_CACHE_DIR to the cache to reopen from")
    print(json.dumps(main(sys.argv[1])))
