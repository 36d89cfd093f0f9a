"""Op types of graph traces, resolved as the graphs that define their ops arrive.

Apart from the index (`reader.index.logdir`, which mixes this in) because it is one job: a
trace names its op by (graph id, op name); the op's type is known only once that graph's
record is read, which in a live logdir may come after the traces. The string ids of each
(graph, op) are cached; those read before their op are patched in when it arrives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from reader.index.columns import StringTable
    from reader.index.graphs import GraphStore
    from reader.index.ingest import IngestCache
    from reader.index.schema import TraceTable


class TraceKeys:
    """What `DebugLogdir` provides is declared here for the checker."""

    graphs: GraphStore
    strings: StringTable
    traces: TraceTable
    ingest_cache: IngestCache
    _trace_keys: dict[tuple[str, str], tuple[int, int, int]]
    _unresolved_types: bool

    def trace_key(self, graph_id: str, op_name: str) -> tuple[int, int, int]:
        """(graph id, op name, op type) string ids for a trace; op type -1 if not known yet."""
        op = self.graphs.op(graph_id, op_name)
        ids = (self.strings.intern(graph_id), self.strings.intern(op_name),
               self.strings.intern(op.op_type) if op is not None else -1)
        if op_name:  # an empty name is a foreign record: never cache it, so each is checked
            self._trace_keys[(graph_id, op_name)] = ids
        if op is None:
            self._unresolved_types = True
        return ids

    def _resolve_op_types(self) -> None:
        """Fill in op types of traces whose op creation was read after them (live logdirs)."""
        self._unresolved_types = False
        # raw-key entries made before the op was known are dropped and looked up again
        self.ingest_cache.forget_unresolved()
        stale = [k for k, ids in self._trace_keys.items() if ids[2] < 0]
        if not stale:
            return
        kinds = self.traces.kinds
        assert kinds is not None
        unresolved = np.flatnonzero(kinds.col("op_type") < 0)  # a kind per op output: few
        if len(unresolved) == 0:
            return
        gids = kinds.col("graph_id")[unresolved]
        names = kinds.col("op_name")[unresolved]
        for key in stale:
            ids = self.trace_key(*key)
            if ids[2] >= 0:
                hit = unresolved[(gids == ids[0]) & (names == ids[1])]
                if len(hit):
                    kinds.patch("op_type", hit, ids[2])
