"""Stacks recorded through `tfdbg-tui run -- python prog.py` (issue 19, point 8).

The wrapper runs the user's program inside its own process, so every stack TensorFlow
records starts with the wrapper's frames: the `tfdbg-tui` console script, our CLI, the
wrapper that execs the program. They are not the user's code. Stack Trace must not show
them at all — not with framework frames shown, not with them hidden (`f`) — and the frame
selected must be the user's line that made the NaN.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import tf_env
from support.shared import build_once, shared_root
from support.tui import settle, sync
from textual.geometry import Region

from reader import DebugLogdir
from reader.index.frames import Frame, recorder_frames, wrapper_frames
from tfdbg_tui.ui.app import TfdbgApp

PROGRAM = """\
import tensorflow as tf


def shifted_log(x):
    return tf.math.log(x - 1.0)  # THE LINE: log of a negative number is NaN


print(shifted_log(tf.constant([0.5, 2.0])).numpy())
"""
NAN_LINE = 1 + PROGRAM.splitlines().index(
    "    return tf.math.log(x - 1.0)  # THE LINE: log of a negative number is NaN")
WRAPPER_WORDS = ("tfdbg_tui", "dumper", "runpy", "bin/tfdbg-tui")


@pytest.fixture(scope="session")
def script_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Recorded as a user does: the console script, `run -- python prog.py`, FULL_HEALTH."""
    pytest.importorskip("tensorflow")

    def build(d: Path) -> str:
        (d / "prog.py").write_text(PROGRAM)
        console = Path(sys.executable).with_name("tfdbg-tui")
        proc = subprocess.run(
            [str(console), "run", "--logdir", str(d / "logdir"), "--", "python", "prog.py"],
            cwd=d, env=tf_env(), capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.fail(f"recording failed:\n{proc.stderr[-3000:]}")
        return str(d / "logdir")

    return build_once(shared_root(tmp_path_factory), "wrapper-frames-prog", build)


def _wrapper_files(frames: list[Frame]) -> list[str]:
    return [f.file for f in frames if any(w in f.file for w in WRAPPER_WORDS)]


@pytest.mark.tf
@sync
async def test_stack_trace_shows_no_frame_of_the_wrapper(script_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(script_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        stack = s.stack
        assert stack.frames, "the first alert is followed at launch: its stack is shown"
        # The recorded stack does hold the wrapper's frames (else this test proves nothing).
        assert stack.omitted >= 3
        shown = [stack.frames[k] for k in stack.shown]
        assert _wrapper_files(shown) == []
        assert stack.selected_frame is not None
        assert stack.selected_frame.file.endswith("prog.py")
        assert stack.selected_frame.line == NAN_LINE
        left = [stack.frames[k] for k in stack.shown]  # by default, only the program's
        assert left and all(f.file.endswith("prog.py") for f in left), left
        assert stack.selected_frame is not None and stack.selected_frame.line == NAN_LINE


@pytest.mark.tf
@sync
async def test_stack_trace_shows_no_frame_of_the_recorder_with_framework_frames_shown(
        script_logdir: str) -> None:
    """TensorFlow records each stack from inside its dumping callback, which tfdbg-tui's own
    op callback (dumper/graph_vars.py) wraps: those innermost frames are the recording's,
    not the program's, and `f` (framework frames shown) must not list them either."""
    app = TfdbgApp(DebugLogdir(script_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        stack = app.main.stack  # type: ignore[union-attr]
        await pilot.press("6", "f")
        await settle(app, pilot)
        assert len(stack.shown) == len(stack.frames)  # every frame listed
        files = [f.file for f in stack.frames]
        assert not [f for f in files if any(w in f for w in (*WRAPPER_WORDS,
                                                               "dumping_callback"))], files
        assert "math_ops" in files[-1]  # the innermost: TensorFlow's op itself


@pytest.mark.tf
@sync
async def test_the_stack_status_keeps_its_counts_beside_a_long_tensor_name(
        script_logdir: str) -> None:
    """The status is "<what> · N frames · M tfdbg-tui frames omitted": at 160 columns a long
    op name (mean_squared_error/Square:0 of a Keras loss) cut the counts to "5 t…"."""
    app = TfdbgApp(DebugLogdir(script_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        stack = app.main.stack  # type: ignore[union-attr]
        long = "created " + "gradient_tape/sequential_1/dense_1_2/MatMul/MatMul_1:0"
        stack.show_frames(app.state.logdir.alert_stack(
            int(app.state.logdir.alerts().kind[0]), int(app.state.logdir.alerts().index[0])),
            long)
        await pilot.pause()
        assert stack.omitted >= 3
        w, h = stack.outer_size
        bottom = stack.render_lines(Region(0, h - 1, w, 1))[0].text
        tail = f"{len(stack.frames)} frames · {stack.omitted} tfdbg-tui frames omitted"
        assert tail in bottom, bottom


def _f(file: str) -> Frame:
    return Frame(file, 1, "f")


def test_only_a_leading_run_of_the_wrappers_frames_counts() -> None:
    run_py = "/venv/lib/python3.11/site-packages/tfdbg_tui/commands/run.py"
    user = "/home/me/train.py"
    tf = "/venv/lib/python3.11/site-packages/tensorflow/python/ops/math_ops.py"
    assert wrapper_frames([_f("/venv/bin/tfdbg-tui"), _f(run_py), _f(user), _f(tf)]) == 2
    # `-m`: python's own runpy under the wrapper goes too (a cwd may prefix it)
    assert wrapper_frames([_f("/w/<frozen runpy>"), _f(run_py), _f("/w/<frozen runpy>"),
                           _f(user)]) == 3
    # not recorded through the wrapper, or the user's code came first: nothing left out
    assert wrapper_frames([_f(user), _f(tf)]) == 0
    assert wrapper_frames([_f(user), _f(run_py), _f(tf)]) == 0
    # never the whole stack
    assert wrapper_frames([_f(run_py)]) == 0


def test_only_a_trailing_run_from_the_recorders_callback_counts() -> None:
    ours = "/venv/lib/python3.11/site-packages/dumper/graph_vars.py"
    user = "/home/me/train.py"
    op = "/venv/lib/python3.11/site-packages/tensorflow/python/ops/gen_math_ops.py"
    dump = "/venv/lib/python3.11/site-packages/tensorflow/python/debug/lib/dumping_callback.py"
    assert recorder_frames([_f(user), _f(op), _f(ours), _f(dump), _f(dump)]) == 3
    assert recorder_frames([_f(user), _f(op), _f(dump)]) == 0  # recorded by TensorFlow alone
    assert recorder_frames([_f(user), _f(ours), _f(user), _f(op)]) == 0  # not trailing
    assert recorder_frames([_f(ours), _f(dump)]) == 0  # never the whole stack
    mine = "/home/me/dumper/examples/prog.py"  # the shipped example is the user's program
    assert recorder_frames([_f(user), _f(mine), _f(op)]) == 0



@pytest.mark.tf
@sync
async def test_a_name_that_fits_beside_the_counts_is_not_cut(script_logdir: str) -> None:
    """A status exactly as wide as the bottom border holds is shown whole: the demo's
    "created Log:0 · 30 frames · 7 tfdbg-tui frames omitted" at 160×45 showed "created Lo…"
    (the room was counted from the pane's content width, two cells short of its border's)."""
    app = TfdbgApp(DebugLogdir(script_logdir), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        stack = app.main.stack  # type: ignore[union-attr]
        alerts = app.state.logdir.alerts()
        frames = app.state.logdir.alert_stack(int(alerts.kind[0]), int(alerts.index[0]))
        stack.show_frames(frames, "created x")
        await pilot.pause()
        w, h = stack.outer_size
        tail = f"{len(stack.frames)} frames · {stack.omitted} tfdbg-tui frames omitted"
        room = w - 6 - len(" · ") - len(tail)  # corners, a rule and a space each side
        what = "created " + "n" * (room - len("created ") - 2) + ":0"
        stack.show_frames(frames, what)
        await pilot.pause()
        bottom = stack.render_lines(Region(0, h - 1, w, 1))[0].text
        assert f"{what} · {tail}" in bottom, bottom
