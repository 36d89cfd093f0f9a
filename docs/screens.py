"""Regenerate the pictures of the first screen (docs/tour.md): `docs/first-screen-WxH.svg`.

    make install && .venv/bin/python docs/screens.py [LOGDIR]

LOGDIR defaults to the demo's recording (`tfdbg-tui demo --no-open` makes it). The app opens
as a user opens it — no key pressed — and each size is saved once indexing, the follow of the
first alert and the diagnosis have settled. The header shows the path as `tfdbg-tui demo`
users see it.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from textual.worker import WorkerCancelled

from reader import DebugLogdir
from tfdbg_tui.commands.demo import cache_dir
from tfdbg_tui.ui.app import TfdbgApp

SIZES = ((160, 45), (120, 32), (80, 24))
HERE = Path(__file__).resolve().parent


async def shoot(logdir: str, size: tuple[int, int]) -> Path:
    app = TfdbgApp(DebugLogdir(logdir), follow=False, display_path="~/.cache/tfdbg-tui/demo")
    async with app.run_test(size=size) as pilot:
        await asyncio.wait_for(app.indexed.wait(), 120)
        for _ in range(4):  # the follow, the source worker, the diagnosis worker, centring
            try:
                await app.workers.wait_for_complete()
            except WorkerCancelled:  # an exclusive worker replaced by a newer one
                continue
            await pilot.pause()
        await pilot.pause(0.2)  # the source view centres after its first refresh
        out = HERE / f"first-screen-{size[0]}x{size[1]}.svg"
        app.save_screenshot(str(out.name), path=str(HERE))
        return out


def main() -> int:
    logdir = sys.argv[1] if len(sys.argv) > 1 else cache_dir()
    if not os.path.isdir(logdir):
        print(f"no logdir at {logdir}: run `tfdbg-tui demo --no-open` first", file=sys.stderr)
        return 2
    for size in SIZES:
        print(asyncio.run(shoot(logdir, size)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
