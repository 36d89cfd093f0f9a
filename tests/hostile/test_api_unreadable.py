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
