"""Which nested tf.function a call op inside another function ran (the call is unrecorded).

TensorFlow's dumping callback never records the call op of a tf.function called inside
another (`StatefulPartitionedCall` is skipped), so its output names an op the graph does not
hold. The callee is one of the function graphs traced under the caller; the one whose
creation stack shares the longest prefix of user frames with the consumer (the call line)
wins (one that ran: traced again, a function leaves graphs that never did), ties by the
call op's number. A function traced elsewhere and reused ran just before.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.diagnosis.index import first_tid
from reader.index.frames import Frame
from reader.index.graphs import Graph, Op
from reader.index.logdir import DebugLogdir

CONTROL_FLOW_PREFIXES = ("while_body", "while_cond", "cond_true", "cond_false", "case_branch")


class NestedCalls:
    """Finds callee graphs of unrecorded nested calls, for one logdir (caches stacks)."""

    def __init__(self, logdir: DebugLogdir) -> None:
        self.L = logdir
        self._frames: dict[str, tuple[tuple[str, int, str], ...]] = {}
        self._traced_ids: tuple[int, set[int]] | None = None

    def lifted_capture(self, outer: Graph, callee: Graph | None, ph: Op,
                       placeholders: Callable[[Graph], list[Op]]) -> Op | None:
        """The caller's Placeholder that a nested function's captured input was lifted to.

        When a nested function captures a tensor of an outer function's caller (a variable's
        handle, say), TensorFlow adds one Placeholder per capture to the caller when the
        call is made, in the callee's capture order, after everything of the callee was
        traced; the callee's captures are its last Placeholders. So they pair up from the end.
        """
        if callee is None or callee.outer_id != outer.graph_id or not callee.ops:
            return None
        inner = placeholders(callee)
        last = max((first_tid(op) for op in callee.ops.values() if op.output_tensor_ids),
                   default=None)
        if last is None:  # no op of the callee has a recorded output: nothing to pair with
            return None
        lifted = [p for p in placeholders(outer) if first_tid(p) > last]
        if not lifted or len(lifted) > len(inner):
            return None
        i = next((j for j, p in enumerate(inner) if p.op_name == ph.op_name), -1)
        offset = len(inner) - len(lifted)
        return lifted[i - offset] if i >= offset else None

    def called_graph(self, g: Graph, consumer: Op | None, call_name: str,
                      row: int | None) -> Graph | None:
        """The nested function whose (unrecorded) call op `call_name` feeds `consumer` in `g`.

        Candidates are function graphs traced under `g` before the consumer was created. The
        best share the longest prefix of user frames with the consumer (the call line); ties
        go by the call op's number (`StatefulPartitionedCall_1` is the second call created).
        """
        cands = [d for d in self._descendants(g) if d.ops
                 and not d.name.startswith(CONTROL_FLOW_PREFIXES)]
        limit = first_tid(consumer) if consumer is not None else 1 << 62
        cands = sorted((d for d in cands if self._graph_tid(d) < limit), key=self._graph_tid)
        if not cands:  # a function traced elsewhere and reused: it ran just before us
            return self._ran_just_before(g, row)
        if consumer is not None:
            mine = _user_chain(self.L.op_stack(consumer))
            scores = [_common_prefix(mine, self._graph_chain(d)) for d in cands]
            top = max(scores)
            cands = [d for d, sc in zip(cands, scores, strict=True) if sc == top]
        # a function traced again (Keras traces its step once more to build the optimizer's
        # slots) leaves graphs that never ran: the call ran one that has traces
        cands = [d for d in cands if self.traced(d)] or cands
        number = call_name.rsplit("_", 1)[-1]
        n = int(number) if "_" in call_name and number.isdigit() else 0
        return cands[min(n, len(cands) - 1)]

    def traced(self, g: Graph) -> bool:
        """True when some trace row ran in `g` (per the trace kinds: a few thousand)."""
        kinds = self.L.traces.kinds
        if kinds is None:
            return True
        if self._traced_ids is None or self._traced_ids[0] != len(kinds):
            self._traced_ids = (len(kinds), set(np.unique(kinds.col("graph_id")).tolist()))
        return self.L.strings.lookup(g.graph_id) in self._traced_ids[1]

    def _ran_just_before(self, g: Graph, row: int | None, window: int = 4096) -> Graph | None:
        """The function graph whose traces come last before `row` (its call ran just then)."""
        if row is None or row <= 0:
            return None
        L = self.L
        gids = L.traces.col("graph_id")[max(0, row - window):row]
        own = L.strings.lookup(g.graph_id)
        for sid in gids[::-1]:
            if int(sid) == own:
                continue
            cand = L.graph(L.strings[int(sid)])
            while cand is not None and cand.name.startswith(CONTROL_FLOW_PREFIXES):
                cand = L.graph(cand.outer_id) if cand.outer_id else None
            if cand is not None and cand.graph_id != g.graph_id:
                return cand
        return None

    def _graph_tid(self, g: Graph) -> int:
        return min((first_tid(op) for op in g.ops.values()), default=1 << 62)

    def _descendants(self, g: Graph) -> list[Graph]:
        out: list[Graph] = []
        stack = list(g.inner_ids)
        seen: set[str] = set()
        while stack:
            gid = stack.pop()
            if gid in seen:
                continue
            seen.add(gid)
            inner = self.L.graph(gid)
            if inner is not None:
                out.append(inner)
                stack.extend(inner.inner_ids)
        return out

    def _graph_chain(self, g: Graph) -> tuple[tuple[str, int, str], ...]:
        """User frames of the stack that created the graph's first op: ends at the call site."""
        hit = self._frames.get(g.graph_id)
        if hit is None:
            first = min(g.ops.values(), key=first_tid)
            hit = _user_chain(self.L.op_stack(first))
            self._frames[g.graph_id] = hit
        return hit


def _user_chain(frames: list[Frame]) -> tuple[tuple[str, int, str], ...]:
    return tuple((f.file, f.line, f.function) for f in frames
                 if f.resolved and not f.is_framework)


def _common_prefix(a: tuple[object, ...], b: tuple[object, ...]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n
