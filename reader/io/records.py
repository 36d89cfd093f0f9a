"""Full records, read on demand by file offset.

The index keeps only digests (numpy columns). When a pane needs the whole record — an eager
execution's inputs and stack, a trace's debug vector or FULL_TENSOR value — it is re-read from
disk at its offset and parsed. These dataclasses are what callers get back.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.index.tensors import TensorValue


@dataclass(frozen=True)
class ExecutionRecord:
    """One eager op or tf.function call, in full."""

    index: int
    wall_time: float
    op_type: str
    graph_id: str | None  # set when this execution is a tf.function call
    num_outputs: int
    input_tensor_ids: tuple[int, ...]
    output_tensor_ids: tuple[int, ...]
    mode: int
    host: str
    stack_frame_ids: tuple[str, ...]
    output_device_ids: tuple[int, ...]
    # Per output slot: the mode's summary vector (health/shape modes) or the full tensor
    # (FULL_TENSOR); None where nothing was recorded (non-float output in a health mode).
    debug_tensors: tuple[TensorValue | None, ...]


@dataclass(frozen=True)
class TraceRecord:
    """One tensor computed inside a graph, in full."""

    index: int
    wall_time: float
    graph_id: str
    op_name: str
    op_type: str
    output_slot: int
    mode: int
    device: str
    # The summary vector (health/shape modes) or the full tensor (FULL_TENSOR); None for
    # NO_TENSOR placeholders.
    value: TensorValue | None

    @property
    def tensor_name(self) -> str:
        return f"{self.op_name}:{self.output_slot}"

    @property
    def vector(self) -> np.ndarray | None:
        """The float64 summary vector, for health and shape modes."""
        if self.value is None:
            return None
        return np.asarray(self.value.values, dtype=np.float64).reshape(-1)
