"""`e` on a path from an untrusted logdir never runs a command (issue 21, point 1).

A logdir names its source files; a forged one can name `+!touch PWNED` (a file of that name
in the working directory), which vim reads as "run `!touch PWNED`" when it is passed as an
argument, or `-c…`, read as an option. The attack is real only with a real editor, so the
first tests use vim itself in Ex mode (`-es`: no terminal needed, it quits at the end of its
empty stdin) and check the one thing that matters: the file PWNED was not created. The others
use a real program standing in for $EDITOR that records the argv it got.
"""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path

import pytest
from support.tui import T0, health, record_notifications, settle, sync

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.core.editor import UnsafePath, editor_argv
from tfdbg_tui.ui.app import TfdbgApp

PROGRAM = ["import tensorflow as tf", "", "x = tf.zeros([3])", "y = tf.math.log(x)"]
LINE = 4


def forged_logdir(path: Path, source: str) -> None:
    """A run whose Log of zeros gives −∞, its one stack frame in file `source`."""
    w = LogdirWriter(path, run_id="run-1", hostname="host", tensorflow_version="2.21.0",
                     file_timestamp=int(T0))
    f = w.add_source_file(source, PROGRAM)
    frames = [w.add_stack_frame(f, LINE, "<module>")]
    gid = "1f0e7a3c-5b2d-4c1e-9a8f-000000000001"
    w.add_graph(gid, "step")
    w.add_op(gid, "Placeholder", "x", [], stack_frame_ids=frames)
    w.add_op(gid, "Log", "Log", ["x:0"], stack_frame_ids=frames)
    w.add_graph_trace(gid, "Log", 0, "FULL_HEALTH", health(2, 3, ninf=3, rank=1),
                      wall_time=T0)
    w.close()


async def press_e_on_the_alerts_source(tmp: Path, source: str) -> tuple[TfdbgApp, list[str]]:
    """(the app, every notification it posted) after `e` on the first alert's source."""
    app = TfdbgApp(DebugLogdir(str(tmp / "logdir")), follow=False)
    said = record_notifications(app)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await pilot.press("enter")  # follow the alert: Source Code shows the frame's file
        await settle(app, pilot)
        await pilot.press("5", "e")
        await settle(app, pilot)
    return app, said


VIM = shutil.which("vim")


@pytest.mark.skipif(VIM is None, reason="vim is not installed")
@pytest.mark.parametrize("name", ["+!touch PWNED", "-c!touch PWNED", "-c", "--cmd"])
@sync
async def test_a_path_from_the_logdir_is_never_a_vim_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    (work / name).write_text("\n".join(PROGRAM) + "\n")  # the file is "on this machine"
    if name in ("-c", "--cmd"):  # the next argument would be the command: make it one
        (work / "!touch PWNED").write_text("x\n")
    forged_logdir(tmp_path / "logdir", name)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", f"{VIM} -es -u NONE -i NONE -N")
    await press_e_on_the_alerts_source(tmp_path, name)
    assert not (work / "PWNED").exists(), "a command from the logdir ran"
    assert not (tmp_path / "PWNED").exists()


def recording_editor(tmp: Path, name: str) -> tuple[str, Path]:
    """A real executable called `name` that writes the arguments it was started with."""
    out = tmp / "argv.json"
    script = tmp / "bin" / name
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"#!{sys.executable}\nimport json, sys\n"
                      f"open({str(out)!r}, 'w').write(json.dumps(sys.argv[1:]))\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script), out


@pytest.mark.parametrize("editor", ["vim", "nano", "emacs", "code", "subl", "my-editor"])
@sync
async def test_every_editor_gets_an_absolute_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, editor: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    name = "-c!touch PWNED"
    (work / name).write_text("\n".join(PROGRAM) + "\n")
    forged_logdir(tmp_path / "logdir", name)
    program, out = recording_editor(tmp_path, editor)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", program)
    await press_e_on_the_alerts_source(tmp_path, name)
    argv = json.loads(out.read_text())
    absolute = str(work / name)
    expected = {"vim": [f"+{LINE}", "--", absolute],
                "nano": [f"+{LINE}", absolute], "emacs": [f"+{LINE}", absolute],
                "my-editor": [f"+{LINE}", absolute],
                "code": ["--goto", f"{absolute}:{LINE}"], "subl": [f"{absolute}:{LINE}"]}
    assert argv == expected[editor]


@pytest.mark.parametrize("path", ["+!touch x", "-c", "--cmd=x", "../a.py", "a.py"])
def test_editor_argv_never_passes_a_relative_path(path: str) -> None:
    for editor in ("vim", "nvim -p", "nano", "emacs -nw", "kak", "code --wait", "hx"):
        argv = editor_argv(path, 3, {"EDITOR": editor})
        assert argv is not None
        own = len(editor.split())
        tail = argv[own:]
        assert any(a.startswith("/") for a in tail), (editor, argv)
        assert all(a.startswith(("/", "+3", "--goto")) or a == "--" for a in tail), argv


@pytest.mark.parametrize("path", ["a\nb.py", "x\x1b]52;c;AAAA\x07.py", "nul\x00.py"])
def test_paths_with_control_characters_are_refused(path: str) -> None:
    with pytest.raises(UnsafePath):
        editor_argv(path, 3, {"EDITOR": "vim"})


@sync
async def test_e_on_a_refused_path_says_so_and_starts_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    name = "a\nb.py"
    (work / name).write_text("\n".join(PROGRAM) + "\n")
    forged_logdir(tmp_path / "logdir", name)
    program, out = recording_editor(tmp_path, "vim")
    monkeypatch.setenv("EDITOR", program)
    _, said = await press_e_on_the_alerts_source(tmp_path, name)
    assert not out.exists()
    assert any("control characters" in m for m in said), said
