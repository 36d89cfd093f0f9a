"""Health read back from the records in bulk (the compiled `read_summaries`) is the Python
read-back's, row for row — whatever the rows asked for, however the file is cut into
chunks, and after the file changed under the index.

`test_native_fallback.py` compares the two on every logdir it indexes; this file covers what
only a read-back meets: records damaged or gone since they were indexed, rows in any order
and repeated, records longer than a chunk, and the raw `summaries` a comparison uses.
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import reader.index.detail as detail
from reader import DebugLogdir, open_logdir
from reader.index import health as H
from reader.modes import VECTOR_LEN

TABLES = ("traces", "outputs")


@pytest.fixture(autouse=True)
def _needs_native() -> None:
    if detail.native is None:
        pytest.skip("compiled core not built or disabled")


def _rows(n: int, seed: int) -> np.ndarray:
    """Every row, shuffled, then some again."""
    rng = np.random.default_rng(seed)
    rows = rng.permutation(n)
    return np.concatenate([rows, rng.integers(0, n, size=min(n, 300))])


def _both(logdir: DebugLogdir, name: str, rows: np.ndarray,
          monkeypatch: pytest.MonkeyPatch) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    table = getattr(logdir, name)
    with monkeypatch.context() as m:
        m.setattr(detail, "BULK_ROWS", 1)
        bulk = table.detail(table, rows)
    return bulk, table.detail(table, rows, bulk=False)


def _assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray], what: str) -> None:
    assert a.keys() == b.keys()
    for column in a:
        np.testing.assert_array_equal(a[column], b[column], err_msg=f"{what}: {column}")


@pytest.mark.parametrize("mode", ["FULL_HEALTH", "CURT_HEALTH", "CONCISE_HEALTH", "SHAPE",
                                  "NO_TENSOR", "FULL_TENSOR"])
@pytest.mark.parametrize(("chunk", "tail"), [(4 << 20, 16 << 10), (300, 40), (64, 1)])
def test_same_health_for_any_rows_and_chunks(make_tf_logdir: Callable[..., str],
                                             monkeypatch: pytest.MonkeyPatch, mode: str,
                                             chunk: int, tail: int) -> None:
    """Tiny chunks cut records at every place; a record longer than a chunk goes to Python."""
    logdir = open_logdir(make_tf_logdir("mixed", mode))
    monkeypatch.setattr(detail, "_CHUNK", chunk)
    monkeypatch.setattr(detail, "_TAIL", tail)
    for name in TABLES:
        n = len(getattr(logdir, name))
        assert n > 0, name
        bulk, python = _both(logdir, name, _rows(n, 1), monkeypatch)
        _assert_same(bulk, python, f"{mode} {name} chunk {chunk}")


def _damage(path: Path, how: str) -> None:
    blob = bytearray(path.read_bytes())
    rng = random.Random(how)
    if how == "flipped":  # bits inside payloads: CRCs fail, protobuf may still parse
        for at in range(40, len(blob), 97):
            blob[at] ^= 0x10
    elif how == "truncated":
        blob = blob[: len(blob) // 2]
    elif how == "random":
        for _ in range(60):
            blob[rng.randrange(len(blob))] = rng.randrange(256)
    elif how == "emptied":
        blob = bytearray()
    path.write_bytes(bytes(blob))


@pytest.mark.parametrize("how", ["flipped", "truncated", "random", "emptied", "replaced"])
def test_same_health_after_the_file_changed(make_tf_logdir: Callable[..., str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """Rows whose record is no longer what was indexed read back as unknown, both ways."""
    d = tmp_path / "ld"
    shutil.copytree(make_tf_logdir("mixed", "FULL_HEALTH"), d)
    logdir = open_logdir(str(d))
    for suffix in ("graph_execution_traces", "execution"):
        (path,) = d.glob(f"*.{suffix}")
        if how == "replaced":  # a FIFO where the file was: never waited on
            path.unlink()
            os.mkfifo(path)
        else:
            _damage(path, how)
    changed = 0
    for name in TABLES:
        n = len(getattr(logdir, name))
        bulk, python = _both(logdir, name, _rows(n, 2), monkeypatch)
        _assert_same(bulk, python, f"{how} {name}")
        changed += int((bulk["size"] == -1).sum())
    assert changed > 0  # the damage was seen, not read around


@pytest.mark.parametrize("mode", ["FULL_HEALTH", "CURT_HEALTH", "CONCISE_HEALTH", "SHAPE",
                                  "NO_TENSOR"])
def test_summaries_are_what_the_columns_are_made_of(make_tf_logdir: Callable[..., str],
                                                    mode: str) -> None:
    """Each raw summary `summaries` gives is its row's mode's, and decodes to its row's
    health columns (those read back: an eager output's tensor id is the execution's);
    rows it cannot give are marked -1, never guessed."""
    logdir = open_logdir(make_tf_logdir("mixed", mode))
    taken = 0
    for name in TABLES:
        table = getattr(logdir, name)
        rows = _rows(len(table), 3)
        s = table.detail.summaries(table, rows)
        columns = table.detail(table, rows, bulk=False)
        modes = (np.asarray(table.mode)[rows] if name == "traces"
                 else np.asarray(logdir.executions.mode)[np.asarray(table.execution)[rows]])
        got = np.flatnonzero(s.mode >= 0)
        np.testing.assert_array_equal(s.mode[got], modes[got])
        for m in np.unique(s.mode[got]).tolist():
            at = got[s.mode[got] == m]
            h = H.empty_health(len(at))
            H.fill_from_vectors(h, np.arange(len(at)), m, s.vectors[at, :VECTOR_LEN[m]])
            for column in H.LAYOUT[m]:
                if column is not None and column not in table.columns:  # not stored
                    np.testing.assert_array_equal(h[column], columns[column][at], err_msg=column)
        taken += len(got)
    if mode == "NO_TENSOR":
        assert taken == 0
    else:
        assert taken > 0
