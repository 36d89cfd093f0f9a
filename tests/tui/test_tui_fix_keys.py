"""From the line to the fix (issue 9): `e` opens the editor, `w` saves the logdir's copy of a
file that is not here, `y` copies; the header says whether the run still grows; TF1 runs and
devices are named for people.

The editor is a real program (a Python script standing in for $EDITOR that writes its argv
to a file); the clipboard is what the app handed to the terminal (`app.clipboard`).
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from support.slowdown import WAIT
from support.tui import T0, health, record_notifications, settle, sync

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.core.editor import editor_argv, save_source, snapshot_path
from tfdbg_tui.core.liveness import activity
from tfdbg_tui.core.names import short_device
from tfdbg_tui.ui.app import TfdbgApp

PROGRAM = ["import tensorflow as tf", "", "x = tf.zeros([3])", "y = tf.math.log(x)",
           "print(y)"]
LOG_LINE = 4
CPU = "/job:localhost/replica:0/task:0/device:CPU:{}"


def write_logdir(path: Path, source: str, *, graph_name: str = "step", eager: bool = True,
                 devices: tuple[int, ...] = (0,)) -> None:
    """One graph whose Log of zeros gives −∞ (traced once per device), written at `source`."""
    w = LogdirWriter(path, run_id="run-1", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=int(T0))
    f = w.add_source_file(source, PROGRAM)
    frames = [w.add_stack_frame(f, LOG_LINE, "<module>")]
    gid = "1f0e7a3c-5b2d-4c1e-9a8f-000000000001"
    w.add_graph(gid, graph_name)
    w.add_op(gid, "Placeholder", "x", [], stack_frame_ids=frames)
    for d in devices:
        w.add_op(gid, "Log", f"replica_{d}/Log" if d else "Log", ["x:0"],
                 stack_frame_ids=frames, device_name=CPU.format(d))
    for k, d in enumerate(devices):
        w.add_graph_trace(gid, f"replica_{d}/Log" if d else "Log", 0, "FULL_HEALTH",
                          health(2, 3, ninf=3, rank=1), device_name=CPU.format(d),
                          wall_time=T0 + k)
    if eager:
        w.add_execution("__inference_step_7", "FULL_HEALTH", [health(-1, 3, ninf=3, rank=1)],
                        graph_id=gid, output_tensor_ids=[9], stack_frame_ids=frames,
                        wall_time=T0 + 5)
    w.close()


def age(logdir: Path, seconds: float) -> None:
    """Make every file of the logdir look last written `seconds` ago."""
    when = os.stat(logdir).st_mtime - seconds
    for p in logdir.iterdir():
        os.utime(p, (when, when))


def recording_editor(tmp: Path) -> tuple[str, Path]:
    """A real executable that writes the arguments it was started with to a JSON file."""
    out = tmp / "argv.json"
    script = tmp / "vim"
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(out)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), out


@sync
async def test_e_opens_the_editor_at_the_line_of_the_source_pane(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "prog.py"
    source.write_text("\n".join(PROGRAM) + "\n")
    write_logdir(tmp_path / "logdir", str(source))
    editor, out = recording_editor(tmp_path)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("5")  # Source Code
        await pilot.press("e")
        await settle(app, pilot)
        assert json.loads(out.read_text()) == [f"+{LOG_LINE}", "--", str(source)]
        out.unlink()
        await pilot.press("6")  # Stack Trace: its selected frame
        await pilot.press("e")
        await settle(app, pilot)
        assert json.loads(out.read_text()) == [f"+{LOG_LINE}", "--", str(source)]


@sync
async def test_e_on_a_file_from_elsewhere_says_so_and_w_saves_the_logdirs_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    elsewhere = "/nonexistent/other-machine/project/prog.py"
    write_logdir(tmp_path / "logdir", elsewhere)
    editor, out = recording_editor(tmp_path)
    monkeypatch.setenv("EDITOR", editor)
    monkeypatch.setenv("TFDBG_TUI_SAVE_DIR", str(tmp_path / "saved"))
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    said = record_notifications(app)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("5", "e")
        await settle(app, pilot)
        assert not out.exists()
        assert any("not on this machine" in m and "w " in m for m in said), said
        await pilot.press("w")
        await settle(app, pilot)
    saved = tmp_path / "saved" / "nonexistent" / "other-machine" / "project" / "prog.py"
    assert saved.read_text().splitlines() == PROGRAM


@sync
async def test_y_copies_file_line_on_source_and_stack_and_names_in_lists(
        tmp_path: Path) -> None:
    source = "/home/user/prog.py"
    write_logdir(tmp_path / "logdir", source)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("5", "y")
        assert app.clipboard == f"{source}:{LOG_LINE}"
        app.copy_to_clipboard("")
        await pilot.press("6", "y")
        assert app.clipboard == f"{source}:{LOG_LINE}"
        await pilot.press("3", "y")  # Graph Executions: the tensor's name
        assert app.clipboard == "Log:0"
        await pilot.press("1", "y")  # Alerts: the alert's tensor
        assert app.clipboard == "Log:0"


@sync
async def test_header_is_live_only_while_the_files_grow(tmp_path: Path) -> None:
    fresh, old = tmp_path / "fresh", tmp_path / "old"
    write_logdir(fresh, "/p.py")
    write_logdir(old, "/p.py")
    age(old, 3 * 3600)
    for path, live in ((fresh, True), (old, False)):
        app = TfdbgApp(DebugLogdir(str(path)), follow=True, poll_interval=30)
        async with app.run_test(size=(200, 50)) as pilot:
            await asyncio.wait_for(app.indexed.wait(), WAIT)  # the follow worker never ends
            await pilot.pause()
            header = str(app.screen.query_one("#header-line").render())
            assert ("● live" in header) is live, header
            assert ("idle since" in header) is not live, header


def test_activity_words() -> None:
    now = 1_800_000_000.0
    assert activity(now - 2, now) == ("● live", True)
    assert activity(now - 180, now) == ("last grew 3 min ago", False)
    words, live = activity(now - 5 * 3600, now)
    assert words.startswith("idle since ") and not live
    assert activity(None, now) == ("● read", False)


@sync
async def test_tf1_session_graph_and_timeline_say_graph_mode(tmp_path: Path) -> None:
    write_logdir(tmp_path / "logdir", "/p.py", graph_name="", eager=False)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        s = app.main
        assert s is not None
        text = "\n".join(s.structure.lines())
        assert "(Session graph)" in text and "1f0e7a3c" not in text, text
        assert "graph mode (TF1 Session)" in s.timeline.vlist.empty_text
        assert "(yet)" not in s.timeline.vlist.empty_text


@sync
async def test_device_is_shown_per_trace_and_replicas_differ(tmp_path: Path) -> None:
    write_logdir(tmp_path / "logdir", "/p.py", devices=(0, 1))
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        rows = [s.ge._row(i, 180).plain for i in range(2)]
        assert "CPU:0" in rows[0] and "CPU:1" in rows[1], rows
        s.show_trace(1)
        await settle(app, pilot)
        assert any(line.strip() == CPU.format(1) for line in s.structure.lines())
        await pilot.press("3", "v")  # the value view of the selected trace (#1)
        await settle(app, pilot)
        title = str(app.screen.query_one("#vi-title").render())
        assert "on CPU:1" in title, title


def test_editor_argv_styles() -> None:
    assert editor_argv("/a b/f.py", 7, {"EDITOR": "nvim -p"}) == [
        "nvim", "-p", "+7", "--", "/a b/f.py"]
    assert editor_argv("/f.py", 7, {"VISUAL": "code --wait", "EDITOR": "vi"}) == [
        "code", "--wait", "--goto", "/f.py:7"]
    assert editor_argv("/f.py", 3, {"EDITOR": "emacs -nw"}) == ["emacs", "-nw", "+3", "/f.py"]
    assert editor_argv("/f.py", 3, {"EDITOR": "subl"}) == ["subl", "/f.py:3"]


def test_saved_copies_stay_inside_the_folder(tmp_path: Path) -> None:
    base = tmp_path / "out"
    p = snapshot_path("/../../etc/passwd", str(base))
    assert Path(p).resolve().is_relative_to(base.resolve())
    (tmp_path / "target").write_text("keep")
    base.mkdir()
    (base / "x.py").symlink_to(tmp_path / "target")
    with pytest.raises(OSError):
        save_source("x.py", ["print(1)"], str(base))
    assert (tmp_path / "target").read_text() == "keep"


def test_short_device() -> None:
    assert short_device(CPU.format(1)) == "CPU:1"
    assert short_device("/job:worker/replica:0/task:2/device:GPU:0") == "worker:2/GPU:0"
    assert short_device("") == ""


@sync
async def test_reader_warnings_are_shown_under_the_alerts(tmp_path: Path) -> None:
    w = LogdirWriter(tmp_path / "logdir", run_id="run-1", hostname="host",
                     tensorflow_version="2.21.0", file_timestamp=int(T0))
    gid = "g-1"
    w.add_graph(gid, "step")
    w.add_op(gid, "Log", "Log", [])
    w.add_graph_trace(gid, "Log", 0, "NO_TENSOR", None, wall_time=T0)
    w.close()
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        box = app.screen.query_one("#alerts-warnings")
        shown = str(box.render())
        assert box.display and "NO_TENSOR" in shown and "cannot reveal NaN" in shown, shown
