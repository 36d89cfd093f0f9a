"""The diagnosis under the first alert is the one `report` gives, even while the app is still
indexing thousands of file sets (issue 21, point 8).

With 2,000 file sets (a run spread over 2,000 hosts) the first read takes a while and the
app diagnoses the first alert meanwhile: the diagnosis read the kinds table, then a trace
row added after it, and said "diagnosis failed: IndexError …" where `report` explains the
Log of zeros. The expected line is what the diagnosis says once everything is read.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.tui import T0, health, settle, sync

from dumper.writer import LogdirWriter
from reader import DebugLogdir, open_logdir
from reader.diagnosis import STRICT_ENV, diagnose
from reader.index.schema import GRAPH
from tfdbg_tui.ui.app import TfdbgApp

SETS = 2000
PROGRAM = ["import tensorflow as tf", "x = tf.zeros([3])", "y = tf.math.log(x)"]


def many_hosts(path: Path) -> None:
    """One run written by `SETS` hosts; each traced the Log of zeros that gives −∞."""
    for i in range(SETS):
        w = LogdirWriter(path, run_id="run-1", hostname=f"host{i:04d}",
                         tensorflow_version="2.21.0", file_timestamp=int(T0))
        f = w.add_source_file("/p/train.py", PROGRAM)
        frames = [w.add_stack_frame(f, 3, "<module>")]
        gid = f"g-{i}"
        w.add_graph(gid, "step")
        w.add_op(gid, "Placeholder", "x", [], stack_frame_ids=frames)
        w.add_op(gid, "Log", "Log", ["x:0"], stack_frame_ids=frames)
        w.add_graph_trace(gid, "x", 0, "FULL_HEALTH", health(1, 3, zero=3, rank=1),
                          wall_time=T0 + i)
        w.add_graph_trace(gid, "Log", 0, "FULL_HEALTH", health(2, 3, ninf=3, rank=1),
                          wall_time=T0 + i + 0.5)
        w.add_execution("__inference_step_7", "FULL_HEALTH", [health(-1, 3, ninf=3, rank=1)],
                        graph_id=gid, output_tensor_ids=[9], stack_frame_ids=frames,
                        wall_time=T0 + i + 0.7)
        w.close()


@sync
async def test_the_app_diagnoses_like_report_while_indexing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)  # what the user sees, not a test's raise
    many_hosts(tmp_path / "logdir")
    expected = diagnose(open_logdir(str(tmp_path / "logdir")), GRAPH, 1).explanation
    assert "log 0" in expected
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    said: set[str] = set()
    async with app.run_test(size=(200, 50)) as pilot:
        while not app.indexed.is_set():  # what the line says during the first read
            await pilot.pause(0.05)
            said.add(str(app.screen.query_one("#alerts-diagnosis").render()))
        await settle(app, pilot)  # a diagnosis walked while indexing is walked again
        said.add(str(app.screen.query_one("#alerts-diagnosis").render()))
        final = str(app.screen.query_one("#alerts-diagnosis").render())
    assert not any("failed" in s for s in said), said
    # the pane wraps the sentence into its width (issue 19): compare the words
    assert " ".join(expected.split()) in " ".join(final.split())
