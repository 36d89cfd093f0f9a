"""`tfdbg-tui diff` on runs whose records claim what they do not hold.

Found by running the hostile record fuzzer through `diff`: the op numbering of the
comparison believed an op record's `num_outputs` and a trace's `output_slot`, so a claim of
2**31 outputs numbered (and paired slot by slot) billions of tensors — a hang, or a 16 GB
allocation — and a wall time of ∞ broke the strict `--json` halfway through.
"""

from __future__ import annotations

import contextlib
import io
import json
import warnings
from pathlib import Path

from hostile.checks import strict_json
from hostile.raw import append, event, tensor, trace, vector
from support.tui import T0, add_step, health, start_reference

from reader.proto import tfdbg_events_pb2 as pb
from tfdbg_tui.commands.diff import main as diff_main


def _run(d: Path, slot: int, bad: bool) -> Path:
    """The reference run plus an op claiming 2**31 − 1 outputs, traced at a huge slot and at
    slot 0 (with −∞ when `bad`), and a trace whose wall time is ∞."""
    ref = start_reference(d)
    add_step(ref, 0, bad=False)
    ref.writer.close()
    (graphs,) = d.glob("*.graphs")
    (traces,) = d.glob("*.graph_execution_traces")
    op = pb.GraphOpCreation(op_type="Unpack", op_name="unpack", graph_id=ref.outer,
                            num_outputs=2**31 - 1)
    append(graphs, event(graph_op_creation=op))
    append(traces,
           trace("unpack", vector(health(20, 4, pos=4)), slot=slot, wall=T0 + 1),
           trace("unpack", vector(health(21, 4, ninf=int(bad), pos=4 - int(bad))),
                 wall=T0 + 2),
           trace("MatMul", vector(health(3, 12, neg=5, pos=7)), wall=float("inf")))
    return d


def _diff(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("error")
        status = diff_main(list(args))
    return status, out.getvalue(), err.getvalue()


def test_diff_of_runs_claiming_billions_of_outputs(tmp_path: Path) -> None:
    a = str(_run(tmp_path / "a", 2**31 - 2, bad=False))
    b = str(_run(tmp_path / "b", 2**31 - 3, bad=True))
    status, out, err = _diff("--json", a, b)
    assert status == 1, err
    result = strict_json(out)
    first = result["first_divergence"]
    assert first is not None and first["a"]["op_name"] == "unpack", json.dumps(first)[:2000]
    status, out, err = _diff(a, b)
    assert status == 1 and not err
    assert "unpack" in out


def test_diff_of_shape_summaries_made_of_strings(tmp_path: Path) -> None:
    """A SHAPE-mode trace whose summary is a string tensor (or complex numbers) in both runs:
    not a shape, so not compared as one — no ValueError out of the float conversion."""
    runs = []
    for name, dtype, values in (("a", 7, {"string_val": [b"", b"x"]}),
                                ("b", 8, {"scomplex_val": [1.0, 2.0]})):
        d = tmp_path / name
        ref = start_reference(d)
        add_step(ref, 0, bad=False)
        ref.writer.close()
        (traces,) = d.glob("*.graph_execution_traces")
        append(traces, trace("Softmax", tensor(dtype, (2,) if dtype == 7 else (1,), **values),
                             mode=5, wall=T0 + 1))
        runs.append(str(d))
    for args in (runs, runs[::-1], [runs[0], runs[0]], [runs[1], runs[1]]):
        status, out, err = _diff("--json", *args)
        if args[0] == args[1]:  # a run diffed against itself is equivalent, whatever it holds
            assert status == 0, (out, err)
            assert json.loads(out)["equivalent"] is True
        else:
            assert status in (0, 1), err
        strict_json(out)


def test_a_run_cut_mid_record_is_a_warning_of_diff(tmp_path: Path) -> None:
    """Run A's traces file ends inside its last record (a job killed mid-write): diff
    compares what is whole and says, naming the file and the record's offset, that the last
    record was not read — it was dropped without a word."""
    ref = start_reference(tmp_path / "b")
    add_step(ref, 0, bad=False)
    ref.writer.close()
    a = start_reference(tmp_path / "a")
    add_step(a, 0, bad=False)
    a.writer.close()
    (traces,) = (tmp_path / "a").glob("*.graph_execution_traces")
    (off,) = append(traces, trace("MatMul", vector(health(3, 12, pos=12)), wall=T0 + 5))
    with open(traces, "r+b") as f:
        f.truncate(off + 20)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = diff_main(["--json", str(tmp_path / "a"), str(tmp_path / "b")])
    assert status in (0, 1, 3), status
    said = strict_json(out.getvalue())["warnings"]
    assert any(traces.name in w and f"byte {off}" in w for w in said["a"]), said
    assert said["b"] == [], said
