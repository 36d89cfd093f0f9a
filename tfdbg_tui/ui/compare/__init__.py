"""Compare mode's screen parts: the view of the comparison (`view`), its keys (`actions`),
the loss plot under the header (`plot`) and the header's verdict (`status`).

The comparison itself is `tfdbg_tui.core.compare` (no Textual); this package only shows it.
"""
