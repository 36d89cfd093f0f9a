"""The terminal app opens the odd-numbered items of the hostile corpus
(`hostile.corpus`, in its order): it follows the first alert, inspects it, shows the
warnings, and no screen or notification carries a raw control. The other half is
test_hostile_tui_even.py: two files, so two of the suite's workers share the app's ~40
openings (`hostile.corpus_run`)."""

from __future__ import annotations

import pytest
from hostile.corpus_run import opens, tui_half
from support.tui import sync


@pytest.mark.parametrize("name", tui_half(1))
@sync
async def test_tui_opens(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The app opens the item: `hostile.corpus_run.opens`."""
    await opens(name, tmp_path_factory)
