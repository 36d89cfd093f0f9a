"""TensorFlow's own reader as the oracle: counts, alerts and the first alert of a logdir.

Used only by tests. TensorFlow's `InfNanMonitor` deadlocks when attached before `update()` on
an eager FULL_TENSOR logdir (its callback re-enters the reader's file lock), so for
FULL_TENSOR the monitor is fed the same records after `update()` instead.
"""

from __future__ import annotations

from typing import Any


def tf_oracle(logdir: str) -> dict[str, Any]:
    from tensorflow.python.debug.lib import debug_events_monitors as monitors
    from tensorflow.python.debug.lib import debug_events_reader as tf_reader

    with tf_reader.DebugDataReader(logdir) as r:
        r.update()
        mon = monitors.InfNanMonitor(r)
        traces = r.graph_execution_traces()
        executions = r.executions()
        for i, t in enumerate(traces):
            mon.on_graph_execution_trace(i, t)
        for i, e in enumerate(executions):
            mon.on_execution(i, e)
        alerts = mon.alerts()
        out: dict[str, Any] = {
            "run_id": r.tfdbg_run_id(),
            "start_wall_time": r.starting_wall_time(),
            "tensorflow_version": r.tensorflow_version(),
            "counts": {
                "executions": r.num_executions(),
                "graph_traces": r.num_graph_execution_traces(),
                "graphs": len(r._graph_by_id),
                "ops": len(r.graph_op_digests()),
                "source_files": len(r.source_file_list()),
                "stack_frames": len(r._stack_frame_by_id),
            },
            "alerts_total": len(alerts),
            "modes": sorted({t.tensor_debug_mode for t in traces}
                            | {e.tensor_debug_mode for e in executions}),
            "trace_offsets": [d.locator[1] for d in r.graph_execution_traces(digest=True)],
            "execution_offsets": [d.locator for d in r.executions(digest=True)],
            "first": None,
        }
        if not alerts:
            return out

        def key(a: Any) -> tuple[float, int, int]:
            graph = a.graph_execution_trace_index is not None
            idx = a.graph_execution_trace_index if graph else a.execution_index
            return (a.wall_time, 0 if graph else 1, idx)

        a = min(alerts, key=key)
        if a.graph_execution_trace_index is not None:
            trace = traces[a.graph_execution_trace_index]
            digest = r.graph_by_id(trace.graph_id).get_op_creation_digest(trace.op_name)
            _, frames = r.read_graph_op_creation_stack_trace(digest)
            kind, index, op_name = "graph", a.graph_execution_trace_index, trace.op_name
        else:
            _, frames = r.read_execution_stack_trace(executions[a.execution_index])
            kind, index, op_name = "eager", a.execution_index, None

        def num(v: Any) -> int | None:
            return None if v is None else int(v)

        out["first"] = {
            "kind": kind, "index": index, "wall_time": a.wall_time, "op_type": a.op_type,
            "op_name": op_name, "output_slot": a.output_slot, "size": num(a.size),
            "nan": num(a.num_nan), "neg_inf": num(a.num_neg_inf), "pos_inf": num(a.num_pos_inf),
            "stack": [{"file": f, "line": line, "function": fn} for f, line, fn in frames],
        }
        return out
