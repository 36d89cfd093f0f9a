"""Child process for the benchmark: TensorFlow's reader + InfNanMonitor on one logdir.

Prints one JSON line: seconds spent reading (TensorFlow's import excluded), RSS after the
import, counts and the alert total (to check both readers saw the same data).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
from tensorflow.python.debug.lib import debug_events_monitors as monitors
from tensorflow.python.debug.lib import debug_events_reader as tf_reader


def main(logdir: str) -> None:
    rss_import = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    t0 = time.perf_counter()
    with tf_reader.DebugDataReader(logdir) as reader:
        monitor = monitors.InfNanMonitor(reader)
        reader.update()
        alerts = sorted(monitor.alerts(), key=lambda a: a.wall_time)
        first = alerts[0].op_type if alerts else None
        seconds = time.perf_counter() - t0
        print(json.dumps({
            "seconds": seconds, "rss_after_import": rss_import,
            "executions": reader.num_executions(),
            "graph_traces": reader.num_graph_execution_traces(),
            "alerts": len(alerts), "first_op_type": first,
        }))


if __name__ == "__main__":
    main(sys.argv[1])
