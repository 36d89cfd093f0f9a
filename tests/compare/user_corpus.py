"""The harness of the user-style migration corpora (tests/programs/migration_heldout and
migration_fresh): standalone TF1/TF2 scripts, each recorded unmodified with
`tfdbg-tui run --mode FULL_TENSOR -- PROGRAM DATA_DIR` in a fork of a process that imported
TensorFlow (support.tf_fork; two such servers, the machine's two cores, shared by the
corpora), after the corpus's prepare_data.py wrote the files some programs restore from.

Recordings are cached outside the checkout (~/.cache/tfdbg-tui-tests/<corpus>, or
$TFDBG_TUI_TEST_CACHE), each keyed by its program, prepare_data.py and the TensorFlow and
Keras versions; `last-build` there says what the last build cost. The checks every pair gets
(an equivalent pair compared whole, a buggy pair's step, quantity and lines, the marks
consistent) live here too; each corpus's test file holds its pairs' KNOWN_FAILING.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, frame_line
from compare.test_migration_corpus import _quantity, _summary
from filelock import FileLock
from support.paths import ROOT
from support.shared import build_once, shared_root
from support.tf_fork import ForkServer, two_servers

TOL = ("--rtol", "1e-5", "--atol", "1e-6", "--limit", "1000000")

def _servers() -> list[ForkServer]:
    """Two fork servers for every corpus of the process, started on first use."""
    return two_servers()


def _versions() -> bytes:
    out = []
    for package in ("tensorflow", "keras"):
        try:
            out.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            out.append(f"{package}=none")
    return " ".join(out).encode()


Diffs = dict[str, tuple[int, dict[str, Any]]]


@dataclass
class UserCorpus:
    folder: Path  # tests/programs/<corpus>
    cache: str  # its folder in the recordings' cache
    pairs: dict[str, Any]  # name → Pair (a, b, exit, step, quantity, a_marks, b_marks, steps)
    programs: Callable[[], list[str]]
    contract: tuple[str, ...]
    _marks: dict[str, dict[str, set[int]]] = field(default_factory=dict)

    # ------------------------------------------------------------------ recordings
    def _key(self, *files: str) -> str:
        h = hashlib.sha256(_versions())
        for name in files:
            h.update(b"\0" + name.encode() + b"\0" + (self.folder / name).read_bytes())
        return h.hexdigest()[:16]

    def _cache_root(self) -> Path:
        base = (os.environ.get("TFDBG_TUI_TEST_CACHE")
                or Path.home() / ".cache" / "tfdbg-tui-tests")
        root = Path(base) / self.cache
        root.mkdir(parents=True, exist_ok=True)
        return root

    @staticmethod
    def _fresh(target: Path) -> Path:
        fresh = target.parent / f"{target.name}.building-{os.getpid()}"
        shutil.rmtree(fresh, ignore_errors=True)
        return fresh

    def _prepare(self, root: Path) -> Path:
        """prepare_data.py's files (the checkpoint and weights file some programs restore)."""
        target = root / f"data-{self._key('prepare_data.py')}"
        if not target.is_dir():
            fresh = self._fresh(target)
            done = _servers()[0].run([str(self.folder / "prepare_data.py"), str(fresh)],
                                     cwd=ROOT, split=True)
            if done.status != 0:
                pytest.fail(f"prepare_data.py failed ({done.status}):\n{done.err[-3000:]}")
            os.replace(fresh, target)
        return target

    def _record(self, server: ForkServer, program: str, target: Path, data: Path
                ) -> str | None:
        """`tfdbg-tui run` of one program into `target` (through a folder renamed when
        whole); its stderr tail if it failed, else None."""
        fresh = self._fresh(target)
        done = server.run(["-m", "tfdbg_tui", "run", "--logdir", str(fresh), "--mode",
                           "FULL_TENSOR", "--", str(self.folder / program), str(data)],
                          cwd=ROOT, split=True)
        if done.status != 0:
            shutil.rmtree(fresh, ignore_errors=True)
            return f"{program} ({done.status}):\n{done.err[-3000:]}"
        os.replace(fresh, target)
        return None

    def _build(self, root: Path) -> dict[str, str]:
        """Record the programs missing from the cache, one per fork server; drop stale
        keys."""
        data = self._prepare(root)
        wanted = {p: root / f"{p[:-3]}-{self._key(p, 'prepare_data.py')}"
                  for p in self.programs()}
        keep = set(wanted.values()) | {data}
        for entry in root.iterdir():
            if entry.is_dir() and entry not in keep:
                shutil.rmtree(entry, ignore_errors=True)  # an older key, or a build cut short
        # Model.fit programs are the slowest: started first, the two servers end together
        missing = sorted((p for p, d in wanted.items() if not d.is_dir()),
                         key=lambda p: ("fit" not in p, p))
        if missing:
            t0 = time.monotonic()
            halves = [missing[0::2], missing[1::2]]
            servers = _servers()

            def work(i: int) -> list[str]:
                out = [self._record(servers[i], p, wanted[p], data) for p in halves[i]]
                return [e for e in out if e]

            with ThreadPoolExecutor(2) as pool:
                failed = [e for errors in pool.map(work, (0, 1)) for e in errors]
            if failed:
                pytest.fail(f"a {self.cache} program failed: " + failed[0])
            (root / "last-build").write_text(
                f"{len(missing)} recordings: {time.monotonic() - t0:.1f} s wall\n")
        return {p: str(d) for p, d in wanted.items()}

    def diffs(self, tmp_path_factory: pytest.TempPathFactory) -> Diffs:
        """pair → (exit status, `diff --json` result), the recordings built first if
        missing."""
        pytest.importorskip("tensorflow")

        def build(_: Path) -> dict[str, str]:
            root = self._cache_root()
            with FileLock(str(root / "build.lock")):
                return self._build(root)

        runs = build_once(shared_root(tmp_path_factory), self.folder.name, build)

        def one(name: str) -> tuple[str, tuple[int, dict[str, Any]]]:
            pair = self.pairs[name]
            return name, diff_json(runs[pair.a], runs[pair.b], *TOL)

        with ThreadPoolExecutor(2) as pool:
            return dict(pool.map(one, self.pairs))

    # ------------------------------------------------------------------ marks and checks
    def marks(self, program: str) -> dict[str, set[int]]:
        """'AT:name' / 'BUG:name' / 'CALL:name' → the 1-based lines of `program` with it."""
        if program not in self._marks:
            out: dict[str, set[int]] = {}
            for number, line in enumerate((self.folder / program).read_text().splitlines(), 1):
                for kind, name in re.findall(r"\b(AT|BUG|CALL):(\w+)", line.partition("#")[2]):
                    out.setdefault(f"{kind}:{name}", set()).add(number)
            self._marks[program] = out
        return self._marks[program]

    def lines(self, program: str, marks: tuple[str, ...]) -> set[int]:
        return set().union(*(self.marks(program).get(m, set()) for m in marks))

    def params(self, kind: int, known_failing: dict[str, str]) -> list[Any]:
        return [pytest.param(name, id=name, marks=[pytest.mark.xfail(
                    strict=True, reason=known_failing[name])] if name in known_failing else [])
                for name, pair in self.pairs.items() if pair.exit == kind]

    def check_equivalent(self, diffs: Diffs, name: str, n: int) -> None:
        """Exit 0, equivalent, nothing different, and the loss, every gradient (of A's `n`
        trainable variables) and every update compared at every step (a TF1 fused update is
        seen as the variable the next step reads, so the last step's update is required
        only where the run has one)."""
        pair = self.pairs[name]
        code, r = diffs[name]
        said = _summary(code, r)
        assert (code, r["equivalent"], r["different"]) == (0, True, 0), said
        # nothing is shown as where the runs part, and no note is said twice
        assert r["divergent_tensors"] == [], (r["divergent_tensors"], said)
        assert len(r["notes"]) == len(set(r["notes"])), r["notes"]
        steps = r["steps"]
        assert [s["step"] for s in steps] == list(range(pair.steps)), said
        for s in steps:
            assert _quantity(s, "loss")["compared"] >= 1, (s["step"], said)
            gradient = _quantity(s, "gradient")
            assert gradient["compared"] >= n, (s["step"], said)
            # by name where the JSON says which of A's variables were compared (issue 29)
            assert len(set(gradient.get("variables", range(n)))) >= n, (s["step"], gradient)
            for q in s["quantities"]:
                assert s["quantities"][q]["different"] == 0, (s["step"], q, s["quantities"][q])
        for s in steps[:-1]:
            update = _quantity(s, "update")
            assert update["compared"] >= n, (s["step"], said)
            assert len(set(update.get("variables", range(n)))) >= n, (s["step"], update)

    def check_buggy(self, diffs: Diffs, name: str) -> None:
        """Exit 1, the first divergence at the expected step and quantity (and its position
        in the step contract), A's line among the TF1 marks and B's among the rewrite's."""
        pair = self.pairs[name]
        code, r = diffs[name]
        said = _summary(code, r)
        assert code == 1 and not r["equivalent"], said
        fd = r["first_divergence"]
        assert fd is not None, said
        assert (fd["step"], fd["quantity"]) == (pair.step, pair.quantity), said
        assert fd.get("contract_position") == self.contract.index(str(pair.quantity)), said
        a_line, b_line = frame_line(fd["a"], "/" + pair.a), frame_line(fd["b"], "/" + pair.b)
        assert a_line in self.lines(pair.a, pair.a_marks), (a_line, pair.a_marks, said)
        assert b_line in self.lines(pair.b, pair.b_marks), (b_line, pair.b_marks, said)

    def check_marks(self) -> None:
        """Every accepted mark exists; each buggy pair's two programs carry exactly one
        `BUG:<pair>` line between them (in B, or in A where the TF1 reference holds the
        mistake) and no other pair's, and it is among the accepted marks of its side;
        equivalent pairs' programs carry none (a mistyped mark would make a line check
        vacuous)."""
        for name, pair in self.pairs.items():
            for program, marks in ((pair.a, pair.a_marks), (pair.b, pair.b_marks)):
                for mark in marks:
                    assert mark in self.marks(program), (name, program, mark)
            bugs = {(program, m): lines for program in (pair.a, pair.b)
                    for m, lines in self.marks(program).items() if m.startswith("BUG:")}
            if pair.exit == 1:
                assert {m for _, m in bugs} == {f"BUG:{name}"}, (name, bugs)
                (where, _), = bugs
                assert sum(len(lines) for lines in bugs.values()) == 1, (name, bugs)
                side = pair.a_marks if where == pair.a else pair.b_marks
                assert f"BUG:{name}" in side, name
            else:
                assert not bugs, (name, bugs)
            assert (pair.exit == 0) == (pair.step is None), name
            assert pair.quantity is None or pair.quantity in self.contract, name
