"""The zoo through the TUI (issue 9): launch → Enter → Source Code's highlighted line is the
line the program marks `# FIX`, in the program's own file, and the Alerts pane's diagnosis
line gives the program's cause in words. The alert selected at launch is the report's headline
(the first of `first_alerts`, the one the zoo test checks).

The programs, their FIX lines and cause words are read by the zoo's own support module
(tests/diagnosis/zoo_support.py); the programs run once per session for both tests
(`zoo_runs` in tests/conftest.py); and the cases the diagnosis cannot do yet are the zoo
test's own xfails (its `XFAIL` table, strict unless `RACY`), so the report and the TUI are
held to the same list. One app per program; half the programs here, the other half in
test_tui_zoo2.py (tests/tui/zoo_tui.py holds the check: two files run on two workers).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.tui import sync
from zoo_tui import ZooProgram, check_first_alert, params

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]  # the first test runs the zoo


@pytest.mark.parametrize("prog", params(0))
@sync
async def test_enter_on_the_first_alert_shows_the_fix_line_and_the_cause(
        zoo_runs: dict[str, Any], prog: ZooProgram) -> None:
    await check_first_alert(zoo_runs, prog)
