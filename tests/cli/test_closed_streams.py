"""A command started with a standard descriptor closed (`>&-`, `2>&-`, a daemon's or cron's
odd setup) or with an absurd terminal size ends as it would otherwise: one line, the right
status, never a traceback (issue 30, attacker round: with stdout closed `report` printed
AttributeError on None and ended 1 — its status for "alerts found"; with stderr closed a
missing logdir ended 1, not 2; COLUMNS=10**21 was an OverflowError traceback from rich).

Run from a shell as a user would (`bash -c 'exec … >&-'`), on the reference logdir.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hostile.checks import child_env
from support.paths import ROOT
from support.slowdown import guard
from support.tui import write_reference


def _run(redirect: str, *args: str, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str]:
    script = f'exec "$0" -m tfdbg_tui "$@" {redirect}'
    return subprocess.run(["bash", "-c", script, sys.executable, *args], cwd=ROOT,
                          env={**child_env(), **(env or {})}, capture_output=True, text=True,
                          timeout=guard(120))


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> str:
    d = tmp_path_factory.mktemp("closed") / "ref"
    write_reference(d)
    return str(d)


@pytest.mark.parametrize("command", [["report"], ["report", "--json"], ["diff", "--json"],
                                     ["open"]], ids=lambda c: "-".join(c))
def test_stdout_closed_is_one_line_and_status_2(ref: str, command: list[str]) -> None:
    args = [*command[1:], ref, ref] if command[0] == "diff" else [*command[1:], ref]
    if command[0] != "open":
        args = [command[0], *args]
    proc = _run(">&-", *args)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("tfdbg-tui"), lines


def test_stderr_closed_keeps_the_status(tmp_path: Path) -> None:
    proc = _run("2>&-", "report", str(tmp_path / "missing"))
    assert proc.returncode == 2 and proc.stdout == "", proc


def test_stdin_closed_changes_nothing(ref: str) -> None:
    proc = _run("<&-", "report", ref)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc


@pytest.mark.parametrize("columns", ["1000000000000", "1000000000000000000000"])
def test_an_absurd_terminal_width_is_no_traceback(ref: str, columns: str) -> None:
    proc = _run("", "report", ref, env={"COLUMNS": columns})
    assert proc.returncode == 1 and proc.stderr == "", proc.stderr[-2000:]
    assert "incident" in proc.stdout
