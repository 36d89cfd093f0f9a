"""The zoo through the TUI, the other half of its programs: see test_tui_zoo.py (the check
is tests/tui/zoo_tui.py's; two files, so two workers share the 56 app sessions)."""

from __future__ import annotations

from typing import Any

import pytest
from support.tui import sync
from zoo_tui import ZooProgram, check_first_alert, params

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]  # the first test runs the zoo


@pytest.mark.parametrize("prog", params(1))
@sync
async def test_enter_on_the_first_alert_shows_the_fix_line_and_the_cause(
        zoo_runs: dict[str, Any], prog: ZooProgram) -> None:
    await check_first_alert(zoo_runs, prog)
