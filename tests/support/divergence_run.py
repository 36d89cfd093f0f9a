"""The zoo's learning-rate divergence (tests/programs/zoo/x_learning_rate_divergence.py)
recorded in a chosen mode, once per test run and kept for the next (support.recordings): its
first alert's diagnosis is the divergence story (the weights grew step after step until a
Square overflowed). `eager=True` records the
same program with its step run eagerly (the @tf.function decorator taken off)."""

from __future__ import annotations

import hashlib
import os

import pytest

from support.paths import PROGRAMS
from support.recordings import cache_root, recorded_program

ZOO = PROGRAMS / "zoo" / "x_learning_rate_divergence.py"


def divergence_logdir(tmp_path_factory: pytest.TempPathFactory, mode: str,
                      eager: bool = False) -> str:
    """Path of the program's logdir recorded in `mode` (FULL_HEALTH, FULL_TENSOR…)."""
    pytest.importorskip("tensorflow")

    text = ZOO.read_text().replace('"FULL_HEALTH"', f'"{mode}"')
    if eager:
        assert "\n@tf.function\n" in text
        text = text.replace("\n@tf.function\n", "\n")
    # the program as run, at a path that stays (its recorded stacks name it): by its content
    prog = cache_root() / "programs" / (
        f"divergence-{hashlib.sha256(text.encode()).hexdigest()[:16]}.py")
    if not prog.is_file() or prog.read_text() != text:
        prog.parent.mkdir(exist_ok=True)
        fresh = prog.with_suffix(f".{os.getpid()}")
        fresh.write_text(text)
        os.replace(fresh, prog)
    key = f"divergence-{mode.lower()}" + ("-eager" if eager else "")
    return recorded_program(tmp_path_factory, key, prog)
