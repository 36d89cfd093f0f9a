"""Recordings that lose or hide things: the reader says so, and maps generated code back.

`tests/programs/diag_recording.py` makes each case the way real programs do: work in a
thread that is not dumping, TensorFlow's default circular buffer over a longer run, and a
function converted ahead of time by `tf.autograph.to_graph`. Expectations come from the
programs' own facts (their source lines, what TensorFlow's buffer keeps), not from our code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

from reader import DebugLogdir, open_logdir
from reader.diagnosis import diagnose
from reader.index.frames import user_frame_index

pytestmark = pytest.mark.tf
PROGRAM = PROGRAMS / "diag_recording.py"


@pytest.fixture(scope="session")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, DebugLogdir]:
    pytest.importorskip("tensorflow")
    out = {}
    for case in ("thread", "buffer", "autograph"):  # kept for the next runs
        out[case] = open_logdir(recorded_program(tmp_path_factory, f"recording-{case}",
                                                 PROGRAM, case))
    return out


def _line_of(text: str) -> int:
    """1-based line of the program holding `text` (the program is the oracle)."""
    lines = PROGRAM.read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(hits) == 1, text
    return hits[0]


def test_work_in_another_thread_is_a_warning_not_a_clean_bill(
        recorded: dict[str, DebugLogdir]) -> None:
    L = recorded["thread"]
    assert len(L.traces) == 0 and L.num_alerts == 0  # nothing was recorded …
    step = [g for g in L.graphs.graphs.values() if g.name == "step"]
    assert step and not step[0].ops  # … but the function's graph was
    warnings = [w for w in L.all_warnings() if "thread" in w]
    assert len(warnings) == 1 and "step" in warnings[0] and "per thread" in warnings[0]


def test_a_full_circular_buffer_is_named_with_how_to_record_all(
        recorded: dict[str, DebugLogdir]) -> None:
    L = recorded["buffer"]
    assert len(L.traces) == 1000  # TensorFlow kept its default buffer's worth, no more
    (w,) = [w for w in L.all_warnings() if "circular" in w]
    assert "1,000 graph traces" in w and "circular_buffer_size=-1" in w
    clean = recorded["thread"]
    assert not [w for w in clean.all_warnings() if "circular" in w]


def test_a_call_whose_traces_were_dropped_says_so(recorded: dict[str, DebugLogdir]) -> None:
    """The first call's NaN survives only in its execution record: no op inside is named."""
    L = recorded["buffer"]
    a = L.alerts()
    d = diagnose(L, int(a.kind[0]), int(a.index[0]), int(a.slot[0]))
    assert d.origin_op_type.startswith("__inference_normalize")
    assert "not in this logdir" in d.explanation and "circular buffer" in d.explanation
    assert d.fix is not None  # the call line: all that is known


def test_autograph_generated_frames_map_to_the_users_line(
        recorded: dict[str, DebugLogdir]) -> None:
    L = recorded["autograph"]
    generated = [p for _h, p in L.source_files() if "__autograph_generated_file" in p]
    assert generated, "TensorFlow should have snapshotted the generated file"
    log_op = next(op for g in L.graphs.graphs.values() for op in g.ops.values()
                  if op.op_type == "Log")
    frames = L.op_stack(log_op)
    assert not any("__autograph_generated_file" in f.file for f in frames)
    uf = frames[user_frame_index(frames) or 0]
    assert Path(uf.file).name == PROGRAM.name
    assert (uf.line, uf.function) == (_line_of("return tf.math.log(x)"), "normalize_rows")
    div = next(op for g in L.graphs.graphs.values() for op in g.ops.values()
               if op.op_type == "RealDiv")
    div_frame = L.user_frame(L.op_stack(div))
    assert div_frame is not None and div_frame.line == _line_of("x = x / total")
    a = L.alerts()
    d = diagnose(L, int(a.kind[0]), int(a.index[0]), int(a.slot[0]))
    assert d.fix_frame is not None and d.fix_frame.line == _line_of("return tf.math.log(x)")
    assert d.fix is not None and "__autograph" not in (d.fix.code or "")
