"""Installing where users are: a cluster's login node, with no C compiler and no TensorFlow.

`python -m build` makes an sdist and a wheel (here with `CC=false`: the compiled core cannot
be built, and the build must still succeed); the wheel goes into a fresh virtual environment
(its dependencies from the package index, TensorFlow not among them), and the installed
`tfdbg-tui` says it runs the pure-Python reader and reports a logdir written by the TF-free
writer of the same wheel. Slow (a build and an install): about a minute.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from support.paths import ROOT

SOURCES = ("pyproject.toml", "setup.py", "README.md", "reader", "tfdbg_tui", "dumper")

WRITE = r"""
import sys
from dumper.writer import LogdirWriter
with LogdirWriter(sys.argv[1], run_id="login-node", hostname="node", file_timestamp=1000) as w:
    f = w.add_source_file("/job/train.py", ["p = softmax(z)", "loss = -sum(y * log(p))"])
    frame = w.add_stack_frame(f, 2, "loss_fn")
    w.add_graph("g", "train_step")
    w.add_op("g", "Placeholder", "p", [], stack_frame_ids=[frame])
    w.add_op("g", "Log", "log", ["p:0"], stack_frame_ids=[frame])
    # FULL_HEALTH: [id, device, dtype, rank, size, -inf, +inf, nan, -, 0, +]
    w.add_graph_trace("g", "p", 0, "FULL_HEALTH", [1, -1, 1, 1, 4, 0, 0, 0, 0, 1, 3],
                      wall_time=1000.0)
    w.add_graph_trace("g", "log", 0, "FULL_HEALTH", [2, -1, 1, 1, 4, 1, 0, 0, 3, 0, 0],
                      wall_time=1000.1)
"""


def run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(a) for a in args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=timeout)
    assert proc.returncode == 0 or "report" in args, (args, proc.stdout[-2000:],
                                                      proc.stderr[-4000:])
    return proc


@pytest.mark.slow
def test_wheel_without_compiler_or_tensorflow(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    for name in SOURCES:  # the project's files, none of the checkout's build products
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns(
                "__pycache__", "*.so", "*.pyc"))
        else:
            shutil.copy(path, src / name)
    no_cc = dict(os.environ, CC="false", CXX="false", LDSHARED="false")
    run(sys.executable, "-m", "build", "--outdir", tmp_path / "dist", src, env=no_cc)
    wheels = list((tmp_path / "dist").glob("*.whl"))
    assert len(wheels) == 1 and list((tmp_path / "dist").glob("*.tar.gz"))
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "reader/index/logdir.py" in names and "dumper/writer.py" in names
    assert not any(n.endswith((".so", ".pyd")) for n in names)  # no compiler: no core

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    py, cli = venv / "bin" / "python", venv / "bin" / "tfdbg-tui"
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("PYTHON", "VIRTUAL_ENV", "TFDBG_TUI_PURE"))}
    clean.update(CC="false", CXX="false")
    run(py, "-m", "pip", "install", "--quiet", wheels[0], env=clean, cwd=tmp_path)
    probe = run(py, "-c", "import importlib.util as u; print(u.find_spec('tensorflow'))",
                env=clean, cwd=tmp_path)
    assert probe.stdout.strip() == "None"  # no TensorFlow in this environment

    version = run(cli, "--version", env=clean, cwd=tmp_path).stdout
    assert "pure-Python reader" in version and "not built" in version
    logdir = tmp_path / "logdir"
    run(py, "-c", WRITE, logdir, env=clean, cwd=tmp_path)
    proc = run(cli, "report", logdir, env=clean, cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # one alert: log of the zero
    assert "Traceback" not in proc.stderr
    assert "Log" in proc.stdout and "log 0" in proc.stdout
