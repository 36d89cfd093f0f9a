"""`e` with an $EDITOR that is not installed, in a real terminal (a pty): one line in the app,
and the screen stays the app's — before, the terminal was handed over for an editor that never
started and never given back (a blank screen, keys echoed as text, `q` ignored).

The app runs as the user runs it (`tfdbg-tui LOGDIR` on a pseudo-terminal); the test waits
for what the app draws, then for the process to end after `q`, each within a hang guard.
"""

from __future__ import annotations

import os
import pty
import re
import select
import struct
import sys
import termios
import time
from fcntl import ioctl
from pathlib import Path

import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT
from test_untrusted_editor import forged_logdir

ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]")


class Terminal:
    """`tfdbg-tui ARGS` on a pty of 160x45; `screen` is everything it drew, escapes removed."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the app, on the pty
            os.chdir(ROOT)
            os.execve(sys.executable, [sys.executable, "-m", "tfdbg_tui", *args], env)
        ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 160, 0, 0))
        self.raw = b""

    @property
    def screen(self) -> str:
        return ANSI.sub(b"", self.raw).decode("utf-8", "replace")

    def pump(self, timeout: float) -> bool:
        """Read what the app drew within `timeout` s; False once the pty is closed."""
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return False
            if not data:
                return False
            self.raw += data
        return True

    def wait_for(self, text: str) -> None:
        deadline = time.monotonic() + HANG_GUARD
        while text not in self.screen:
            if time.monotonic() > deadline or not self.pump(0.1):
                pytest.fail(f"{text!r} never drawn; the screen:\n{self.screen[-2000:]}")

    def keys(self, data: bytes) -> None:
        os.write(self.fd, data)

    def exit_status(self) -> int | None:
        """The app's exit status once it ended (None: still running after the guard)."""
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline:
            self.pump(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        return None

    def close(self) -> None:
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


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
