"""A diagnosis that fails on data it did not expect never takes `report` or the app down.

`reader.diagnosis` turns any unexpected exception of `diagnose`/`fed_by` into DiagnosisFailed
(a ReaderError) whose message is one line; `report` prints "diagnosis failed: …" under that
alert and in its JSON, and goes on. Under TFDBG_TUI_STRICT=1 (set for every suite but this
one) the original exception propagates instead, so a diagnosis bug fails the tests loudly.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hostile.checks import assert_no_raw_controls
from hostile.corpus import build

from reader import ReaderError, open_logdir
from reader.diagnosis import STRICT_ENV, DiagnosisFailed, _guarded, diagnose
from tfdbg_tui.commands.report.diagnosis import human_lines
from tfdbg_tui.commands.report.text import render_report


@_guarded
def _broken(values: list[int]) -> int:
    return max(v for v in values if v > 0)  # ValueError on nothing positive


@_guarded
def _damaged() -> None:
    raise ReaderError("graph trace #3: record at byte 12 cannot be parsed")


def test_unexpected_error_becomes_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)
    assert _broken([1, 5]) == 5
    with pytest.raises(DiagnosisFailed) as info:
        _broken([])
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("ValueError: max() ")
    raised_at = _broken.__wrapped__.__code__.co_firstlineno + 2  # type: ignore[attr-defined]
    assert message.endswith(f"(at test_diagnosis_failed.py:{raised_at})")
    assert isinstance(info.value, ReaderError)  # every caller already handles those


def test_reader_errors_pass_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)
    with pytest.raises(ReaderError) as info:
        _damaged()
    assert not isinstance(info.value, DiagnosisFailed)


def test_strict_mode_reraises(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "1")
    with pytest.raises(ValueError):
        _broken([])


def test_a_long_message_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STRICT_ENV, raising=False)

    @_guarded
    def long() -> None:
        raise KeyError("k" * 100_000 + "\nsecond line")

    with pytest.raises(DiagnosisFailed) as info:
        long()
    assert len(str(info.value)) < 400 and "second line" not in str(info.value)


def _report(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"logdir": "ld", "run": {"id": "r", "tensorflow_version": "2", "hosts": ["h"]},
            "runs": ["r"], "tensor_debug_modes": ["FULL_HEALTH"],
            "counts": dict.fromkeys(("executions", "graph_traces", "graphs", "ops",
                                     "source_files", "stack_frames"), 1),
            "alerts": {"total": len(entries)}, "first_alerts": entries, "warnings": []}


def test_report_prints_the_failure_under_its_alert() -> None:
    failed = {"kind": "graph", "index": 3, "op_type": "Log", "op_name": "l", "output_slot": 0,
              "diagnosis": None,
              "diagnosis_error": "diagnosis failed: ValueError: boom\x1b[2J (at x.py:1)"}
    ok = {**failed, "index": 4, "diagnosis_error": None}
    assert human_lines(failed) == [failed["diagnosis_error"]]
    assert human_lines(ok) == []
    text = "\n".join(str(r) for r in render_report(_report([failed, ok]))
                     if hasattr(r, "plain"))
    assert "diagnosis failed: ValueError: boom" in text
    assert_no_raw_controls(text, "report")


def _explanations(name: str, root: Path) -> list[str]:
    logdir = open_logdir(str(build(name, root).logdir))
    alerts = logdir.alerts()
    return [diagnose(logdir, int(alerts.kind[k]), int(alerts.index[k]), int(alerts.slot[k]))
            .explanation for k in range(len(alerts))]


def test_what_the_diagnosis_could_not_examine_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hostile items the diagnosis used to crash or hang on: it now says what is unknown
    (strict: an exception here is a failure, not a "diagnosis failed" line)."""
    monkeypatch.setenv(STRICT_ENV, "1")
    plus = _explanations("source_plus_200k", tmp_path)
    assert any("source not analysed (train.py: an expression is nested too deeply" in e
               for e in plus), plus
    (huge,) = _explanations("input_ids_huge", tmp_path)
    assert "lists 2,000,000 inputs: only the first 1,024 were examined" in huge
    assert huge.count("was not recorded") <= 6  # the rest counted, not listed
    no_inputs = _explanations("eager_math_no_inputs", tmp_path)
    assert len(no_inputs) == 15
    assert all("its inputs were not recorded" in e and "finite" not in e
               for e in no_inputs), no_inputs
    (deep,) = _explanations("deep_graph_nesting", tmp_path)
    assert deep.startswith("Log produced NaN")
