"""Usage errors of every command are one line on stderr, exit 2 (issue 30: "no traceback, one
line"): `index --workers 0`, `index --engine bogus` and `LOGDIR --rtol nan` printed the error
and then a usage line, where `report` and `diff` print one line. Run in-process: every case
is refused before a logdir is read, TensorFlow or Textual imported.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tfdbg_tui.cli import main

CASES = {
    "index-workers-0": (["index", "{ld}", "--workers", "0"], "--workers"),
    "index-workers-word": (["index", "{ld}", "--workers", "many"], "--workers"),
    "index-engine-bogus": (["index", "{ld}", "--engine", "bogus"], "engine 'bogus'"),
    "index-engine-local-address": (["index", "{ld}", "--engine", "local=x"], "engine"),
    "index-unknown-option": (["index", "{ld}", "--bogus"], "--bogus"),
    "index-no-logdir": (["index"], "logdir"),
    "open-rtol-nan": (["{ld}", "--rtol", "nan"], "--rtol"),
    "open-atol-negative": (["{ld}", "--atol=-1"], "--atol"),
    "open-rtol-word": (["{ld}", "--rtol", "tight"], "--rtol"),
    "open-unknown-option": (["{ld}", "--bogus"], "--bogus"),
    "open-compare-missing": (["{ld}", "--compare"], "--compare"),
    "open-two-logdirs": (["{ld}", "{ld}"], "unrecognized"),
    "cache-bogus": (["cache", "bogus"], "bogus"),
    "report-limit-negative": (["report", "{ld}", "--limit", "-1"], "--limit"),
    "diff-rtol-nan": (["diff", "{ld}", "{ld}", "--rtol", "nan"], "--rtol"),
    "export-format": (["export", "{ld}", "{ld}/out", "--format", "xml"], "--format"),
    "demo-unknown-option": (["demo", "--bogus"], "--bogus"),
    "run-unknown-option": (["run", "--bogus", "--", "x.py"], "--bogus"),
}


@pytest.mark.parametrize(("args", "names"), list(CASES.values()), ids=list(CASES))
def test_usage_error_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 args: list[str], names: str) -> None:
    status = main([a.replace("{ld}", str(tmp_path)) for a in args])
    out, err = capsys.readouterr()
    assert status == 2, err
    assert out == "" and err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("tfdbg-tui") and ": error: " in err and names in err, err
    assert "usage:" not in err
