"""`tfdbg-tui --help` lists every option of every command (issue 31, point 6): a user reads
the top-level help first, and `diff`'s --tight-steps/--map/--csv and `--compare`'s options
were missing from it. Each command's own `--help` is the source of its options."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from support.slowdown import guard

COMMANDS = ("report", "diff", "run", "export", "index", "demo")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]+")


def _help(*args: str) -> str:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args, "--help"],
                          capture_output=True, text=True, timeout=guard(120))
    return proc.stdout + proc.stderr


@pytest.mark.parametrize("command", COMMANDS)
def test_top_level_help_lists_the_commands_options(command: str) -> None:
    top = _help()
    own = set(OPTION.findall(_help(command))) - {"--help"}
    assert own, f"{command} --help lists no option"
    missing = sorted(o for o in own if o not in top)
    assert not missing, f"tfdbg-tui --help omits {command}'s {missing}"


def test_top_level_help_lists_the_compare_options() -> None:
    top = _help()
    line = next(x for x in top.splitlines() if "--compare" in x)
    for option in ("--run-b", "--rtol", "--atol", "--map"):
        assert option in line
    own = _help("LOGDIR")  # the app's own help: every option it takes, --map among them
    assert "--map FILE" in own and "--compare" in own


def test_top_level_help_lists_its_own_options() -> None:
    """`--version` (-V) is an option of tfdbg-tui itself: the help said nothing of it."""
    top = _help()
    assert "--version" in top and "-V" in top
    version = subprocess.run([sys.executable, "-m", "tfdbg_tui", "--version"],
                             capture_output=True, text=True, timeout=guard(120))
    assert version.returncode == 0 and version.stdout.startswith("tfdbg-tui "), version


@pytest.mark.parametrize(("command", "statuses"), [
    ("report", ("0 no NaN/∞", "1 NaN/∞ found", "2 an error")),
    ("diff", ("0 equivalent", "1 they diverge", "2 an error", "3 too little"))])
def test_the_commands_a_script_branches_on_say_their_exit_statuses(
        command: str, statuses: tuple[str, ...]) -> None:
    """A CI script branches on `report`'s and `diff`'s status; 1 for "alerts found" or
    "diverge" is no error, and only the module docstrings said so."""
    text = " ".join(_help(command).split())
    assert "exit status:" in text, text[-300:]
    for said in statuses:
        assert said in text, (said, text[-300:])
