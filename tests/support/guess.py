"""Temporary names an attacker guessed: the random token of every other name made known.

The writers (`reader.io.safewrite`) name their temporaries with `secrets.token_hex`; a test
that plants symlinks at guessed names only proves something if the writer does pick those
names. With `predictable_tokens`, each thread's 1st, 3rd, 5th… token is `GUESSED` (the others
stay random): every temporary is first tried at a name known in advance, so a writer that
opened it without `O_EXCL | O_NOFOLLOW` would write through what was planted there.
"""

from __future__ import annotations

import secrets
import threading

import pytest

GUESSED = "0123456789abcdef"


def predictable_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    real = secrets.token_hex
    calls = threading.local()

    def token_hex(n: int | None = None) -> str:
        calls.n = getattr(calls, "n", -1) + 1
        return GUESSED if calls.n % 2 == 0 else real(n)

    monkeypatch.setattr(secrets, "token_hex", token_hex)
