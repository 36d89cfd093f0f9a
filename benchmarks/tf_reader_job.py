"""Child process for the benchmark: TensorFlow's reader + InfNanMonitor on one logdir.

Prints one JSON line: seconds spent reading (TensorFlow's import excluded), RSS after the
import, counts and the alert total (to check both readers saw the same data).

With `--limit SECONDS` the run is bounded (TensorFlow's reader needs many minutes and GBs on
the 12.5M-record logdir): a sampler thread notes every half second how many records the
reader has taken in and the process's RSS; at the limit it prints what it saw and ends the
process. `DebugDataReader.update()` reads the graph traces first, then the executions.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import threading
import time
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from tensorflow.python.debug.lib import debug_events_monitors as monitors
from tensorflow.python.debug.lib import debug_events_reader as tf_reader


def _rss() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _bounded(reader: Any, t0: float, limit: float, rss_import: int) -> None:
    """Sample the reader's progress until `limit` seconds, then report and end the process."""
    samples = []
    while True:
        time.sleep(0.5)
        now = time.perf_counter() - t0
        traces = len(reader._graph_execution_trace_digests)
        execs = len(reader._execution_digests)
        samples.append({"t": round(now, 2), "traces": traces, "executions": execs,
                        "rss": _rss()})
        if now >= limit:
            break
    print(json.dumps({"finished": False, "seconds": now, "rss_after_import": rss_import,
                      "graph_traces": traces, "executions": execs, "rss": samples[-1]["rss"],
                      "peak_rss": _peak(), "samples": samples[::4]}), flush=True)
    os._exit(0)


def main(logdir: str, limit: float | None) -> None:
    rss_import = _peak()
    t0 = time.perf_counter()
    with tf_reader.DebugDataReader(logdir) as reader:
        monitor = monitors.InfNanMonitor(reader)
        if limit is not None:
            threading.Thread(target=_bounded, args=(reader, t0, limit, rss_import),
                             daemon=True).start()
        reader.update()
        alerts = sorted(monitor.alerts(), key=lambda a: a.wall_time)
        first = alerts[0].op_type if alerts else None
        seconds = time.perf_counter() - t0
        print(json.dumps({
            "finished": True, "seconds": seconds, "rss_after_import": rss_import,
            "executions": reader.num_executions(),
            "graph_traces": reader.num_graph_execution_traces(),
            "alerts": len(alerts), "first_op_type": first, "peak_rss": _peak(),
        }), flush=True)
        os._exit(0)  # skip TensorFlow's slow teardown of millions of objects


if __name__ == "__main__":
    args = sys.argv[1:]
    bound = None
    if args[:1] == ["--limit"]:
        bound, args = float(args[1]), args[2:]
    main(args[0], bound)
