"""Edges between recorded tensors: what fed an op, across graphs, functions and eager ops.

The logdir records tensors (graph traces, eager outputs) but the edges between them are only
partly explicit. This module recovers them:
- inside a graph: the op's `input_names`, then the latest trace of that tensor before ours;
- ops TensorFlow never instruments (Identity, Enter/Exit, Switch…) are looked through;
- a While's output is its body's output (or its input if the body never ran); a body's
  Placeholder is fed by the While's input or by the previous iteration's body output;
- a top-level tf.function's Placeholder k is fed by the calling execution's input tensor k,
  produced by an earlier eager execution (found by tensor id);
- an eager tf.function call's output k is the graph's k-th output (Identity) at that call;
- a nested tf.function's call op is never recorded: its outputs are found in the callee
  graph (matched by the creation stack), its inputs by reading the call site (see
  `reader.diagnosis.source`), and captured tensors by name in the enclosing graphs;
- a variable read's input is the value its last write put there, wherever it was made
  (`reader.diagnosis.read_writes`).
"""

from __future__ import annotations

from reader.diagnosis import read_writes
from reader.diagnosis.feeders import feeder
from reader.diagnosis.functions import backward_graphs_of, captured_name, placeholders_in_order
from reader.diagnosis.index import DiagIndex, Ref
from reader.diagnosis.links import (
    IF_OPS,
    LOOK_THROUGH,
    MAX_EAGER_INPUTS,
    MAX_HOPS,
    WHILE_OPS,
    Link,
)
from reader.diagnosis.nested import NestedCalls
from reader.diagnosis.variables import READ_OPS, Write
from reader.errors import ReaderError
from reader.index.graphs import Graph, Op
from reader.index.schema import EAGER, GRAPH

MEMO_TEXT = 1 << 14  # characters of names and notes a remembered tensor's inputs may hold


def _text_size(links: list[Link]) -> int:
    return sum(len(lk.name) + len(lk.note) + sum(map(len, lk.via)) for lk in links)


