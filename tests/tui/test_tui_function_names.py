"""A tf.function call is shown by the name its user gave it (issue 31, held-out check).

TensorFlow records a call as its mangled graph name, `__inference_train_step_<uid>`; the
Timeline showed "__inference_…" on every call row at every width, so one function's calls
could not be told from another's. The run is tests/programs/step_program.py's `tf.function`
form (a real TensorFlow program whose step function is named `train_step`); what the rows
must say is spelled from that program, not from the code under test.
"""

from __future__ import annotations

import pytest
from support.step_runs import step_logdir
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.vlist import VirtualList


def _line(vl: VirtualList, position: int) -> str:
    top = int(vl.scroll_offset.y)
    return "".join(seg.text for seg in vl.render_line(position - top))


@pytest.mark.parametrize("size", [(120, 32), (200, 50)])
@sync
async def test_timeline_rows_name_the_users_function(
        tmp_path_factory: pytest.TempPathFactory, size: tuple[int, int]) -> None:
    logdir = DebugLogdir(step_logdir(tmp_path_factory, "function"))
    app = TfdbgApp(logdir, follow=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        await pilot.press("2")
        await settle(app, pilot)
        vl = s.query_one("#tl-list", VirtualList)
        calls = [i for i in range(vl.row_count)
                 if logdir.execution(i).op_type.startswith("__inference_train_step_")]
        assert len(calls) >= 5  # the premise: one recorded call per training step
        for i in calls:
            vl.select_index(i)  # scrolls the row into view (and shows the call's detail)
            await pilot.pause()
            position = vl.position_of(i)
            assert position is not None
            line = _line(vl, position)
            assert "__inference" not in line, line
            # the whole name where the row has room; at 120×32 (a 31-cell pane) the counts
            # come first and the name is cut at its end ("train_st…"), still the user's
            name = line.split()[1]
            assert name == "train_step" or (size[0] < 160 and name.endswith("…")
                                            and "train_step".startswith(name[:-1])
                                            and len(name) >= 6), line
        # the detail of the selected call keeps TensorFlow's full name (retraces differ)
        await settle(app, pilot)
        gs = s.query_one("#gs-list", VirtualList)
        head = _line(gs, 0)
        full = logdir.execution(calls[-1]).op_type
        assert "train_step " in head, head
        if size[0] >= 200:
            assert full in head, head


@pytest.mark.parametrize("form", ["function", "fit"])
def test_a_calls_name_is_its_recorded_graphs_name(
        tmp_path_factory: pytest.TempPathFactory, form: str) -> None:
    """The name shown for a call is the name its graph was recorded under (the .graphs
    file), for every call TensorFlow linked to a graph: `train_step`, Keras' own step."""
    from reader.diagnosis.functions import function_label

    logdir = DebugLogdir(step_logdir(tmp_path_factory, form))
    logdir.update()
    checked = 0
    for i in range(len(logdir.executions)):
        ex = logdir.execution(i)
        g = logdir.graph(ex.graph_id) if ex.graph_id is not None else None
        if g is None or not ex.op_type.startswith("__inference_"):
            continue
        assert function_label(ex.op_type) == g.name, (ex.op_type, g.name)
        checked += 1
    assert checked >= 5  # one per training step at least
