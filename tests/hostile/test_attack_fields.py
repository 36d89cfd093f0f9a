"""Held-out cases, round 5 (issue 30's acceptance: "others like them"): every field a record
has, at once — every string (run id, TensorFlow version, host, source path and lines,
function names, device names, graph ids and names, op types and names, input names) made
of OSC 52, ESC, C1 CSI, bidi and invisible characters, NUL, Rich markup and a formula lead
(`=HYPERLINK`); and every number at its extreme (unknown debug modes, negative and huge
device ids and output counts, negative and 2**40 dimensions, dtypes that do not exist,
fill values that claim 2**31 elements).

Expected, written before the run: every command's stdout and stderr (`report`, `--json`,
`--values`, `diff`, `export` to CSV) and every cell the app draws, in every pane it opens
(plain and `--compare`), hold no raw control character; CSV text cells never start a
formula; exit 0/1; never a traceback. These held: they guard what the sanitizer promises
across every field, not only op names and source lines (`test_tui_literal.py`).
"""

from __future__ import annotations

import asyncio
import csv
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, assert_no_raw_controls, child_env
from hostile.raw import append, base, event, tensor, trace, vector
from support.paths import ROOT
from support.tui import health, settle, sync

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from reader.proto import tfdbg_events_pb2 as pb

H = "=HYPERLINK(\"evil\")\x1b]52;c;cHduZWQ=\x07\u202e[bold]B[/]\x9b2J\u2066\ufeff"
FORMULA = ("=", "+", "-", "@", "\t", "\r")
KEYS = ["enter", "i", "escape", "tab", "enter", "v", "escape", "tab", "enter", "tab", "enter",
        "f", "tab", "enter", "tab", "enter", "n", "o", "i", "escape", "question_mark", "escape",
        "tab", "z", "z", "y", "tab", "enter", "end", "enter", "v", "escape", "b", "d"]


def strings_everywhere(path: Path) -> Path:
    with LogdirWriter(path, run_id="r" + H, hostname="h" + H.replace("/", "_"),
                      tensorflow_version=H, file_timestamp=1_700_000_000) as w:
        f = w.add_source_file("/p/" + H + ".py", [H, "x = 1" + H, "a\x00b"])
        frames = [w.add_stack_frame(f, 1, "@fn" + H), w.add_stack_frame(f, 2, "-fn\x00")]
        dev = w.add_device("+/device:" + H)
        g = "=g" + H
        w.add_graph(g, "+graph" + H)
        w.add_op(g, "Placeholder", "-x" + H, [], stack_frame_ids=frames, device_name="@" + H)
        w.add_op(g, "Log" + H, "=Log" + H, ["-x" + H + ":0"], stack_frame_ids=frames,
                 device_name="@" + H)
        for step in range(3):
            w.add_graph_trace(g, "=Log" + H, 0, "FULL_HEALTH",
                              health(2, 4, nan=step, pos=4 - step), device_name="@" + H,
                              wall_time=1_700_000_000 + step)
            w.add_execution("@Op" + H, "FULL_TENSOR", [np.array([np.nan, 1.0])],
                            input_tensor_ids=[1], output_tensor_ids=[100 + step],
                            stack_frame_ids=frames, wall_time=1_700_000_010 + step,
                            output_tensor_device_ids=[dev])
            w.add_execution("__inference_f" + H, "FULL_HEALTH", [health(-1, 1, nan=1)],
                            graph_id=g, stack_frame_ids=frames,
                            wall_time=1_700_000_020 + step)
    return path


def _execution(op: str, protos: list[pb.TensorProto], mode: int = 4, *, devices: tuple[int, ...]
               = (), num_outputs: int | None = None) -> bytes:
    e = pb.Execution(op_type=op, tensor_debug_mode=mode, output_tensor_device_ids=devices,
                     num_outputs=len(protos) if num_outputs is None else num_outputs)
    e.tensor_protos.extend(protos)
    e.code_location.host_name = "host"
    return event(execution=e)


