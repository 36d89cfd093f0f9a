"""`tfdbg-tui cache`: what the persistent index cache holds, and clearing it.

Opening or reporting on a big logdir saves its index (memory-mapped columns) under the user's
cache folder, so the next open is immediate; see `reader.cache`. This command shows where,
for which logdirs and how much, and deletes it on request. It needs no TensorFlow or Textual.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence

from tfdbg_tui.core.sanitize import literal

USAGE = """\
usage: tfdbg-tui cache [clear]

Shows the index cache (where it is, its entries, their size); `clear` deletes every entry.
The cache folder is $TFDBG_TUI_CACHE_DIR, else $XDG_CACHE_HOME/tfdbg-tui, else
~/.cache/tfdbg-tui; its size is capped by $TFDBG_TUI_CACHE_MAX_BYTES (default 2 GiB), the
least recently used entries going first.
"""


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    value = float(n)
    for unit in ("KiB", "MiB", "GiB"):
        value /= 1024
        if value < 1024 or unit == "GiB":
            break
    return f"{value:.1f} {unit}"


def main(argv: Sequence[str]) -> int:
    """Run the cache command; returns the exit status (2 for bad usage)."""
    from reader.cache.location import max_bytes
    from reader.cache.store import Store

    args = list(argv)
    if args in (["-h"], ["--help"]):
        print(USAGE, end="")
        return 0
    store = Store()
    if args == ["clear"]:
        freed = store.clear()
        print(f"cleared {literal(str(store.dir))} ({_size(freed)})")
        if store.problem:
            print(f"  {literal(store.problem)}")
        return 0
    if args:
        print(f"tfdbg-tui cache: error: unknown arguments {literal(' '.join(args))} "
              "(only `clear`; see tfdbg-tui cache --help)", file=sys.stderr)
        return 2
    entries = store.info()
    total = sum(e.size for e in entries)
    print(f"index cache: {literal(str(store.dir))}")
    if store.problem:
        print(f"  {literal(store.problem)}")
    print(f"{len(entries)} entries, {_size(total)} of at most {_size(max_bytes())}")
    for e in entries:
        try:
            used = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.last_used))
        except (OverflowError, OSError, ValueError):
            used = "?"
        print(f"  {_size(e.size):>10}  {e.rows:>12,} rows  used {used}  "
              f"{literal(e.logdir)} (run {literal(e.run)})")
    return 0
