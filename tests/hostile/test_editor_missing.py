"""`e` with an $EDITOR that is not installed, in a real terminal (a pty): one line in the app,
and the screen stays the app's — before, the terminal was handed over for an editor that never
started and never given back (a blank screen, keys echoed as text, `q` ignored).

The app runs as the user runs it (`tfdbg-tui LOGDIR` on a pseudo-terminal); the test waits
for what the app draws, then for the process to end after `q`, each within a hang guard.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hostile.checks import child_env
from support.pty_app import Terminal
from test_untrusted_editor import forged_logdir


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux pty")
def test_a_missing_editor_is_one_line_and_the_app_goes_on(tmp_path: Path) -> None:
    source = tmp_path / "train.py"
    source.write_text("x = 1\n")
    forged_logdir(tmp_path / "logdir", str(source))
    env = child_env()
    env.update(TERM="xterm-256color", EDITOR=str(tmp_path / "no-such-editor"), VISUAL="",
               COLUMNS="160", LINES="45")
    for name in ("NO_COLOR",):
        env.pop(name, None)
    term = Terminal([str(tmp_path / "logdir")], env)
    try:
        term.wait_for("Log")
        term.keys(b"\r")  # follow the alert: its source file in Source Code
        term.wait_for("train.py")
        term.keys(b"5")
        term.keys(b"e")
        term.wait_for("no-such-editor")  # the one line saying so, drawn by the app
        term.keys(b"q")
        assert term.exit_status() == 0, term.screen[-2000:]
    finally:
        term.close()
