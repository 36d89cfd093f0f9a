"""A TF1 graph program saves and restores checkpoints while `tfdbg-tui run` records it.

TensorFlow's dumping callback replaces a graph op's output with its debug identity; a
resource variable's own read was replaced too, and `tf.compat.v1.train.Saver` (default and
`{name: variable}` forms) refused the variable; a reference variable was replaced by a
tensor that can't be assigned (dumper/graph_vars.py). One recording, in FULL_TENSOR (the mode
the bug was found in); TensorFlow's `DebugDataReader` judges the logdir.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.paths import PROGRAMS
from support.tf_fork import run_forked

pytestmark = pytest.mark.tf
pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    tmp = tmp_path_factory.mktemp("saver")
    logdir, checkpoints = tmp / "logdir", tmp / "ckpt"
    checkpoints.mkdir()
    done = run_forked(["-m", "tfdbg_tui", "run", "--mode", "FULL_TENSOR", "--logdir", logdir,
                       "--", PROGRAMS / "dumper_tf1_saver.py", checkpoints])
    return done, logdir


def _one_step() -> tuple[list[float], list[float], list[float]]:
    """w, b and c after one gradient step of the program's model, in numpy."""
    x = np.array([[1.0, 1.0], [2.0, 0.0]])
    w, b, c = np.array([[1.0], [2.0]]), np.array([0.5]), np.array([0.25])
    residual = x @ w + b + c  # d mean(r²) / dr = 2r / 2
    return ((w - 0.1 * x.T @ residual).ravel().tolist(), (b - 0.1 * residual.sum(0)).tolist(),
            (c - 0.1 * residual.sum(0)).tolist())


def test_saver_save_and_restore_under_recording(recorded: tuple[Any, Path]) -> None:
    done, _ = recorded
    assert done.status == 0, done.err[-3000:]
    got = json.loads(done.out.strip().splitlines()[-1])
    saved = [np.array(v) for v in _one_step()]
    for key in ("saved", "restored_default", "restored_by_name"):
        for value, want in zip(got[key], saved, strict=True):
            np.testing.assert_allclose(value, want, rtol=1e-6, err_msg=key)
    assert not np.allclose(got["moved"][0], saved[0])  # the restores had something to undo


def test_recording_of_the_variables_unchanged(recorded: tuple[Any, Path]) -> None:
    from tensorflow.python.debug.lib import debug_events_reader

    from reader.index.logdir import DebugLogdir

    done, logdir = recorded
    assert done.status == 0, done.err[-3000:]
    ours = DebugLogdir(str(logdir))
    ours.update()
    w_saved, _, c_saved = _one_step()
    with debug_events_reader.DebugDataReader(str(logdir)) as r:
        r.update()  # (support.tf_oracle's monitor can't decode the checkpoint's file names)
        assert (len(ours.executions), len(ours.traces)) == (
            r.num_executions(), r.num_graph_execution_traces())
        assert r.num_graph_execution_traces() > 0
        assert not [d.op_name for d in r.graph_op_digests() if "tfdbg" in d.op_name]
        reads: list[list[float]] = []
        restored: list[list[float]] = []
        applied: list[list[float]] = []
        for t in r.graph_execution_traces():
            if (t.op_name != "w/Read/ReadVariableOp"
                    and t.op_type not in ("RestoreV2", "ApplyGradientDescent")):
                continue  # (TensorFlow's reader can't decode the string tensors)
            value = r.graph_execution_trace_to_tensor_value(t).ravel().tolist()
            if t.op_type == "RestoreV2":
                restored.append(value)
            elif t.op_type == "ApplyGradientDescent":
                applied.append(value)
            elif not reads or reads[-1] != value:
                reads.append(value)
    # Fetching w records its read as before: the step-1 value, the step-2 one, restored.
    assert len(reads) == 3
    np.testing.assert_allclose(reads[0], w_saved, rtol=1e-6)
    np.testing.assert_allclose(reads[2], w_saved, rtol=1e-6)
    assert not np.allclose(reads[1], w_saved)
    assert sum(np.allclose(v, w_saved, rtol=1e-6) for v in restored if len(v) == 2) == 2
    # The reference variable's update (its Apply op's output) is recorded, three steps.
    assert len(applied) == 3
    np.testing.assert_allclose(applied[0], c_saved, rtol=1e-6)
