"""The shape of the index: its column tables and the two kinds of tensor rows.

Both the index (`reader.index.logdir`) and the hot loops that fill it (`reader.index.ingest`)
need these, so they live here, below both, rather than in either.
"""

from __future__ import annotations

from reader.index.health import HEALTH_COLUMNS

# A tensor row is a graph trace (tf.function ops, one record per op output) or an eager
# execution's output (one execution record, several outputs).
GRAPH, EAGER = 0, 1

EXEC_SPEC = {"wall_time": "f8", "op_type": "i4", "graph_id": "i4", "num_outputs": "i4",
             "mode": "i4", "fileset": "i2", "offset": "i8", "first_output": "i8",
             "n_outputs": "i4"}
OUTPUT_SPEC = {"execution": "i8", "slot": "i4", **HEALTH_COLUMNS}
TRACE_SPEC = {"wall_time": "f8", "graph_id": "i4", "op_name": "i4", "op_type": "i4",
              "slot": "i4", "mode": "i4", "device": "i4", "fileset": "i2", "offset": "i8",
              **HEALTH_COLUMNS}
ALERT_SPEC = {"kind": "i1", "index": "i8", "slot": "i4", "wall_time": "f8"}
