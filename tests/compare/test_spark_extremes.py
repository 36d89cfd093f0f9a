"""The loss strip on losses at the ends of float64 (issue 30): ±1.7e308 once made the mean
and the span overflow to ±inf, and `int(nan)` raised in `diff`'s plot and the TUI's."""

from __future__ import annotations

from tfdbg_tui.core.compare.series import VALUE, LossSeries, SideLoss
from tfdbg_tui.core.compare.spark import BARS, spark


def test_losses_at_the_ends_of_float64_draw_bars() -> None:
    big = 1.7e308
    a = SideLoss([-big, big, -big], [VALUE, VALUE, VALUE])
    b = SideLoss([big, big, -big], [VALUE, VALUE, VALUE])
    cells_a, cells_b, _ = spark(LossSeries(a, b, 3), 12)
    glyphs = [c.glyph for c in cells_a + cells_b if c.what == VALUE]
    assert glyphs and all(g in BARS for g in glyphs)
    # the highest loss draws the highest bar, the lowest the lowest
    assert cells_b[0].glyph == BARS[-1] and cells_a[0].glyph == BARS[0]
