"""NaN/∞ that the data carries: say so, and point at where the data enters the program.

The loop that iterates over a dataset is not the place to fix a NaN in the data; the line
that makes the dataset is (or the data it is made from). So for an iterator's output
(`IteratorGetNext`, eager or inside a tf.function) the dataset is followed back through the
recorded eager ops by tensor id: the iterator handle → the `MakeIterator` that bound it to a
dataset → that dataset's input dataset … → the first dataset op (`TensorSliceDataset`,
`TensorDataset`, a generator…), whose user frame is the `tf.data.Dataset…` line.

In a TF1 Session program data comes in through fed Placeholders: their traces hold what was
fed; the Session.run line is not recorded, so the Placeholder's creation line is named.
"""

from __future__ import annotations

import numpy as np

from reader.diagnosis import optable
from reader.diagnosis.copies import suspects
from reader.diagnosis.explain.common import In, produced
from reader.diagnosis.index import DiagIndex, Health, Ref
from reader.diagnosis.places import Place, place_of_op, place_of_ref
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.schema import EAGER, GRAPH

ITERATOR_OPS = frozenset({"IteratorGetNext", "IteratorGetNextSync", "OptionalGetValue",
                          "MultiDeviceIteratorGetNextFrom", "IteratorGetNextAsOptional"})
MAX_CHAIN = 64
MAX_SCAN = 4096


def _is_dataset(op_type: str) -> bool:
    return "Dataset" in op_type and op_type not in ("DatasetCardinality", "DatasetToGraphV2")


# ops that read values from files: a NaN they output was in the file
FILE_OPS = {"RestoreV2": "checkpoint", "Restore": "checkpoint", "RestoreSlice": "checkpoint",
            "ReadFile": "file", "DecodeRaw": "file", "DecodeCSV": "CSV data",
            "ParseExampleV2": "TFRecord examples", "ParseSingleExample": "TFRecord examples",
            "ParseSequenceExampleV2": "TFRecord examples"}


def data_origin(walker: Walker, ref: Ref, op_type: str,
                out: Health) -> tuple[str, Place | None] | None:
    """(explanation, where the data enters) when the origin is data; None otherwise."""
    idx = walker.idx
    if op_type in FILE_OPS:
        what = FILE_OPS[op_type]
        extra = (" — most likely saved after a run had already gone NaN; restore an "
                 "earlier checkpoint" if what == "checkpoint" else "")
        return (f"{produced(op_type, out)}: the data carries it — {op_type} only loads values "
                f"from the {what} it reads, so the NaN/∞ is in that {what}{extra}"
                ), place_of_ref(idx, ref)
    if op_type in ITERATOR_OPS and not (ref.kind == EAGER and walker.returned_optional(ref)):
        source = dataset_source(walker, ref)  # (not the values a tf.function returned)
        return _iterator_text(op_type, out, source), source
    if op_type in ("Placeholder", *PY_FUNCS) and ref.kind == GRAPH:
        g = idx.L.graph(idx.L.graph_of_trace(ref.index))
        if g is not None and g.name.startswith("Dataset_"):
            if op_type in PY_FUNCS:
                return _dataset_python(idx, ref, op_type, g.name, out)
            return _dataset_argument(idx, ref, g.name, out)
    if op_type == "Placeholder" and ref.kind == GRAPH and not len(idx.L.executions):
        place = place_of_ref(idx, ref)
        name = idx.L.op_name_of_trace(ref.index)
        return (f"{produced(op_type, out)}: the data fed to the placeholder {name} carries it "
                "(a value passed in Session.run's feed_dict); the line that feeds it is not "
                "recorded, so the placeholder is where this data enters the program"), place
    return None


# ops that run Python code (tf.py_function, tf.numpy_function, Dataset.from_generator)
PY_FUNCS = frozenset({"PyFunc", "PyFuncStateless", "EagerPyFunc"})


def _dataset_python(idx: DiagIndex, ref: Ref, op_type: str, fn: str,
                    out: Health) -> tuple[str, Place]:
    """A Python function inside the input pipeline (a generator of Dataset.from_generator, a
    tf.py_function in a map) returned NaN/∞: TensorFlow does not trace inside it."""
    place = place_of_ref(idx, ref)
    uf = place.user_frame
    at = f" (made at {uf.file.rsplit('/', 1)[-1]}:{uf.line})" if uf else ""
    return (f"{produced(op_type, out)}: the data carries it — {op_type} runs Python code of "
            f"the dataset function {fn}{at} (a Dataset.from_generator generator, or a "
            "tf.py_function/tf.numpy_function), and TensorFlow records what it returns but "
            "not how: the NaN/∞ is in what that Python code yields — the data it reads or "
            "computes (check it with np.isnan before yielding)"), place


