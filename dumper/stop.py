"""Stop a dumped program right after the first NaN/∞ it records.

How it works, and why this way: an op callback registered after TensorFlow's dumping
callback runs after every eager op and every tf.function call (graph traces are complete
by then: the DebugIdentityV2 ops are stateful, so a call returns only after all of them ran).
It flushes TensorFlow's writer and reads the records added since the last check, straight
from the logdir, with our own TFRecord scanner. If one shows a NaN or ∞, it closes the dump
and raises `StoppedAtNaN` into the program, so the logdir ends right after the call that
produced the anomaly, origin included.

The alternative, `tf.debugging.enable_check_numerics`, stops inside the graph, but its
CheckNumericsV2 ops run concurrently with the DebugIdentityV2 ops that record the tensor,
so the origin's record can be cancelled before it reaches the file; reading our own data
has no such race. The price: the rest of the tf.function call that produced the first NaN
is recorded too (its backward pass, say), and only what the dump records can be seen
(modes CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH, FULL_TENSOR; ops left out by `op_regex`
or `dtypes` are invisible).

`StoppedAtNaN` can be caught: a retry loop or a harness with `except BaseException:` eats it
and the program runs on, unrecorded. With `on_swallowed` set (`tfdbg-tui run` sets it), the
watcher then stays as a tripwire: at the program's next TensorFlow op, unless the stop is
still on its way up (the op runs in a `finally:` or `__exit__` it passes through, or in the
handler itself), it calls `on_swallowed(message)`, which ends the process.
"""

from __future__ import annotations

import glob
import os
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from dumper.errors import StoppedAtNaN
from dumper.tensors import VECTOR_MODES, decode_tensor_proto, inf_nan_counts
from reader.io.tfrecord import ScanState, scan_records
from reader.proto import tfdbg_events_pb2 as pb


class _Tail:
    """Incremental reader of one growing tfdbg file: yields only records not seen before."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.state = ScanState()

    def new_events(self) -> list[tuple[int, pb.DebugEvent]]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.state.resume_offset)
                data = f.read()
        except OSError:
            return []
        if not data:
            return []
        events = []
        for offset, payload in scan_records(data, self.state.resume_offset, self.state):
            events.append((offset, pb.DebugEvent.FromString(bytes(payload))))
        return events


def _debug_value(mode: int, proto: pb.TensorProto) -> np.ndarray | None:
    if mode in VECTOR_MODES:
        if proto.dtype != 2 or not proto.tensor_content:
            return None
        return np.frombuffer(proto.tensor_content, dtype="<f8")
    return decode_tensor_proto(proto)


def describe(op_type: str, op_name: str, where: str, counts: tuple[int, int, int, int]) -> str:
    """One line: "Log op 'Log' in tf.function graph 'cross_entropy' produced −∞ in 1 of 1000
    elements"."""
    size, neg_inf, pos_inf, nan = counts
    kinds = [(n, label) for n, label in ((nan, "NaN"), (neg_inf, "−∞"), (pos_inf, "+∞")) if n]
    if not size:
        what = "NaN or ∞"
    elif len(kinds) == 1:
        what = f"{kinds[0][1]} in {kinds[0][0]} of {size} elements"
    else:
        what = " and ".join(f"{n} {label}" for n, label in kinds) + f" among {size} elements"
    name = f"{op_type} op '{op_name}'" if op_name else op_type
    return f"{name} {where} produced {what}"


