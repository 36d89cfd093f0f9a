"""The NaN journey in the TUI, held out, at 80×24 (one pane at a time): the checks of
tests/tui/heldout_tui_checks.py that apply at that size (test_heldout_tui.py runs them at
160×45, with the `o` check that needs Source Code beside the list)."""

from __future__ import annotations

import pytest
from heldout_tui_checks import (
    parametrize,
    seen,
    test_every_number_in_the_diagnosis_is_a_row_to_go_to,
    test_graph_executions_counts_are_whole,
    test_o_then_v_inspects_the_origin,
    test_source_code_shows_the_line_to_fix,
    test_the_diagnosis_says_the_step_origin_and_cause,
    test_the_footer_offers_copy_edit_and_save_where_they_apply,
    test_the_header_and_alerts_say_the_step_and_one_incident,
    test_the_stack_lists_the_users_frames_and_counts_the_rest,
)

pytestmark = pytest.mark.tf
__all__ = [  # the fixture and the tests, collected here
    "seen",
    "test_every_number_in_the_diagnosis_is_a_row_to_go_to",
    "test_graph_executions_counts_are_whole",
    "test_o_then_v_inspects_the_origin",
    "test_source_code_shows_the_line_to_fix",
    "test_the_diagnosis_says_the_step_origin_and_cause",
    "test_the_footer_offers_copy_edit_and_save_where_they_apply",
    "test_the_header_and_alerts_say_the_step_and_one_incident",
    "test_the_stack_lists_the_users_frames_and_counts_the_rest",
]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    parametrize(metafunc, [(80, 24)])