def _dataset_argument(idx: DiagIndex, ref: Ref, fn: str, out: Health) -> tuple[str, Place]:
    """An argument of a tf.data function (map, filter, …: graphs named `Dataset_…`) holds
    NaN/∞: the element came that way out of the dataset the function is applied to, whose
    own values are not traced (Keras makes such a pipeline inside model.fit from arrays)."""
    place = place_of_ref(idx, ref)
    name = idx.L.op_name_of_trace(ref.index)
    uf = place.user_frame
    at = f" (made at {uf.file.rsplit('/', 1)[-1]}:{uf.line})" if uf else ""
    return (f"{produced('Placeholder', out)}: the data carries it — {name} is an element "
            f"that the input pipeline hands to its dataset function {fn}{at}, before any op "
            "of that function ran; the dataset's source values are not recorded, so the "
            "NaN/∞ was already in the elements it receives: in the data the dataset is made "
            "from, unless an earlier dataset function made it (check the arrays with "
            "np.isnan, or drop such elements with dataset.filter)"), place


def _iterator_text(op_type: str, out: Health, source: Place | None) -> str:
    head = (f"{produced(op_type, out)}: the data carries it — {op_type} only hands out the "
            "next batch of the input pipeline, it computes nothing")
    if source is None:
        return head + "; where the dataset was created was not recorded"
    uf = source.user_frame
    at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
    return (f"{head}; the dataset is made by {source.op_type}{at}: clean or filter the data "
            "it is made from (e.g. dataset.filter, or np.nan_to_num on the arrays)")


def dataset_source(walker: Walker, ref: Ref) -> Place | None:
    """The first dataset op of the pipeline an iterator output came from, or None."""
    chain = dataset_chain(walker, ref)
    return place_of_ref(walker.idx, chain[-1]) if chain else None


def dataset_chain(walker: Walker, ref: Ref) -> list[Ref]:
    """The eager dataset ops of the pipeline an iterator output came from: the dataset the
    iterator was bound to, its input dataset, … the first one (empty: not recorded)."""
    idx = walker.idx
    handle = _iterator_handle(walker, ref)
    if handle is None:
        return []
    it_ref = idx.eager_producer(handle[0], handle[1])
    if it_ref is None:
        return []
    ds = _bound_dataset(idx, handle[0], it_ref.index)
    return _chain(idx, ds) if ds is not None else []


def _iterator_handle(walker: Walker, ref: Ref) -> tuple[int, int] | None:
    """(iterator tensor id, execution before which it existed) of an iterator op's input."""
    idx = walker.idx
    L = idx.L
    if ref.kind == EAGER:
        try:
            tids = L.read_execution(ref.index).input_tensor_ids
        except ReaderError as exc:
            L.warn(str(exc))
            return None
        return (int(tids[0]), ref.index) if tids else None
    links = walker.inputs(ref)  # a graph op: its iterator input is a function argument
    for lk in links[:1]:
        if lk.ref is not None and lk.ref.kind == EAGER:
            try:
                out_tids = L.read_execution(lk.ref.index).output_tensor_ids
            except ReaderError:
                return None
            if lk.ref.slot < len(out_tids):
                return int(out_tids[lk.ref.slot]), lk.ref.index + 1
    return None


def _bound_dataset(idx: DiagIndex, iterator: int, made: int) -> int | None:
    """The dataset tensor id that `MakeIterator` bound to iterator `iterator`."""
    L = idx.L
    sid = L.strings.lookup("MakeIterator")
    if sid < 0:
        return None
    types = L.executions.col("op_type")
    hi = min(len(types), made + MAX_SCAN)
    for e in np.flatnonzero(types[made:hi] == sid) + made:
        try:
            tids = L.read_execution(int(e)).input_tensor_ids
        except ReaderError:
            continue
        if len(tids) > 1 and int(tids[1]) == iterator:
            return int(tids[0])
    return None


def _chain(idx: DiagIndex, dataset: int) -> list[Ref]:
    """A dataset op, then its input datasets back to the first one."""
    L = idx.L
    ref = idx.eager_producer(dataset, len(L.executions))
    out: list[Ref] = []
    for _ in range(MAX_CHAIN):
        if ref is None:
            return out
        out.append(ref)
        try:
            tids = L.read_execution(ref.index).input_tensor_ids
        except ReaderError:
            return out
        up = idx.eager_producer(int(tids[0]), ref.index) if tids else None
        if up is None or not _is_dataset(L.op_type_of_execution(up.index)):
            return out
        ref = up
    return out


