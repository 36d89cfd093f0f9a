"""The reference bug (`tfdbg-tui demo`), `report --json` carrying the diagnosis, and speed at scale.

The reference program (tests/programs/tf_program.py, kind `mlp`) computes
`probs = softmax(logits)` in the tf.function `train_step` and passes it to the tf.function
`cross_entropy`, which takes `tf.math.log(probs)`. Inside cross_entropy `probs` is a
Placeholder; TensorFlow records no call op for the nested call, so the diagnosis must find the
caller's Softmax output to count the zeros.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from support.paths import ROOT, tf_env

from reader import GRAPH, DebugLogdir, open_logdir
from reader.diagnosis import diagnose

pytestmark = pytest.mark.tf


@pytest.fixture(scope="session")
def reference(reference_logdir: str) -> DebugLogdir:
    return open_logdir(reference_logdir)


def rows_of(L: DebugLogdir, graph: str, op_name: str) -> np.ndarray:
    gids = [L.strings.lookup(g) for g, v in L.graphs.graphs.items() if v.name == graph]
    return np.flatnonzero(np.isin(L.traces.graph_id, gids)
                          & (L.traces.op_name == L.strings.lookup(op_name)))


def test_reference_names_log_in_cross_entropy_and_the_zeros_of_probs(reference: DebugLogdir
                                                                     ) -> None:
    L = reference
    a = L.alerts()
    first = diagnose(L, int(a.kind[0]), int(a.index[0]), int(a.slot[0]))
    assert (first.origin_op_type, first.origin_graph_name) == ("Log", "cross_entropy")
    # probs inside cross_entropy is fed by train_step's Softmax output: its health is the
    # Softmax trace just before the Log (counted from the columns, not from the diagnosis)
    log_row = first.origin_index
    softmax = rows_of(L, "train_step", "Softmax")
    softmax_row = int(softmax[softmax < log_row][-1])
    (probs,) = first.inputs
    assert probs.name == "probs:0"
    assert probs.zero == int(L.traces.zero[softmax_row]) > 0
    assert L.traces.neg_inf[log_row] == probs.zero  # log 0 = −∞, one per zero
    assert f"{probs.zero} zeros" in first.explanation and "probs:0" in first.explanation
    uf = first.origin_user_frame
    assert uf is not None and uf.function == "cross_entropy"
    assert "tf.math.log(probs)" in (first.origin_code or "")

    # a later alert downstream of the Log (Mul, Sum, …) walks back to the same origin
    mul_row = int(rows_of(L, "cross_entropy", "mul")[0])
    later = diagnose(L, GRAPH, mul_row)
    assert (later.origin_kind, later.origin_index) == (GRAPH, log_row)
    assert later.path[0].startswith("mul:0") and later.path[-1].startswith("Log:0")


def test_report_json_carries_the_diagnosis(reference_logdir: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--json", "--limit", "3",
                           reference_logdir], env=tf_env(), cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr  # alerts found
    report = json.loads(proc.stdout)
    first = report["first_alerts"][0]
    diag = first["diagnosis"]
    assert diag["origin"]["kind"] == "graph" and diag["origin"]["op_type"] == "Log"
    assert diag["origin"]["graph_name"] == "cross_entropy"
    assert diag["origin"]["user_frame"]["function"] == "cross_entropy"
    assert "tf.math.log(probs)" in diag["origin"]["user_frame"]["code"]
    (probs,) = diag["inputs"]
    assert set(probs) >= {"name", "nan", "neg_inf", "pos_inf", "zero", "negative", "positive",
                          "size"}
    assert probs["name"] == "probs:0" and probs["zero"] == first["neg_inf"]
    assert diag["path"][-1].startswith("Log:0")
    for entry in report["first_alerts"]:  # every detailed alert got one
        assert entry["diagnosis"]["origin"]["index"] == diag["origin"]["index"]

    human = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--limit", "1",
                            reference_logdir], env={**tf_env(), "COLUMNS": "300"}, cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert diag["explanation"] in human.stdout


def test_damaged_records_and_failures_never_break_the_report(reference_logdir: str,
                                                             tmp_path: object) -> None:
    """Damage every eager record: the report still builds; an impossible alert gets null."""
    import argparse
    import shutil
    from pathlib import Path

    from tfdbg_tui.commands.report import build_report
    from tfdbg_tui.commands.report.diagnosis import enrich

    dst = Path(str(tmp_path)) / "copy"
    shutil.copytree(reference_logdir, dst)
    L = open_logdir(str(dst))
    (path,) = list(dst.glob("*.execution"))
    data = bytearray(path.read_bytes())
    for off in L.executions.col("offset"):
        data[int(off) + 20] ^= 0xFF  # inside each payload: the CRC no longer matches
    path.write_bytes(bytes(data))
    report = build_report(L, limit=len(L.alerts()))
    assert all("diagnosis" in e for e in report["first_alerts"])
    assert report["first_alerts"][0]["diagnosis"]["origin"]["op_type"] == "Log"

    entry = {"kind": "graph", "index": len(L.traces) + 5, "output_slot": 0}
    enrich(L, entry, argparse.Namespace(values=False))
    assert entry["diagnosis"] is None
    assert any("no diagnosis" in w for w in L.all_warnings())


def test_diagnosis_of_a_million_traces_answers_as_on_the_run(reference_logdir: str) -> None:
    """The run repeated to a million traces in memory: the last Log (in the last repetition)
    and the last Negs are explained as on the run itself, the origin shifted by whole
    repetitions — the diagnosis index works on rows, whatever their number. How fast it is
    belongs to `make bench`, not here."""
    small = open_logdir(reference_logdir)
    L = open_logdir(reference_logdir)  # its own copy: the session's `reference` stays intact
    n = len(L.traces)
    reps = 1_000_000 // n + 1
    for name in L.traces.columns:
        L.traces._data[name] = np.tile(L.traces.col(name), reps)
    L.traces._n = L.traces._cap = n * reps
    assert len(L.traces) >= 1_000_000
    shift = (reps - 1) * n
    starts = [int(rows_of(small, "cross_entropy", "Log")[-1]),
              *(int(r) for r in rows_of(small, "cross_entropy", "Neg")[-5:])]
    for row in starts:
        want = diagnose(small, GRAPH, row)
        got = diagnose(L, GRAPH, row + shift)
        assert (got.origin_op_type, got.origin_graph_name, got.cause) == (
            want.origin_op_type, want.origin_graph_name, want.cause), row
        assert got.origin_index == want.origin_index + shift, row