class NaNWatcher:
    """The op callback that stops the program at the first recorded NaN/∞ (see module doc)."""

    def __init__(self, dump: Any, writer: Any, close: Callable[[], None]) -> None:
        self.dump = dump
        self.writer = writer
        self.close = close
        self._traces: _Tail | None = None
        self._executions: _Tail | None = None
        self._installed = False
        self.on_swallowed: Callable[[str], None] | None = None
        self._raised: StoppedAtNaN | None = None
        self._tripwire_on = False

    def install(self) -> None:
        from tensorflow.python.framework import op_callbacks

        op_callbacks.add_op_callback(self.callback)
        self._installed = True

    def uninstall(self) -> None:
        if self._installed:
            from tensorflow.python.framework import op_callbacks

            self._installed = False
            try:
                op_callbacks.remove_op_callback(self.callback)
            except KeyError:
                pass

    def disarm(self) -> None:
        """Remove the tripwire laid after a stop (the stop was handled)."""
        if self._tripwire_on:
            from tensorflow.python.framework import op_callbacks

            self._tripwire_on = False
            try:
                op_callbacks.remove_op_callback(self._tripwire)
            except KeyError:
                pass

    def forget(self) -> None:
        """Stop watching and never stop the program (a forked child: not recorded)."""
        self.on_swallowed = None
        self.uninstall()
        self.disarm()

    def _tripwire(self, *args: Any, **kwargs: Any) -> None:
        """After a stop: the first op run once the stop is no longer propagating ends it."""
        exc: BaseException | None = sys.exc_info()[1]
        seen: set[int] = set()
        while exc is not None and id(exc) not in seen:
            if exc is self._raised:
                return None  # in a `finally:`, `__exit__` or handler on the way up: fine
            seen.add(id(exc))
            exc = exc.__context__
        end = self.on_swallowed
        self.disarm()
        if end is not None and self._raised is not None:
            end(self._raised.message)
        return None

    def _open_tails(self) -> bool:
        if self._traces is None:
            found = sorted(glob.glob(os.path.join(glob.escape(self.dump.logdir), "*.metadata")))
            if not found:
                return False
            prefix = found[0][: -len(".metadata")]
            self._traces = _Tail(prefix + ".graph_execution_traces")
            self._executions = _Tail(prefix + ".execution")
        return True

    def callback(
        self,
        op_type: Any,
        inputs: Any,
        attrs: Any,
        outputs: Any,
        op_name: Any = None,
        graph: Any = None,
    ) -> None:
        """Check the new records after each eager op or tf.function call (not at tracing)."""
        if graph is not None or not self._installed:
            return None
        self.check()
        return None

    def check(self) -> None:
        """Flush, read what is new, and stop the program if it holds a NaN/∞."""
        self.writer.FlushNonExecutionFiles()
        self.writer.FlushExecutionFiles()
        if not self._open_tails():
            return
        assert self._traces is not None and self._executions is not None
        first: tuple[float, str, str, str, tuple[int, int, int, int], str] | None = None
        for _, event in self._traces.new_events():
            trace = event.graph_execution_trace
            counts = inf_nan_counts(
                trace.tensor_debug_mode, _debug_value(trace.tensor_debug_mode, trace.tensor_proto)
            )
            if counts and (first is None or event.wall_time < first[0]):
                first = (event.wall_time, trace.tfdbg_context_id, trace.op_name, "", counts,
                         f"output {trace.output_slot}")
        for _, event in self._executions.new_events():
            execution = event.execution
            for slot, proto in enumerate(execution.tensor_protos):
                counts = inf_nan_counts(
                    execution.tensor_debug_mode,
                    _debug_value(execution.tensor_debug_mode, proto),
                )
                if counts and (first is None or event.wall_time < first[0]):
                    first = (event.wall_time, "", "", execution.op_type, counts, f"output {slot}")
        if first is None:
            return
        _, graph_id, op_name, op_type, counts, _slot = first
        where = "(eager)"
        if graph_id:
            op_type, graph_name = self._lookup_op(graph_id, op_name)
            where = f"in tf.function graph '{graph_name}'" if graph_name else "in a graph"
        message = "stopped at the first NaN/∞: " + describe(op_type, op_name, where, counts)
        self.uninstall()
        self.close()
        self.dump.stopped = message
        self._raised = StoppedAtNaN(message, self.dump.logdir, op_type, op_name)
        if self.on_swallowed is not None:
            from tensorflow.python.framework import op_callbacks

            op_callbacks.add_op_callback(self._tripwire)
            self._tripwire_on = True
        raise self._raised

    def _lookup_op(self, graph_id: str, op_name: str) -> tuple[str, str]:
        """(op type, graph name) of a graph op, read from the .graphs file."""
        assert self._traces is not None
        graphs = _Tail(self._traces.path[: -len(".graph_execution_traces")] + ".graphs")
        for _, event in graphs.new_events():
            op = event.graph_op_creation
            if op.graph_id == graph_id and op.op_name == op_name:
                return op.op_type, op.graph_name
        return "?", ""
