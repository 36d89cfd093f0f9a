"""`tfdbg_tui.open()` on a logdir with nothing readable raises, as `report` exits 2 on it
(issue 30: it returned an empty run, which a notebook takes for "no alerts")."""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile.checks import run_report
from hostile.corpus_reads import six_empty

import tfdbg_tui
from reader import LogdirError


def test_open_on_nothing_readable_raises_as_report_exits_2(tmp_path: Path) -> None:
    case = six_empty(tmp_path / "ld")
    said = run_report([str(case.logdir)])
    assert said.status == 2
    with pytest.raises(LogdirError) as caught:
        tfdbg_tui.open(str(case.logdir))
    message = str(caught.value)
    assert "nothing readable" in message and "\n" not in message


@pytest.mark.parametrize("logdir", [None, 123, 1.5, ["a"]], ids=["None", "int", "float", "list"])
def test_open_on_what_is_no_path_is_a_type_error(logdir: object) -> None:
    """Before: AttributeError ('NoneType' object has no attribute 'lower') from the URL
    check deep inside — not an error a caller can take for a wrong argument."""
    with pytest.raises(TypeError, match="logdir must be a path"):
        tfdbg_tui.open(logdir)  # type: ignore[arg-type]


def test_open_takes_bytes_and_path_objects(tmp_path: Path) -> None:
    from support.tui import write_reference

    write_reference(tmp_path / "ref")
    for given in (tmp_path / "ref", str(tmp_path / "ref").encode()):
        run = tfdbg_tui.open(given)  # type: ignore[arg-type]
        assert run.logdir.num_alerts > 0
    with pytest.raises(TypeError, match="run must be"):
        tfdbg_tui.open(str(tmp_path / "ref"), run=5)  # type: ignore[arg-type]
