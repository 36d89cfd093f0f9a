"""`tfdbg-tui report --json` agrees with TensorFlow's DebugDataReader + InfNanMonitor.

Real logdirs written by real TensorFlow programs, in all six debug modes: eager ops,
tf.functions, nested functions with while loops, Keras `fit`, and the reference NaN case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from support.paths import ROOT, tf_env
from support.tf_oracle import tf_oracle

MODES = ["NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH", "SHAPE", "FULL_TENSOR"]
CASES = [(k, m) for k in ("mixed", "keras") for m in MODES] + [("mlp", "FULL_HEALTH")]


def report_json(logdir: str, *extra: str) -> tuple[int, dict[str, Any]]:
    proc = subprocess.run(
        [sys.executable, "-m", "tfdbg_tui", "report", "--json", logdir, *extra],
        capture_output=True, text=True, env=tf_env(), cwd=ROOT, timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout)


@pytest.mark.parametrize(("kind", "mode"), CASES, ids=[f"{k}-{m}" for k, m in CASES])
def test_report_matches_tensorflow(make_tf_logdir: Callable[..., str], kind: str,
                                   mode: str) -> None:
    logdir = make_tf_logdir(kind, mode)
    oracle = tf_oracle(logdir)
    status, report = report_json(logdir)

    assert report["counts"] == oracle["counts"]
    assert report["alerts"]["total"] == oracle["alerts_total"]
    assert report["alerts"]["by_type"]["inf_nan"] == oracle["alerts_total"]
    assert status == (1 if oracle["alerts_total"] else 0)
    assert report["run"]["id"] == oracle["run_id"]
    assert report["runs"] == [oracle["run_id"]]
    assert report["run"]["tensorflow_version"] == oracle["tensorflow_version"]
    assert report["tensor_debug_modes"] == [mode]
    can_reveal = mode not in ("NO_TENSOR", "SHAPE")
    assert any("cannot reveal NaN" in w for w in report["warnings"]) == (not can_reveal)

    first = oracle["first"]
    if first is None:
        assert report["first_alerts"] == []
        return
    ours = report["first_alerts"][0]
    for field in ("kind", "index", "op_type", "op_name", "output_slot", "size", "nan",
                  "neg_inf", "pos_inf", "stack"):
        assert ours[field] == first[field], field
    assert ours["wall_time"] == pytest.approx(first["wall_time"], abs=1e-6)
    # the user frame is the innermost frame in the test program itself
    program_frames = [f for f in first["stack"] if f["file"].endswith("tf_program.py")]
    assert ours["user_frame"]["file"] == program_frames[-1]["file"]
    assert ours["user_frame"]["line"] == program_frames[-1]["line"]


def test_reference_case_first_alert_is_log(reference_logdir: str) -> None:
    """The journey's hunt: the first alert is the Log op in cross_entropy, −∞ from log(0)."""
    status, report = report_json(reference_logdir, "--limit", "3")
    assert status == 1
    first = report["first_alerts"][0]
    assert first["op_type"] == "Log"
    assert first["graph_name"] == "cross_entropy"
    assert first["neg_inf"] > 0
    assert "tf.math.log(probs)" in first["user_frame"]["code"]
    assert len(report["first_alerts"]) == 3
    times = [a["wall_time"] for a in report["first_alerts"]]
    assert times == sorted(times)


def test_human_report_names_the_op_and_line(reference_logdir: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", reference_logdir],
                          capture_output=True, text=True, env=tf_env(), cwd=ROOT, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert "Log" in proc.stdout
    assert "tf.math.log(probs)" in proc.stdout
    assert "NaN/∞ events" in proc.stdout