def numbers_everywhere(path: Path) -> Path:
    b = base(path, bad=False)
    append(b.file("graphs"),
           event(debugged_device=pb.DebuggedDevice(device_name="/d:max", device_id=2**31 - 1)),
           event(debugged_device=pb.DebuggedDevice(device_name="/d:neg", device_id=-7)),
           event(debugged_device=pb.DebuggedDevice(device_name="/d:dup", device_id=1)))
    nan_log = vector(health(7, 12, nan=1))
    append(b.file("graph_execution_traces"),
           *[trace("Log", nan_log, mode=m, graph="g-cross-entropy")
             for m in (99, -1, 2**31 - 1, 8)],
           trace("Log", nan_log, slot=-1, graph="g-cross-entropy"))
    nan1 = vector(health(9, 1, nan=1))
    ft = 7  # FULL_TENSOR
    append(b.file("execution"),
           _execution("Relu", [nan1], mode=99), _execution("Relu", [nan1], mode=-5),
           _execution("Relu", [nan1], devices=(2**31 - 1, -3, 0)),
           _execution("Relu", [nan1], num_outputs=-4),
           _execution("Cast", [tensor(9999, (2,), tensor_content=b"\x01")], ft),
           _execution("Cast", [tensor(1, (-1, 3), tensor_content=struct.pack(
               "<3f", 1, float("nan"), 2))], ft),
           _execution("Cast", [tensor(1, (2**40, 2**40), tensor_content=b"\0" * 8)], ft),
           _execution("Cast", [tensor(19, (3,), tensor_content=b"\x00\x7e\x00")], ft),
           _execution("Cast", [tensor(14, (2,), half_val=[0x7FC0, 0x3F80])], ft),
           _execution("Cast", [tensor(1, (2**31,), float_val=[float("nan")])], ft),
           _execution("Cast", [tensor(21, (1,))], ft),
           _execution("Cast", [tensor(8, (2,), scomplex_val=[float("nan"), 1.0, 2.0])], ft),
           _execution("Cast", [tensor(9, (2,), int64_val=[2**63 - 1, -2**63])], ft))
    return path


FORGES = {"strings": strings_everywhere, "numbers": numbers_everywhere}


@pytest.fixture(scope="module")
def logdirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("attack-fields")
    return {name: forge(root / name) for name, forge in FORGES.items()}


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=child_env(), timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    assert_no_raw_controls(proc.stdout, f"{args[0]} stdout")
    assert_no_raw_controls(proc.stderr, f"{args[0]} stderr")
    return proc


def _number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("name", list(FORGES))
def test_every_command_shows_every_field_escaped(logdirs: dict[str, Path], name: str,
                                                 tmp_path: Path) -> None:
    ld = str(logdirs[name])
    for args in (["report", ld], ["report", "--json", "--values", ld],
                 ["report", "--values", "--limit", "100", ld], ["diff", ld, ld],
                 ["diff", "--json", ld, ld]):
        cli(*args)
    cli("export", ld, str(tmp_path / "csv"), "--format", "csv")
    tables = list((tmp_path / "csv").glob("*.csv"))
    assert tables
    for table in tables:
        with open(table, newline="") as f:
            for row in csv.reader(f):
                for cell in row:
                    assert not cell.startswith(FORMULA) or _number(cell), (table.name, cell)


def _drawn(app: Any) -> str:
    update = app.screen._compositor.render_full_update()
    return "\n".join("".join(seg.text for seg in strip)
                     for strips in update.strips for strip in strips)


@pytest.mark.parametrize("compare", [False, True], ids=["plain", "compare"])
@pytest.mark.parametrize("name", list(FORGES))
@sync
async def test_every_pane_draws_every_field_escaped(logdirs: dict[str, Path], name: str,
                                                    compare: bool) -> None:
    """The app walked through its panes and keys (follow, why, values, framework frames,
    next alert, origin, help, zoom, copy, B side, divergences): after each key, every cell
    on the screen and every notification."""
    from tfdbg_tui.ui.app import TfdbgApp

    app = TfdbgApp(DebugLogdir(str(logdirs[name])), follow=False,
                   compare_with=DebugLogdir(str(logdirs[name])) if compare else None)
    notes: list[str] = []
    notify = app.notify

    def recording(message: str, *args: Any, **kwargs: Any) -> None:
        notes.append(str(message))
        notify(message, *args, **kwargs)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test(size=(180, 50)) as pilot:
        await settle(app, pilot)
        if compare:
            await asyncio.wait_for(app.compared.wait(), HANG_GUARD)
        assert_no_raw_controls(_drawn(app), "first screen")
        for key in KEYS:
            await pilot.press(key)
            await settle(app, pilot)
            assert_no_raw_controls(_drawn(app), f"after {key}")
    for note in notes:
        assert_no_raw_controls(note, "notification")
