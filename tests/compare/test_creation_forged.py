"""Which line created the schedule whose `__call__` made a learning rate (issue 18), on
forged logdirs (the TensorFlow-free writer): the captured framework file names the class, the
user's captured files are searched for its construction, and only a unique one is believed.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dumper.writer import LogdirWriter
from reader import EAGER, DebugLogdir
from tfdbg_tui.core.compare.creation import find_creation

SCHEDULE = "/venv/lib/python3.11/site-packages/keras/src/optimizers/schedules/lr.py"
SCHEDULE_SRC = [
    "import math",                                   # 1
    "",                                              # 2
    "class PolynomialDecay(LearningRateSchedule):",  # 3
    "    def __init__(self, lr0):",                  # 4
    "        self.lr0 = lr0",                        # 5
    "",                                              # 6
    "    def __call__(self, step):",                 # 7
    "        # the decayed rate",                    # 8
    "        return ops.add(self.lr0, step)",        # 9
]
MATH = "/venv/lib/python3.11/site-packages/tensorflow/python/ops/math_ops.py"
USER = "/home/me/train.py"
APPLY_LINE = 6


def _forge(path: Path, user_src: list[str]) -> DebugLogdir:
    """One eager op (the rate), run by user line APPLY_LINE through the schedule's
    `__call__` (line 9 of its file) and a module-level math function."""
    with LogdirWriter(path, overwrite=True) as wr:
        u = wr.add_source_file(USER, user_src)
        s = wr.add_source_file(SCHEDULE, SCHEDULE_SRC)
        m = wr.add_source_file(MATH, ["def add(x, y):", "    return gen(x, y)"])
        stack = [wr.add_stack_frame(u, APPLY_LINE, "train_step"),
                 wr.add_stack_frame(s, 9, "__call__"),
                 wr.add_stack_frame(m, 2, "add")]
        wr.add_execution("AddV2", "FULL_TENSOR", [np.array(0.1, np.float32)],
                         input_tensor_ids=[1, 2], output_tensor_ids=[3],
                         stack_frame_ids=stack)
    logdir = DebugLogdir(str(path))
    logdir.update()
    return logdir


def _user(*construction: str) -> list[str]:
    """A user file: imports, the construction lines given, and line 6 applying the rate."""
    lines = ["from keras.optimizers.schedules import PolynomialDecay as PD",
             "import keras", *construction]
    lines += ["pass"] * (APPLY_LINE - 1 - len(lines))
    return [*lines, "opt.apply_gradients(grads)  # runs the schedule", "x = 1  # PD("]


@pytest.mark.parametrize("construction", [
    "sched = PD(0.1)",
    "sched = keras.optimizers.schedules.PolynomialDecay(0.1)",
])
def test_a_unique_construction_is_the_creating_line(tmp_path: Path, construction: str) -> None:
    logdir = _forge(tmp_path / "run", _user(construction))
    found = find_creation(logdir, logdir.alert_stack(EAGER, 0))
    assert found is not None and found.owner == "PolynomialDecay"
    assert found.frame is not None and (found.frame.file, found.frame.line) == (USER, 3)
    assert found.code == construction


def test_no_construction_leaves_the_line_unknown(tmp_path: Path) -> None:
    logdir = _forge(tmp_path / "run", _user("sched = make_schedule()"))
    found = find_creation(logdir, logdir.alert_stack(EAGER, 0))
    assert found is not None and found.owner == "PolynomialDecay"
    assert found.frame is None and "unknown" in found.why and "no line" in found.why


def test_two_constructions_are_not_guessed_between(tmp_path: Path) -> None:
    logdir = _forge(tmp_path / "run", _user("a = PD(0.1)", "b = PD(0.2)"))
    found = find_creation(logdir, logdir.alert_stack(EAGER, 0))
    assert found is not None and found.frame is None
    assert "unknown" in found.why and "2 lines" in found.why


def test_a_stack_without_a_schedule_says_nothing(tmp_path: Path) -> None:
    """An op of the user's own code through a module-level framework function only."""
    logdir = _forge(tmp_path / "run", _user("sched = PD(0.1)"))
    frames = logdir.alert_stack(EAGER, 0)
    assert find_creation(logdir, [frames[0], frames[2]]) is None


def test_a_megabyte_line_in_a_captured_file_is_not_searched(tmp_path: Path) -> None:
    """A forged source line of 300,000 `import ` words: searched for `import … as X`, it
    would take quadratic time; the construction on a normal line is still found."""
    hostile = "import " * 300_000
    logdir = _forge(tmp_path / "run", _user("sched = PD(0.1)", hostile))
    found = find_creation(logdir, logdir.alert_stack(EAGER, 0))
    assert found is not None and found.frame is not None
    assert (found.frame.file, found.frame.line) == (USER, 3)
