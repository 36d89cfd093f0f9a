"""An iterator's hidden input: the dataset function (dataset.map and the like) that made the
elements it hands out.

A tf.data function is traced as a graph of its own (`Dataset_map_preprocess`), and its ops'
NaN/∞ are recorded there; the IteratorGetNext that hands the batch to the training has only
the iterator handle as an input edge. So the NaN a `dataset.map` function made was two
origins: the function's op, and again the iterator's output, "the data carries it", fixed
where the dataset was made — the same NaN twice, the second pointing at the wrong line.

The iterator's pipeline is known (`reader.diagnosis.data.dataset_chain`: the eager dataset
ops from the one it was bound to back to the first). A dataset op that applies a function
(a map, an interleave, a filter…) was called on the line the function was traced from, so
the function's graph is the `Dataset_…` graph whose ops' creation stacks hold that line.
Its output k is the iterator's output k (batching, prefetching, shuffling keep the
components apart) when the sizes agree (the batch holds whole elements), and the element
it made is its latest trace holding NaN/∞ made before the iterator's output: an input of
the iterator (`links`). None of this when the function's outputs held no NaN/∞ before then:
the data came from the dataset's source, and is said to.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis.data import ITERATOR_OPS, dataset_chain
from reader.diagnosis.index import Ref
from reader.diagnosis.links import LOOK_THROUGH, MAX_HOPS
from reader.diagnosis.steps import DATASET_GRAPH
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.graphs import Graph
from reader.index.schema import EAGER, GRAPH

# dataset ops that apply a function of the user's (MapDataset, ParallelMapDatasetV2,
# FlatMapDataset, MapAndBatchDataset, ParallelInterleaveDatasetV4, FilterDataset, …): the
# others of a pipeline written on one line share its line, and apply none
APPLIES = ("Map", "Interleave", "Filter", "Scan", "GroupBy", "TakeWhile")
MAX_OPS = 8  # ops of a dataset function whose stacks are looked at
MAX_LOOK = 4096  # traces of a function's output looked at back from the iterator's output


def links(walker: Walker, ref: Ref) -> list[Link]:
    """For an iterator's output: the element a dataset function made, holding NaN/∞, that
    came out in it (see the module docstring); empty otherwise."""
    L, idx = walker.L, walker.idx
    kind = L.op_type_of_trace(ref.index) if ref.kind == GRAPH \
        else L.op_type_of_execution(ref.index)
    if kind not in ITERATOR_OPS or (ref.kind == EAGER and walker.returned_optional(ref)):
        return []
    size = idx.health(ref).size
    wall = idx.wall(ref)
    functions = [g for g in L.graphs.graphs.values() if g.name.startswith(DATASET_GRAPH)]
    if not functions:
        return []
    for ds in dataset_chain(walker, ref):  # the nearest to the iterator first
        if not any(a in L.op_type_of_execution(ds.index) for a in APPLIES):
            continue
        for g in _functions_of(walker, ds, functions):
            found = _made(walker, g, ref.slot, wall, size)
            if found is not None:
                ds_type = L.op_type_of_execution(ds.index)
                return [Link(f"an element made by {g.name}", found,
                             (f"{ds_type} (eager #{ds.index}), whose function is {g.name}",))]
    return []


def _functions_of(walker: Walker, ds: Ref, functions: list[Graph]) -> list[Graph]:
    """The dataset functions traced from the line dataset op `ds` was called on."""
    L = walker.L
    try:
        frames = L.stack(L.read_execution(ds.index).stack_frame_ids)
    except ReaderError:
        return []
    uf = L.user_frame(frames)
    if uf is None:
        return []
    out = []
    for g in functions:
        for op in list(g.ops.values())[:MAX_OPS]:
            if any(f.file == uf.file and f.line == uf.line for f in L.op_stack(op)):
                out.append(g)
                break
    return out


def _made(walker: Walker, g: Graph, k: int, wall: float, size: int | None) -> Ref | None:
    """The latest trace holding NaN/∞ of function `g`'s output `k` made at or before `wall`,
    when its element fits the iterator's output (`size` elements) a whole number of times."""
    idx = walker.idx
    outs = idx.outputs(g)
    if k >= len(outs) or not outs[k].inputs:
        return None
    name, slot = outs[k].inputs[0]
    for _ in range(MAX_HOPS):  # the output's Identity, and any other, looked through
        op = g.ops.get(name)
        if op is None or op.op_type not in LOOK_THROUGH or not op.inputs:
            break
        name, slot = op.inputs[0]
    rows = idx.trace_rows(g.graph_id, name, slot)
    rows = rows[np.asarray(idx.L.traces.col("wall_time")[rows]) <= wall]
    for row in rows[::-1][:MAX_LOOK].tolist():
        ref = Ref(GRAPH, int(row), slot)
        if idx.is_bad(ref) != 1:
            continue
        element = idx.health(ref).size
        if size is not None and element and size % element:
            return None  # not this iterator's component
        return ref
    return None
