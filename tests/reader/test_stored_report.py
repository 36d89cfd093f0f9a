"""The report `tfdbg-tui index` stores beside a run's shards (tfdbg_tui/commands/report/
stored.py): `report` prints it, byte for byte what a direct read prints, without merging the
shards — and drops it (a warning on stderr, the report made from the shards as before) when
a file or a shard changed, when it was forged or damaged, when another version made it.

The run: the reference NaN run a real TensorFlow program wrote, its file set copied under
two host names. That the stored report was used, not the shards: `report` in a fresh
interpreter never imported pyarrow (without it no Parquet shard can be read), where the
same report merged from the shards does.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slowdown import guard

pytest.importorskip("pyarrow")

NOWHERE = str(ROOT / "no-such-shard-folder")  # a direct read: no shard, no stored report
# `report` in a fresh interpreter; its last line on stderr: was pyarrow imported?
PROBE = ("import io, sys\n"
         "from tfdbg_tui.cli import main\n"
         "status = main(sys.argv[1:])\n"
         "sys.stdout.flush()\n"
         "print('pyarrow' in sys.modules, file=sys.stderr)\n"
         "raise SystemExit(status)\n")


def run(*args: str, direct: bool = False, probe: bool = False
        ) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("TFDBG_TUI_SHARDS", None)
    if direct:
        env["TFDBG_TUI_SHARDS"] = NOWHERE
    cmd = [sys.executable, *(["-c", PROBE] if probe else ["-m", "tfdbg_tui"]), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=guard(600))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


class Report:
    """`report` of the run (the options given): its stdout, its warnings, and whether it
    merged the shards (pyarrow imported)."""

    def __init__(self, d: Path, *args: str, direct: bool = False) -> None:
        proc = run("report", *args, str(d), direct=direct, probe=True)
        assert proc.returncode == 1, proc.stderr
        *lines, imported = proc.stderr.strip().splitlines()
        self.out, self.warnings, self.merged = proc.stdout, lines, imported == "True"


@pytest.fixture(scope="module")
def _indexed_once(reference_logdir: str, tmp_path_factory: pytest.TempPathFactory
                  ) -> tuple[Path, Path]:
    """The run (its file set under two host names) indexed once per module, and a pristine
    copy of it: `index` and its shards cost seconds, and every test needs the same ones."""
    root = tmp_path_factory.mktemp("stored-report")
    d = root / "run"
    d.mkdir()
    for f in Path(reference_logdir).iterdir():
        if f.name.startswith("tfdbg_events."):
            _, stamp, rest = f.name.split(".", 2)
            for i, host in enumerate(("alpha", "beta")):
                shutil.copyfile(f, d / f"tfdbg_events.{int(stamp) + i}.{host}."
                                       f"{rest.rsplit('.', 1)[1]}")
    proc = run("index", str(d))
    assert proc.returncode == 0, proc.stderr
    assert "report stored beside the shards" in proc.stdout, proc.stdout
    pristine = root / "pristine"
    shutil.copytree(d, pristine, symlinks=True)  # copy2: sizes and mtimes kept
    return d, pristine


@pytest.fixture
def two_hosts(_indexed_once: tuple[Path, Path]) -> Path:
    """The indexed run as `index` left it, at the path it was indexed under (the stored
    report names its logdir): each test changes it at will. A file is the same to the
    stored report and the shards when its size and mtime are (device, inode and ctime are
    this machine's: reader/index/shard_store.holds), which copy2 keeps — and
    test_the_stored_report_is_a_direct_reads_byte_for_byte proves the copy is used as is."""
    d, pristine = _indexed_once
    shutil.rmtree(d)
    shutil.copytree(pristine, d, symlinks=True)
    return d


_DIRECT: dict[tuple[str, ...], Report] = {}  # (the run's path, *options): its direct read


def direct_read(d: Path, *args: str) -> Report:
    """`report ARGS` read directly (no shard, no stored report) from the run's files as
    `index` found them: once per module and options, as it reads nothing a test changes
    (the stored report, the shards, a shard's time). A test that changes a run's file reads
    it with `Report(..., direct=True)` itself."""
    key = (str(d), *args)
    if key not in _DIRECT:
        _DIRECT[key] = Report(d, *args, direct=True)
    return _DIRECT[key]


def stored_file(d: Path) -> Path:
    (found,) = (d / ".tfdbg-index").glob("report-*.json")
    return found


@pytest.mark.parametrize("form", [["--json"], [], ["--json", "--limit", "10"]],
                         ids=["json", "text", "json-limit-10"])
def test_the_stored_report_is_a_direct_reads_byte_for_byte(two_hosts: Path,
                                                           form: list[str]) -> None:
    direct = direct_read(two_hosts, *form)
    stored = Report(two_hosts, *form)
    assert not stored.merged and not stored.warnings, stored.warnings
    assert stored.out == direct.out
    if "--json" in form:
        assert json.loads(stored.out)["alerts"]["total"] > 0


@pytest.mark.parametrize("form", [["--limit", "3"], ["--values"]])
def test_options_that_change_the_report_merge_the_shards(two_hosts: Path,
                                                        form: list[str]) -> None:
    direct = direct_read(two_hosts, "--json", *form)
    merged = Report(two_hosts, "--json", *form)
    assert merged.merged and not merged.warnings
    assert merged.out == direct.out


def test_a_changed_file_drops_it_and_index_stores_it_anew(two_hosts: Path) -> None:
    """beta's `.execution` loses its last record: the stored report and beta's shard are
    stale; the report is made from alpha's shard and beta's files; `index` then indexes
    beta alone and stores the report anew, which is used again."""
    execution = next(two_hosts.glob("*.beta.execution"))
    data = execution.read_bytes()
    execution.write_bytes(data[: len(data) // 2])
    direct = Report(two_hosts, "--json", direct=True)
    got = Report(two_hosts, "--json")
    assert len(got.warnings) == 1, got.warnings
    assert "stored report not used" in got.warnings[0]
    assert f"{execution.name} changed since it was made" in got.warnings[0]
    report = json.loads(got.out)
    stale = [w for w in report["warnings"] if ".tfdbg-index" in w]  # beta's shard, as before
    assert len(stale) == 1 and "beta.parquet" in stale[0], report["warnings"]
    report["warnings"] = [w for w in report["warnings"] if w not in stale]
    assert report == json.loads(direct.out)

    proc = run("index", str(two_hosts))
    assert "2 file sets: 1 indexed, 1 up to date" in proc.stdout, proc.stdout
    assert "report stored beside the shards" in proc.stdout, proc.stdout
    again = Report(two_hosts, "--json")
    assert not again.merged and not again.warnings, again.warnings
    assert again.out == direct.out
    proc = run("index", str(two_hosts))  # nothing changed: neither shards nor report made
    assert "0 indexed, 2 up to date" in proc.stdout, proc.stdout
    assert "the stored report is up to date" in proc.stdout, proc.stdout


def test_a_shard_written_anew_drops_it(two_hosts: Path) -> None:
    """`index --force` wrote alpha's shard again after the report was stored (here: its
    file's time moved): the report is made from the shards, and `index` stores it anew."""
    shard = next((two_hosts / ".tfdbg-index").glob("*.alpha.parquet"))
    os.utime(shard, (1, 1))
    direct = direct_read(two_hosts, "--json")
    got = Report(two_hosts, "--json")
    assert got.merged and len(got.warnings) == 1, got.warnings
    assert f"the shard {shard.name} changed since it was made" in got.warnings[0]
    assert got.out == direct.out
    proc = run("index", str(two_hosts))
    assert "0 indexed, 2 up to date" in proc.stdout and "report stored" in proc.stdout
    assert not Report(two_hosts, "--json").merged


def _header(d: Path) -> tuple[dict[str, object], bytes]:
    line, _, body = stored_file(d).read_bytes().partition(b"\n")
    return json.loads(line), body


def _write(d: Path, header: dict[str, object], body: bytes, digest: bool = True) -> None:
    """The stored report rewritten; `digest`: its header's digest made anew, as a forger
    who read stored.py would."""
    if digest:
        header = {**header, "digest": hashlib.blake2b(body, digest_size=16).hexdigest()}
    stored_file(d).write_bytes(json.dumps(header).encode() + b"\n" + body)


def _forge_count(d: Path) -> None:
    """The model's alert count changed, the header as it was."""
    header, body = _header(d)
    model = json.loads(body)
    model["alerts"]["total"] = 0
    _write(d, header, json.dumps(model).encode(), digest=False)


def _wrong_shape(d: Path) -> None:
    header, body = _header(d)
    model = json.loads(body)
    model["first_alerts"] = 5
    _write(d, header, json.dumps(model).encode())


def _unrenderable(d: Path) -> None:
    """The top level as a report's, the digest right, an alert inside that no report holds:
    the human form cannot be made of it, and the JSON form must not print it either."""
    header, body = _header(d)
    model = json.loads(body)
    model["first_alerts"] = [{"forged": True}]
    _write(d, header, json.dumps(model).encode())


def _other_version(d: Path) -> None:
    header, body = _header(d)
    _write(d, {**header, "stamp": "0" * 24}, body)


def _other_run(d: Path) -> None:
    """Another run's stored report (its own digest right) under this run's name."""
    header, body = _header(d)
    model = json.loads(body)
    model["run"]["id"] = "another-run"
    _write(d, {**header, "run": "another-run"}, json.dumps(model).encode())


def _writable_by_others(d: Path) -> None:
    stored_file(d).chmod(0o666)


def _symlink(d: Path) -> None:
    f = stored_file(d)
    moved = d.parent / "elsewhere.json"
    f.rename(moved)
    f.symlink_to(moved)


def _nested(d: Path) -> None:
    header, _ = _header(d)
    _write(d, header, b"[" * 100_000 + b"]" * 100_000)


FORGED = {
    "model-changed": (_forge_count, "changed after it was made"),
    "another-version": (_other_version, "made by another version of tfdbg-tui"),
    "another-run": (_other_run, "it is another run's"),
    "writable-by-others": (_writable_by_others, "writable by others"),
    "symlink": (_symlink, "cannot read it"),
    "header-only": (lambda d: stored_file(d).write_bytes(b'{"format": 1}'),
                    "not a stored report of this format"),
    "nested-100k-deep": (_nested, "damaged"),
    "wrong-shape": (_wrong_shape, "it is not a report of this run"),
    "unrenderable": (_unrenderable, "damaged"),
}


@pytest.mark.parametrize("case", list(FORGED))
def test_a_forged_or_damaged_stored_report_is_dropped(two_hosts: Path, case: str) -> None:
    change, said = FORGED[case]
    change(two_hosts)
    direct = direct_read(two_hosts, "--json")
    got = Report(two_hosts, "--json")
    assert got.merged and len(got.warnings) == 1, got.warnings
    assert "stored report not used" in got.warnings[0] and said in got.warnings[0], \
        got.warnings
    assert got.out == direct.out
    text = Report(two_hosts)
    assert text.out == direct_read(two_hosts).out


def test_a_run_of_one_file_set_stores_its_report_too(reference_logdir: str,
                                                      tmp_path: Path) -> None:
    """A run of one host is read directly (its shard unused: docs/scale-out.md); its stored
    report is still a direct read's."""
    out = tmp_path / "shards"
    proc = run("index", reference_logdir, "--out", str(out))
    assert proc.returncode == 0 and "report stored" in proc.stdout, proc.stdout
    env = {**os.environ, "TFDBG_TUI_SHARDS": str(out)}
    cmd = [sys.executable, "-c", PROBE, "report", reference_logdir]
    stored = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=guard(600))
    assert stored.stderr.strip().splitlines() == ["False"], stored.stderr
    assert stored.stdout == run("report", reference_logdir, direct=True).stdout