# ops that cannot make NaN out of finite inputs (short of overflowing to ∞ first)
CARRIERS = frozenset({
    "MatMul", "BatchMatMulV2", "BatchMatMulV3", "Add", "AddV2", "AddN", "Sub", "Mul", "BiasAdd",
    "Relu", "Relu6", "Elu", "Selu", "LeakyRelu", "Tanh", "Sigmoid", "Softmax", "Conv2D",
    "Conv1D", "DepthwiseConv2dNative", "Sum", "Mean", "Max", "Min", "Maximum", "Minimum",
    "Neg", "Abs", "Reshape", "Transpose", "Cast", "ConcatV2", "Pack", "GatherV2",
    "StridedSlice", "Squeeze", "ExpandDims", "MaxPool", "AvgPool", "Tile", "Square",
    "SquaredDifference", "FusedBatchNormV3", "Round", "Floor", "Ceil", "Sign", "Einsum",
})


def argument_data(walker: Walker, op_type: str, out: Health, links: list[Link],
                  ins: list[In], here: Place) -> tuple[str, Place, Place | None] | None:
    """NaN that came in with a tf.function argument made outside TensorFlow (numpy data),
    or with an input of an eager op made outside any recorded op (`here` is that op).

    Its values were never recorded, so this is a deduction, said as one: the op that first
    shows NaN cannot make NaN from finite values (short of an overflow to ∞ first, which
    leaves ∞ behind too) and its other inputs were recorded finite. Returns (explanation,
    the call that passed the data, the Placeholder it arrived in).
    """
    carrier = op_type in CARRIERS or optable.cannot(op_type)
    if not carrier or not out.nan or out.pos_inf or out.neg_inf:
        return None
    args = [lk for lk in links if lk.ref is None and (lk.call is not None or lk.outside)]
    others = [x for lk, x in zip(links, ins, strict=True) if lk not in args]
    if len(args) != 1 or any(x.health is None or x.health.bad != 0 for x in others):
        return None
    lk = args[0]
    if lk.outside and here.index is not None and lk.tid is not None and \
            suspects(walker.idx, lk.tid, here.index):
        return None  # it may as well be an unrecorded Identity of a bad tensor: not data
    if lk.outside:
        text = (f"{produced(op_type, out)}: the data carries it — its input {lk.name} was "
                "made outside any recorded op (a numpy array or a Python value passed to "
                f"{op_type} here), so its values were not recorded; {op_type} cannot make NaN "
                "from finite inputs and its other inputs were finite, so the NaN came in with "
                "that input data (check the array, e.g. with np.isnan, before this line)")
        first = _first_reader(walker, lk.tid, here.index) if lk.tid is not None and \
            here.index is not None else None
        if first is None or first == here.index:
            return text, here, None
        entry = place_of_ref(walker.idx, Ref(EAGER, first))
        uf = entry.user_frame
        at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
        return (text.removesuffix(")") + f"; it enters the program at its first reader, "
                f"{entry.op_type} (eager #{first}){at})", entry, None)
    idx = walker.idx
    assert lk.call is not None
    call = place_of_ref(idx, Ref(EAGER, lk.call))
    ph: Place | None = None
    if lk.arg is not None:
        g = idx.L.graph(lk.arg[0])
        op = g.ops.get(lk.arg[1]) if g else None
        if g is not None and op is not None:
            ph = place_of_op(idx, g, op)
    name = lk.arg[1] if lk.arg else lk.name
    uf = call.user_frame
    at = f" at {uf.file.rsplit('/', 1)[-1]}:{uf.line}" if uf else ""
    fn = ph.graph_name if ph and ph.graph_name else "the function"
    text = (f"{produced(op_type, out)}: the data carries it — the argument {name} of {fn} was "
            f"fed from outside TensorFlow (numpy or Python data) by the call{at}, so its values "
            f"were not recorded; {op_type} cannot make NaN from finite inputs and its other "
            "inputs were finite, so the NaN came in with that input data (check the arrays "
            "passed to the call, e.g. with np.isnan)")
    return text, call, ph


MAX_READERS = 256  # executions looked at back for the first reader of a tensor from outside


def _first_reader(walker: Walker, tid: int, read: int) -> int | None:
    """The earliest of the MAX_READERS executions before `read` that read eager tensor
    `tid`: where a tensor made outside any recorded op (numpy data, converted as it is
    passed) enters the program. Every op reading the same bad tensor then names the same
    entry, and their alerts are one incident (`reader.diagnosis.incidents`)."""
    L = walker.L
    first = None
    for e in range(read - 1, max(-1, read - 1 - MAX_READERS), -1):
        try:
            tids = L.read_execution(e).input_tensor_ids
        except ReaderError:
            break
        if tid in (int(t) for t in tids):
            first = e
    return first
