"""The app as the user runs it: `tfdbg-tui ARGS` on a pseudo-terminal (`Terminal`).

For what only a real terminal shows: the screen handed over and given back (`e`), the
process ending after `q` while something else still runs. The test waits for what the app
draws and for the process to end, each within the hang guard (`support.slowdown`).
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

import pytest

from support.paths import ROOT
from support.slowdown import guard

HANG_GUARD = guard(120.0)
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

    def exit_status(self, within: float = HANG_GUARD) -> int | None:
        """The app's exit status once it ended (None: still running after `within` s)."""
        deadline = time.monotonic() + within
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
