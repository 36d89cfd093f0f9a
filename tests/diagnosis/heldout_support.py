"""What the held-out NaN journeys (test_heldout_journey.py, test_heldout_journey2.py) share:
each program recorded with `tfdbg-tui run -- PROGRAM` once per test run, its `report --json`
read once per test process, and the three checks asked of every program — the first alert's
step, one incident per origin, the zoo's diagnosis checks. A corpus says only its programs'
steps, the lines it knows are no user's, and where the tool is still wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from support.recordings import recorded_run
from zoo_support import parse_program, problems


@dataclass
class HeldOut:
    """A held-out corpus: `folder` of programs, recorded under build keys `key-NAME`;
    `step`: each program's first bad step (0-based, its numpy proof's); `wrong`: (check,
    name) → what the tool says instead (strict xfails); `own_line`: an origin op the
    user's code did not write → the code of the call that ran it."""

    folder: Path
    key: str
    step: dict[str, int]
    wrong: dict[tuple[str, str], str] = field(default_factory=dict)
    own_line: dict[str, str] = field(default_factory=dict)
    _reports: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)

    def report(self, tmp_path_factory: pytest.TempPathFactory,
               capsys: pytest.CaptureFixture[str], name: str, limit: int = 10
               ) -> dict[str, Any]:
        """`report --json --limit LIMIT` of the program's recording (made once per test
        run, kept for the next: support.recordings)."""
        if (name, limit) not in self._reports:
            pytest.importorskip("tensorflow")
            from tfdbg_tui.commands import report

            path, _ = recorded_run(tmp_path_factory, f"{self.key}-{name}",
                                   self.folder / f"{name}.py", cwd=self.folder)
            capsys.readouterr()
            report.main([path, "--json", "--limit", str(limit)])
            self._reports[name, limit] = json.loads(capsys.readouterr().out)
        return self._reports[name, limit]

    def journey_tests(self) -> tuple[Callable[..., None], Callable[..., None],
                                     Callable[..., None]]:
        """The three checks asked of every program, as a module's tests (a module assigns
        them to names starting with `test_`), each parametrized by the corpus' programs:
        the first alert's step, one incident per origin, the origin, cause and line."""
        names = sorted(self.step)

        @pytest.mark.parametrize("name", names)
        def step(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
                 request: pytest.FixtureRequest, name: str) -> None:
            self.xfail_if_wrong(request, "step", name)
            self.check_step(self.report(tmp_path_factory, capsys, name), name)

        @pytest.mark.parametrize("name", names)
        def incidents(tmp_path_factory: pytest.TempPathFactory,
                      capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest,
                      name: str) -> None:
            self.xfail_if_wrong(request, "incidents", name)
            self.check_incidents(self.report(tmp_path_factory, capsys, name), name)

        @pytest.mark.parametrize("name", names)
        def origin(tmp_path_factory: pytest.TempPathFactory,
                   capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest,
                   name: str) -> None:
            self.xfail_if_wrong(request, "origin", name)
            self.check_origin(self.report(tmp_path_factory, capsys, name), name)

        return step, incidents, origin

    def xfail_if_wrong(self, request: pytest.FixtureRequest, check: str, name: str) -> None:
        said = self.wrong.get((check, name))
        if said:
            request.applymarker(pytest.mark.xfail(strict=True, reason=said))

    def check_step(self, rep: dict[str, Any], name: str) -> None:
        assert rep["steps"]["count"] > self.step[name], rep["steps"]
        assert rep["steps"]["first_alert_step"] == self.step[name], rep["steps"]
        first = rep["first_alerts"][0]
        assert first["step"] == self.step[name], first

    def check_incidents(self, rep: dict[str, Any], name: str) -> None:
        """Every program has one cause: one incident, in the bad step, holding every
        alert."""
        incidents = rep["incidents"]
        got = [(i["origin"]["op_type"], i["origin"]["cause"], i["step"], i["alerts"])
               for i in incidents]
        assert sum(i["alerts"] for i in incidents) == rep["alerts"]["total"] > 0, got
        assert len(incidents) == 1, got
        assert incidents[0]["step"] == self.step[name], got

    def check_origin(self, rep: dict[str, Any], name: str) -> None:
        """The zoo's checks of the headline alert's diagnosis (zoo_support.problems)."""
        found = problems(parse_program(self.folder / f"{name}.py"), rep)
        if name in self.own_line:
            origin = rep["first_alerts"][0]["diagnosis"]["origin"]
            assert self.own_line[name] in origin["user_frame"]["code"], origin["user_frame"]
            found = [p for p in found if not p.startswith("origin.user_frame")]
        assert found == []

    @staticmethod
    def check_numbers(rep: dict[str, Any]) -> None:
        """Every `#N` in every detailed alert's diagnosis is an execution (`eager #N`, a
        Timeline row) or a graph tensor (`graph #N`): what a user goes to with `g`. A tensor
        id written `#901` in a run of 894 executions sends them nowhere, or somewhere else."""
        bare: set[str] = set()
        todo: list[Any] = [a.get("diagnosis") for a in rep["first_alerts"]]
        while todo:
            item = todo.pop()
            if isinstance(item, str):
                bare |= {m.group(0) for m in re.finditer(
                    r".{0,40}(?<!eager )(?<!graph )#\d+", item)}
            elif isinstance(item, dict):
                todo.extend(item.values())
            elif isinstance(item, list):
                todo.extend(item)
        assert sorted(bare) == [], sorted(bare)[:5]
