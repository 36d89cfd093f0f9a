"""Argument parsing the subcommands share: usage errors as exceptions, counts that are counts.

Why one module: argparse's default `error()` prints a usage block and exits, which is not the
one-line error with exit status 2 every command promises; and `--limit -1` must be refused,
not read as "no limit". Each command catches `UsageError` and prints it through
`error_line`.
"""

from __future__ import annotations

import argparse
from typing import NoReturn


class UsageError(Exception):
    """A command line the parser refused; its message is one line."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def count(text: str) -> int:
    """A count (`--limit`, `--tight-steps`): a negative one is a usage error, not "no limit"."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be ≥ 0: {text!r}")
    return value
