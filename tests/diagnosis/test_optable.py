"""The op table (reader/diagnosis/optable.json) covers the installed TensorFlow's registry.

Every op of `tf.raw_ops` with a floating input or output is either in a family (how it can
make NaN/∞ from finite inputs) or listed as unable to; the registry is read in a child
process by tools/make_optable.py (the reader never imports TensorFlow).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from support.paths import ROOT, tf_env

from reader.diagnosis import optable

FAMILIES = {"overflow", "division", "domain", "pole", "singular", "not_positive_definite",
            "empty", "alignment", "gradient", "optimizer", "parse", "quantization"}


@pytest.mark.tf
def test_every_floating_op_of_the_registry_is_in_the_table() -> None:
    pytest.importorskip("tensorflow")
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "make_optable.py"),
                           "--floating"], env=tf_env(), capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    floating = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(floating) > 500  # the registry was read, not an empty list
    missing = [op for op in floating if not optable.known(op)]
    assert not missing, f"{len(missing)} floating ops not in optable.json: {missing[:20]}"
    assert optable.covered() >= len(floating)


def test_the_table_is_consistent() -> None:
    """Families are the ones the explanations know; no op is both in a family and unable."""
    data = json.loads((ROOT / "reader" / "diagnosis" / "optable.json").read_text())
    assert set(data["families"]) == FAMILIES
    assert set(data["ops"].values()) <= FAMILIES
    assert not set(data["ops"]) & set(data["cannot"])
    assert data["covered"] == len(data["ops"]) + len(data["cannot"]) == optable.covered()
    for fam in FAMILIES:
        text = optable.family_text(fam)
        assert text["when"] and text["tells"] and text["fix"], fam


@pytest.mark.parametrize(("op", "family"), [
    ("LogMatrixDeterminant", "singular"), ("Cholesky", "not_positive_definite"),
    ("CTCLoss", "alignment"), ("Lgamma", "pole"), ("Betainc", "domain"),
    ("Cumprod", "overflow"), ("Mean", "empty"), ("RealDiv", "division"),
    ("ResourceApplyAdam", "optimizer"), ("StringToNumber", "parse")])
def test_families_of_known_ops(op: str, family: str) -> None:
    assert optable.family(op) == family


@pytest.mark.parametrize("op", ["Reshape", "Relu", "Softmax", "Sigmoid", "MaxPool",
                                "RandomStandardNormal", "ReadVariableOp", "GatherV2"])
def test_ops_that_cannot_make_nan(op: str) -> None:
    assert optable.cannot(op) and optable.family(op) is None


def test_integer_inputs_are_listed() -> None:
    assert set(optable.nonfloat_inputs("CTCLoss").values()) == {
        "labels_indices", "labels_values", "sequence_length"}
    assert optable.nonfloat_inputs("Log") == {}
    assert not optable.known("MyCustomKernel")
