"""Graph Structure's guess of a function argument's producer (tfdbg_tui.core.model).

TensorFlow traces neither a nested call nor its arguments; when the exact walk cannot
resolve an argument, the pane guesses the caller's latest tensor ("≈"). Traces in the health
modes are float tensors, so an argument the function reads as an integer (CTCLoss's labels,
a gather's indices) must not be guessed: any guess would name a float tensor as its
producer. The logdir is written with the TF-free writer: the facts are the graph's ops.
"""

from __future__ import annotations

from pathlib import Path

from support.tui import T0, health

from dumper.writer import LogdirWriter
from reader import open_logdir
from tfdbg_tui.core.model import input_links

OUTER = "0b7c1d2e-0000-4000-8000-0000000000a1"
INNER = "0b7c1d2e-0000-4000-8000-0000000000a2"


def test_an_integer_argument_is_not_guessed_a_float_argument_is(tmp_path: Path) -> None:
    w = LogdirWriter(tmp_path / "logdir", run_id="run-1", hostname="host",
                     tensorflow_version="2.21.0", file_timestamp=int(T0))
    src = w.add_source_file(str(tmp_path / "prog.py"), [f"line {i}" for i in range(1, 20)])
    frame = [w.add_stack_frame(src, 3, "ctc")]
    w.add_graph(OUTER, "train_step")
    w.add_graph(INNER, "ctc_inner", outer_graph_id=OUTER)
    w.add_op(OUTER, "MatMul", "logits", [], stack_frame_ids=frame)
    for name in ("x", "labels_indices", "labels_values", "lengths"):
        w.add_op(INNER, "Placeholder", name, [], stack_frame_ids=frame)
    w.add_op(INNER, "CTCLoss", "loss", ["x:0", "labels_indices:0", "labels_values:0",
                                       "lengths:0"], stack_frame_ids=frame)
    w.add_graph_trace(OUTER, "logits", 0, "FULL_HEALTH", health(0, 6, pos=6), wall_time=T0 + 1)
    w.add_graph_trace(INNER, "loss", 0, "FULL_HEALTH", health(0, 2, pinf=1, pos=1),
                      wall_time=T0 + 2)
    w.close()
    L = open_logdir(str(tmp_path / "logdir"))
    loss = next(i for i in range(len(L.traces)) if L.op_name_of_trace(i) == "loss")
    op = L.op_of_trace(loss)
    assert op is not None
    x, indices, values, lengths = input_links(L, len(L.traces), loss, op, exact=False)
    assert x.inferred and x.trace is not None
    assert L.op_name_of_trace(x.trace) == "logits"  # the float argument: guessed, marked ≈
    for link in (indices, values, lengths):  # integers: no float tensor named as producer
        assert link.trace is None and not link.inferred, link
