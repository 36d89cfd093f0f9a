"""The zoo's learning-rate divergence (tests/programs/zoo/x_learning_rate_divergence.py)
recorded in a chosen mode, once per test run: its first alert's diagnosis is the divergence
story (the weights grew step after step until a Square overflowed). `eager=True` records the
same program with its step run eagerly (the @tf.function decorator taken off)."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.paths import PROGRAMS
from support.shared import build_once, shared_root
from support.tf_fork import run_program

ZOO = PROGRAMS / "zoo" / "x_learning_rate_divergence.py"


def divergence_logdir(tmp_path_factory: pytest.TempPathFactory, mode: str,
                      eager: bool = False) -> str:
    """Path of the program's logdir recorded in `mode` (FULL_HEALTH, FULL_TENSOR…)."""
    pytest.importorskip("tensorflow")

    def build(d: Path) -> str:
        prog = d / "prog.py"
        text = ZOO.read_text().replace('"FULL_HEALTH"', f'"{mode}"')
        if eager:
            assert "\n@tf.function\n" in text
            text = text.replace("\n@tf.function\n", "\n")
        prog.write_text(text)
        status, output = run_program([prog, d / "logdir"])
        if status != 0:
            pytest.fail(f"the divergence program failed (status {status}):\n{output[-3000:]}")
        return str(d / "logdir")

    key = f"divergence-{mode.lower()}" + ("-eager" if eager else "")
    return build_once(shared_root(tmp_path_factory), key, build)
