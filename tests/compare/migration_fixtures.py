"""The migration runs (tests/programs/migration/) recorded once per session, and their marks.

Each program runs unmodified under `tfdbg-tui run` in its own process, as a user records it:
the TF1 Session program (FULL_TENSOR and FULL_HEALTH), its guide-style TF2 rewrite called
eagerly and in `tf.function`, and the Keras `fit` / `train_on_batch` rewrite, in the variants
the tests need. Seventeen short processes, each forked from one that imported TensorFlow
already (support.tf_fork: `python -m tfdbg_tui run …` in a fork, its recorded stacks as a
fresh process records them), one after another: the import was ~3.5 s of CPU of each run's
~4-5.

Expected lines come from the programs' comments: `# MIGRATION-BUG: <variant>` on the rewrite's
mistaken line, `# MIGRATION-A: <variant> ...` on the TF1 line it corresponds to.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import PROGRAMS, ROOT, tf_env
from support.recordings import recorded_run
from support.slowdown import guard

MIGRATION = PROGRAMS / "migration"
TF1 = "tf1_session.py"
CUSTOM = "tf2_custom.py"
KERAS = "tf2_keras.py"
STEPS = 3  # migration_common.STEPS
VARIABLES = 6  # three dense layers, a kernel and a bias each

# name → (program, mode, program arguments)
RUNS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "tf1": (TF1, "FULL_TENSOR", ()),
    "tf1_health": (TF1, "FULL_HEALTH", ()),
    "tf1_logged": (TF1, "FULL_TENSOR", ("--variant", "logged")),
    "eager": (CUSTOM, "FULL_TENSOR", ("--form", "eager")),
    "eager_logged": (CUSTOM, "FULL_TENSOR", ("--form", "eager", "--variant", "logged")),
    "eager_end_lr": (CUSTOM, "FULL_TENSOR", ("--form", "eager", "--variant", "end_lr")),
    "eager_relu": (CUSTOM, "FULL_TENSOR", ("--form", "eager", "--variant", "relu")),
    "eager_no_tensor": (CUSTOM, "NO_TENSOR", ("--form", "eager")),
    "function": (CUSTOM, "FULL_TENSOR", ("--form", "function")),
    "function_logged": (CUSTOM, "FULL_TENSOR", ("--form", "function", "--variant", "logged")),
    "function_from_logits": (CUSTOM, "FULL_TENSOR",
                             ("--form", "function", "--variant", "from_logits")),
    "fit": (KERAS, "FULL_TENSOR", ("--api", "fit")),
    "train_on_batch": (KERAS, "FULL_TENSOR", ("--api", "train_on_batch")),
    "fit_initializer": (KERAS, "FULL_TENSOR", ("--variant", "initializer")),
    "fit_nobias": (KERAS, "FULL_TENSOR", ("--variant", "nobias")),
    "fit_dtype": (KERAS, "FULL_TENSOR", ("--variant", "dtype")),
    "fit_momentum": (KERAS, "FULL_TENSOR", ("--variant", "momentum")),
}


@pytest.fixture(scope="session")
def migration_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """name → logdir of every run in RUNS."""
    pytest.importorskip("tensorflow")
    out = {}
    for name, (program, mode, extra) in RUNS.items():  # kept for the next runs
        out[name], _ = recorded_run(tmp_path_factory, f"migration-{name}", MIGRATION / program,
                                    *extra, options=("--mode", mode))
    return out


def marked_lines(program: str, side: str, variant: str) -> set[int]:
    """1-based lines of `program` marked `# MIGRATION-<side>: ... <variant> ...` (side "A"
    or "BUG"). More than one A line when the mistake touches several variables at once (a
    layer's dtype: its kernel and its bias), any of which is a right answer."""
    pattern = re.compile(rf"#\s*MIGRATION-{side}:([\w ]+)")
    hits = set()
    for number, line in enumerate((MIGRATION / program).read_text().splitlines(), 1):
        m = pattern.search(line)
        if m and variant in m.group(1).split():
            hits.add(number)
    assert hits, f"{program}: no line marked MIGRATION-{side}: {variant}"
    return hits


def marked_line(program: str, side: str, variant: str) -> int:
    """The one line of `program` marked for `variant` on `side` (see `marked_lines`)."""
    (line,) = marked_lines(program, side, variant)
    return line


def run_diff(*args: str) -> tuple[int, str, str]:
    """`tfdbg-tui diff ARGS` in a fresh process: (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "diff", *args], cwd=ROOT,
                          env=tf_env(), capture_output=True, text=True, timeout=guard(300))
    return proc.returncode, proc.stdout, proc.stderr


_DIFFS: dict[tuple[str, ...], tuple[int, dict[str, Any]]] = {}


def diff_json(*args: str) -> tuple[int, dict[str, Any]]:
    """`tfdbg-tui diff --json ARGS`: (exit status, the parsed result). A traceback, or an
    unparsable output, fails the test whatever the exit status. Run once per process for
    the same ARGS (several tests check one pair's result, each something else: the step,
    the lines, the fields); each caller gets a copy of its own."""
    if args not in _DIFFS:
        code, out, err = run_diff("--json", *args)
        assert "Traceback" not in err, err[-3000:]
        try:
            result = json.loads(out)
        except json.JSONDecodeError:
            pytest.fail(f"diff --json printed no JSON (exit {code}): {out[:500]!r} "
                        f"{err[-500:]!r}")
        assert isinstance(result, dict), result
        _DIFFS[args] = code, result
    code, result = _DIFFS[args]
    return code, copy.deepcopy(result)


def frame_line(side: dict[str, Any] | None, program: str) -> int | None:
    """The line of `side`'s user frame if it is in `program`, else None."""
    if not side or not side.get("user_frame"):
        return None
    frame = side["user_frame"]
    if not str(frame.get("file", "")).endswith(program):
        return None
    return int(frame["line"])


def recorded(tmp_path_factory: pytest.TempPathFactory, key: str,
             runs: dict[str, tuple[Any, ...]]) -> dict[str, tuple[str, str]]:
    """name → (logdir, the program's stdout): each `(program, *args)` of `runs` recorded by
    `tfdbg-tui run --mode FULL_TENSOR` (forked from a process that imported TensorFlow),
    built once per test run under `key` — the fixture every pair corpus of its own needs."""
    pytest.importorskip("tensorflow")
    return {name: recorded_run(tmp_path_factory, f"{key}-{name}", program, *args,
                               options=("--mode", "FULL_TENSOR"))
            for name, (program, *args) in runs.items()}


def per_step(r: dict[str, Any], quantity: str) -> dict[int, tuple[int, int]]:
    """Per step of a `diff --json` result, (compared, different) of one quantity."""
    return {s["step"]: (q["compared"], q["different"]) for s in r["steps"]
            if (q := s["quantities"].get(quantity)) is not None}


def lines_marked(program: Path, *marks: str) -> set[int]:
    """The 1-based lines of `program` carrying one of `# MARK` (among other marks)."""
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if any(f"# {m}" in line for m in marks)}


def divergence_lines(r: dict[str, Any]) -> tuple[tuple[str, int], tuple[str, int]]:
    """(file name, line) of A's and B's user frames at a result's first divergence."""
    fd = r["first_divergence"]
    a, b = fd["a"]["user_frame"], fd["b"]["user_frame"]
    return (Path(a["file"]).name, a["line"]), (Path(b["file"]).name, b["line"])
