"""Graph Structure never guesses a function argument's producer (tfdbg_tui.core.model).

TensorFlow traces neither a nested call nor its arguments. A guess by dtype and size once
named a float tensor as the producer of an integer argument (CTCLoss's labels) and showed
`Softmax:0` for `labels:0` as fact (issues 19 and 20), so an argument the exact walk cannot
resolve is shown with no tensor — float or integer. The logdir is written with the TF-free
writer: the facts are the graph's ops.
"""

from __future__ import annotations

from pathlib import Path

from support.tui import T0, health

from dumper.writer import LogdirWriter
from reader import open_logdir
from tfdbg_tui.core.model import input_links

OUTER = "0b7c1d2e-0000-4000-8000-0000000000a1"
INNER = "0b7c1d2e-0000-4000-8000-0000000000a2"


def test_an_unresolved_argument_names_no_producer(tmp_path: Path) -> None:
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
    # `logits` is the caller's only float tensor of the right kind: a content guess would
    # name it for x (and, worse, for the integer labels); nothing links them exactly.
    for link in (x, indices, values, lengths):
        assert link.trace is None and not link.argument, link