class Walker:
    """Resolves inputs of recorded tensors for one logdir (see the module docstring)."""

    def __init__(self, idx: DiagIndex) -> None:
        self.idx = idx
        self.L = idx.L
        self.nested = NestedCalls(idx.L)
        self._windows: dict[int, tuple[float, float]] = {}
        self._windowed = True  # off while resolving a variable's write (an earlier call)
        self._writes: dict[Ref, Write | None] = {}
        # eager executions listing more than MAX_EAGER_INPUTS inputs → how many they list
        self.unexamined: dict[int, int] = {}

    # ------------------------------------------------------------------ names
    def graph_name(self, graph_id: str) -> str:
        """A graph's name for people; never a raw id (TF1's Session graph has no name)."""
        g = self.L.graph(graph_id)
        if g is not None and g.name:
            return g.name
        if g is not None and not g.outer_id:
            return "Session graph" if not len(self.L.executions) else "outermost graph"
        return "unnamed graph"

    def name(self, ref: Ref) -> str:
        """A tensor's display name: `op:slot (graph)` or `OpType:slot (eager #i)`."""
        L = self.L
        if ref.kind == GRAPH:
            return f"{L.trace_name(ref.index)} ({self.graph_name(L.graph_of_trace(ref.index))})"
        op_type = L.strings[int(L.executions.col("op_type")[ref.index])]
        return f"{op_type}:{ref.slot} (eager #{ref.index})"

    def op_of(self, ref: Ref) -> Op | None:
        return self.L.op_of_trace(ref.index) if ref.kind == GRAPH else None

    # ------------------------------------------------------------------ entry points
    def inputs(self, ref: Ref) -> list[Link]:
        """The inputs of the op that produced `ref`, each resolved to its latest record;
        remembered while the logdir does not grow (`DiagIndex.input_memo`: the incidents'
        walks cross the same tensors, and resolving inputs is most of a walk's time)."""
        hit = self.idx.input_memo.get(ref) if self._windowed else None
        if hit is None:
            before = dict(self.unexamined)
            links = self._inputs(ref)
            if not self._windowed or _text_size(links) > MEMO_TEXT:
                return links  # (a logdir's names can be huge: those are not kept)
            hit = self.idx.input_memo[ref] = (tuple(links), {
                e: n for e, n in self.unexamined.items() if before.get(e) != n})
        self.unexamined.update(hit[1])
        return list(hit[0])

    def _inputs(self, ref: Ref) -> list[Link]:
        if ref.kind == GRAPH:
            op = self.op_of(ref)
            if op is None:
                return []
            row = ref.index
            wall = float(self.L.traces.col("wall_time")[row])
            links = [self._resolve(op.graph_id, n, s, row, wall, op, 0, (), f"{n}:{s}")
                     for n, s in op.inputs]
            if op.op_type in READ_OPS and op.inputs:
                self._windowed = False
                try:
                    links.extend(read_writes.graph_read_written(self, op, ref, wall))
                finally:
                    self._windowed = True
            return links
        links = self._eager_inputs(ref.index)
        if self.L.op_type_of_execution(ref.index) in READ_OPS:
            links.extend(read_writes.write_links(self, ref))
        return links

    def passthrough(self, ref: Ref) -> Link | None:
        """For a tensor that only carries another's value, that other tensor.

        A traced Placeholder carries what its feeder gave it; an eager tf.function call's
        output carries what the graph computed. None for a real computation.
        """
        L = self.L
        if ref.kind == EAGER:
            gid = self.idx.exec_graph(ref.index)
            if gid is None:
                return self._returned_optional(ref)
            g = L.graph(gid)
            if g is None:
                return Link(self.name(ref), None, (), "the called graph was not recorded")
            wall = float(L.executions.col("wall_time")[ref.index])
            return self._function_output(g, ref.slot, None, wall, 0, self.name(ref))
        op = self.op_of(ref)
        if op is None or op.op_type != "Placeholder":
            return None
        wall = float(L.traces.col("wall_time")[ref.index])
        return feeder(self, op, ref.index, wall, 0, (), self.name(ref))

    def returned_optional(self, ref: Ref) -> tuple[Graph, Op, float] | None:
        """For an eager OptionalGetValue of an Optional a tf.function returned: (that graph,
        the OptionalFromValue that made it, the call's wall time). Keras 3's fit returns each
        step's logs so (the loss among them): they carry the function's values, not data."""
        L = self.L
        if L.op_type_of_execution(ref.index) != "OptionalGetValue":
            return None
        try:
            tids = L.read_execution(ref.index).input_tensor_ids
        except ReaderError:
            return None
        call = self.idx.eager_producer(int(tids[0]), ref.index) if tids else None
        gid = self.idx.exec_graph(call.index) if call is not None else None
        g = L.graph(gid) if gid is not None else None
        outs = self.idx.outputs(g) if g is not None and call is not None else []
        if g is None or call is None or call.slot >= len(outs):
            return None
        op: Op | None = outs[call.slot]
        for _ in range(MAX_HOPS):  # the output's Identity, and any other, looked through
            if op is None or op.op_type not in LOOK_THROUGH or not op.inputs:
                break
            op = g.ops.get(op.inputs[0][0])
        if op is None or op.op_type != "OptionalFromValue":
            return None
        return g, op, float(L.executions.col("wall_time")[call.index])

    def _returned_optional(self, ref: Ref) -> Link | None:
        """The value an OptionalGetValue output carries (see `returned_optional`)."""
        found = self.returned_optional(ref)
        if found is None:
            return None
        g, op, wall = found
        if ref.slot >= len(op.inputs):
            return Link(self.name(ref), None, (), f"{op.op_name} holds no value {ref.slot}")
        n, s = op.inputs[ref.slot]
        here = f"{op.op_name}:{ref.slot} ({self.graph_name(g.graph_id)})"
        return self._resolve(g.graph_id, n, s, None, wall, op, 1, (here,), self.name(ref))

    def variable_write(self, ref: Ref) -> Write | None:
        """The last write before read `ref` to the variable it reads (cached per read;
        `reader.diagnosis.read_writes`)."""
        if ref not in self._writes:
            self._writes[ref] = read_writes.last_write_of(self, ref)
        return self._writes[ref]

    # ------------------------------------------------------------------ eager
    def _eager_inputs(self, i: int) -> list[Link]:
        try:
            rec = self.L.read_execution(i)
        except ReaderError as exc:
            self.L.warn(str(exc))
            return []
        out = []
        tids = rec.input_tensor_ids
        if len(tids) > MAX_EAGER_INPUTS:
            self.unexamined[i] = len(tids)
            tids = tids[:MAX_EAGER_INPUTS]
        for tid in tids:
            ref = self.idx.eager_producer(int(tid), i)
            if ref is None:
                out.append(Link(f"tensor id {tid}", None, (),
                                "made outside any recorded op (e.g. tf.constant or numpy)",
                                tid=int(tid), outside=True))
            else:
                out.append(Link(self.name(ref), ref))
        return out

    # ------------------------------------------------------------------ graph tensors
    def _resolve(self, graph_id: str, op_name: str, slot: int, row: int | None,
                 wall: float | None, consumer: Op | None, depth: int,
                 via: tuple[str, ...], shown: str) -> Link:
        """The latest record of graph tensor `op_name:slot` before `row` (or at/before `wall`)."""
        if depth > MAX_HOPS:
            return Link(shown, None, via, "too many hops")
        g = self.L.graph(graph_id)
        op = g.ops.get(op_name) if g else None
        here = f"{op_name}:{slot} ({self.graph_name(graph_id)})"
        if g is None:
            return Link(shown, None, via, "its graph was not recorded")
        if op is None:  # the output of a nested tf.function call, whose op is never recorded
            callee = self.nested.called_graph(g, consumer, op_name, row)
            if callee is None:
                return Link(shown, None, via, f"{op_name} (a function call) was not recorded")
            return self._function_output(callee, slot, row, wall, depth + 1, shown, (*via, here))
        if op.op_type in LOOK_THROUGH and op.inputs:
            inputs = op.inputs
            src = inputs[0]
            if op.op_type == "Merge":
                src = max(inputs, key=lambda i: self.idx.latest_trace(
                    graph_id, i[0], i[1], row, wall) or -1)
            return self._resolve(graph_id, src[0], src[1], row, wall, op, depth + 1,
                                 (*via, here), shown)
        if op.op_type in WHILE_OPS | IF_OPS:
            return self._control_flow_output(g, op, slot, row, wall, depth, (*via, here), shown)
        r = self._in_same_call(graph_id, op_name, slot, row)
        if r is None:
            r = self.idx.latest_trace(graph_id, op_name, slot, row, wall)
        if r is not None:
            return Link(shown, Ref(GRAPH, r, slot), via)
        if op.op_type == "Placeholder":
            return feeder(self, op, row, wall, depth + 1, (*via, here), shown)
        return Link(shown, None, via, "not a float tensor, or not instrumented")

    def same_call_trace(self, graph_id: str, op_name: str, slot: int, row: int) -> int | None:
        """The trace of `op_name:slot` made in the same invocation as trace `row` (a collective's
        peer, `reader.diagnosis.collectives`), or None."""
        return self._in_same_call(graph_id, op_name, slot, row)

    def _in_same_call(self, graph_id: str, op_name: str, slot: int, row: int | None
                      ) -> int | None:
        """The trace of a tensor made in the same invocation as the consumer trace `row`.

        Debug ops run when TensorFlow schedules them: a producer's trace can follow its
        consumer's (Keras' iterator output after the train step that used it). Within one
        graph, when producer and consumer were traced equally often, the k-th consumer trace
        pairs with the k-th producer trace (`DiagIndex.paired_trace`, overlapping calls:
        `reader.diagnosis.concurrent_calls`) — counted within the eager execution they ran
        under, or over the run for graphs no execution calls (dataset functions). Otherwise,
        within that execution, the latest trace before `row`, else the first after it."""
        if row is None or not self._windowed:
            return None
        window = self._windows.get(row)
        if window is None:
            window = self._windows[row] = self.idx.call_window(row)
        L = self.L
        if L.graph_of_trace(row) == graph_id:
            called = len(self.idx.executions_of_graph(L.graphs.graph_chain(graph_id)[-1]))
            paired = self.idx.paired_trace(
                graph_id, (L.op_name_of_trace(row), int(L.traces.col("slot")[row])),
                (op_name, slot), row, window if window != (0.0, 0.0) else None,
                whole_run=not called)
            if paired is not None:
                return paired
        if window == (0.0, 0.0):
            return None
        return self.idx.trace_in_window(graph_id, op_name, slot, row, window)

    def _function_output(self, g: Graph, k: int, row: int | None, wall: float | None,
                         depth: int, shown: str, via: tuple[str, ...] = ()) -> Link:
        outs = self.idx.outputs(g)
        if k >= len(outs):
            captured = self._side_output(g, k)
            if captured is not None:
                return self._resolve(g.graph_id, captured, 0, row, wall, None, depth + 1, via,
                                     shown)
        if k >= len(outs) or not outs[k].inputs:
            return Link(shown, None, via, f"output {k} of {g.name or 'a function'} is not recorded")
        n, s = outs[k].inputs[0]
        return self._resolve(g.graph_id, n, s, row, wall, outs[k], depth + 1, via, shown)

    def _side_output(self, forward: Graph, k: int) -> str | None:
        """The forward op behind extra output `k` of a `__forward_` call (kept for the gradient).

        The backward graph's Placeholder k captures it by name (see
        `reader.diagnosis.functions`).
        """
        for bwd in backward_graphs_of(list(self.L.graphs.graphs.values()), forward):
            phs = placeholders_in_order(bwd)
            if k < len(phs):
                name = captured_name(bwd, phs[k])
                if name is not None and name in forward.ops:
                    return name
        return None

    def _control_flow_output(self, g: Graph, op: Op, k: int, row: int | None,
                             wall: float | None, depth: int, via: tuple[str, ...],
                             shown: str) -> Link:
        best: Link | None = None
        for body in self._bodies(g, op):
            # a While's condition computes no output; an If's branches (inside a loop
            # AutoGraph names them while_cond_1_true_…) compute them all
            if op.op_type in WHILE_OPS and "_cond_" in body.name and "_body_" not in body.name:
                continue
            link = self._function_output(body, k, row, wall, depth + 1, shown, via)
            if link.ref is not None and link.ref.kind == GRAPH and row is not None \
                    and link.ref.index >= row:
                continue  # not made before the consumer: a branch that passed the consumer
                # itself through (a loop's untaken branch: its Placeholder, this iteration's)
            if link.ref is not None and (best is None or best.ref is None
                                         or link.ref.index > best.ref.index):
                best = link
        if best is not None:
            return best
        if op.op_type in WHILE_OPS and k < len(op.inputs):  # the body never ran
            n, s = op.inputs[k]
            return self._resolve(g.graph_id, n, s, row, wall, op, depth + 1, via, shown)
        return Link(shown, None, via, f"no branch of {op.op_name} was recorded")

    def _bodies(self, g: Graph, op: Op) -> list[Graph]:
        """Inner graphs of a control-flow op: their ops are named under the op's name scope."""
        prefix = op.op_name + "/"
        out = []
        for gid in g.inner_ids:
            inner = self.L.graph(gid)
            if inner is not None and any(n.startswith(prefix) for n in inner.ops):
                out.append(inner)
        return out
