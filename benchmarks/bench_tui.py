"""TUI benchmark: first paint, key-to-repaint in Graph Executions, memory — on a big logdir.

`main(logdir)` returns a Markdown section for BENCHMARKS.md. The app runs headless in this
process (Textual's `run_test`), exactly as a user drives it — keys through the pilot — and:
- first paint: from constructing the logdir and the app to the first screen refresh (the
  screen shows while indexing continues in its worker); also the time until indexing ends;
- key-to-repaint: for each key (↓, PgDn, End/Home, `g` jumps to random rows) the time from
  posting the key to the app until the cursor moved and the screen's next frame has been
  composited and drawn (`_on_timer_update`, what a refresh does; the headless driver then
  skips only the write to the terminal). The pilot's own idle waits are not timed;
- follow: the debounced work after the cursor rests (Graph Structure, Stack Trace, Source);
- memory: peak RSS, against the reader's own index size.
Bars: first paint ≤ 1 s; median key-to-repaint ≤ 50 ms.
"""

from __future__ import annotations

import asyncio
import random
import resource
import statistics
import subprocess
import sys
import time
from typing import Any

FIRST_PAINT_BAR = 1.0
KEY_BAR = 0.050


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _import_time() -> float:
    """Seconds to import the app in a fresh interpreter (paid once per launch)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import tfdbg_tui.ui.app"], check=True)
    return time.perf_counter() - t0


async def settle(app: Any, pilot: Any) -> None:
    from textual.worker import WorkerCancelled

    while True:
        try:  # a cancelled exclusive worker (replaced by a newer one) raises: wait again
            await app.workers.wait_for_complete()
            break
        except WorkerCancelled:
            continue
    await pilot.pause()


async def _measure(logdir: str) -> dict[str, Any]:
    from textual.widgets import Input

    from reader import DebugLogdir
    from tfdbg_tui.ui.app import TfdbgApp

    rss_before = _rss_mb()
    t0 = time.perf_counter()
    app = TfdbgApp(DebugLogdir(logdir), follow=False)
    out: dict[str, Any] = {}
    async with app.run_test(size=(200, 50)) as pilot:
        while app.first_paint is None:
            await pilot.pause()
        out["first_paint"] = app.first_paint - t0
        await asyncio.wait_for(app.indexed.wait(), 600)
        out["indexed"] = time.perf_counter() - t0
        await settle(app, pilot)
        s = app.main
        assert s is not None
        n = app.state.snapshot.traces
        out["traces"] = n
        await pilot.press("3")
        await settle(app, pilot)
        vl = s.ge.vlist
        rng = random.Random(0)
        keys = ["down"] * 40 + ["pagedown"] * 20 + ["up"] * 20 + ["pageup"] * 10
        keys += ["end", "home"] * 5
        timings: dict[str, list[float]] = {}
        for key in keys:
            before = vl.cursor_index
            t = time.perf_counter()
            app.simulate_key(key)
            while vl.cursor_index == before:
                await asyncio.sleep(0)
            app.screen._on_timer_update()  # composite and draw the frame, as a refresh does
            timings.setdefault(key, []).append(time.perf_counter() - t)
            await settle(app, pilot)  # let the debounced follow finish, outside the timing
        jumps, follows = [], []
        for _ in range(20):  # `g` to a random row: prompt, type, Enter
            target = rng.randrange(n)
            t = time.perf_counter()
            app.simulate_key("g")
            while not s.prompt.is_open:
                await asyncio.sleep(0)
            s.prompt.query_one(Input).value = str(target)
            t_typed = time.perf_counter()
            app.simulate_key("enter")
            while s.ge.selected != target:
                await asyncio.sleep(0)
            app.screen._on_timer_update()
            t_end = time.perf_counter()
            jumps.append(t_end - t_typed)
            timings.setdefault("g prompt opens", []).append(t_typed - t)
            await settle(app, pilot)
            t = time.perf_counter()
            s.show_trace(target, select=False)  # the follow: structure, stack, source request
            follows.append(time.perf_counter() - t)
            await settle(app, pilot)
        timings["g … Enter (jump)"] = jumps
        out["follow"] = follows
        out["timings"] = timings
        logdir = app.state.logdir
        out["index_mb"] = (logdir.traces.nbytes() + logdir.executions.nbytes()
                           + logdir.outputs.nbytes()) / 2**20
    out["rss_mb"] = _rss_mb()
    out["rss_before_mb"] = rss_before
    return out


def main(logdir: str) -> str:
    """Run the TUI benchmark on `logdir`; returns a Markdown section."""
    import_s = _import_time()
    r = asyncio.run(_measure(logdir))
    all_keys = [x for k, v in r["timings"].items() if k != "g prompt opens" for x in v]
    median = statistics.median(all_keys)
    ok_paint = "✅" if r["first_paint"] <= FIRST_PAINT_BAR else "❌"
    ok_key = "✅" if median <= KEY_BAR else "❌"
    rows = [
        "## TUI (`tfdbg-tui LOGDIR`)",
        "",
        f"Logdir: {r['traces']:,} graph traces. Headless Textual app at 200×50, keys sent "
        "through the pilot; each key is timed until the app is idle and the Graph Executions "
        "pane is redrawn.",
        "",
        "| measure | value | bar |",
        "|---|---|---|",
        f"| first paint after launch (logdir discovery + app start) | "
        f"{r['first_paint'] * 1000:.0f} ms | ≤ 1 s {ok_paint} |",
        f"| import of the app (fresh interpreter, paid before that) | {import_s * 1000:.0f} ms | |",
        f"| indexing done (in a worker; screen usable throughout) | {r['indexed']:.1f} s | |",
        f"| median key-to-repaint, Graph Executions (all keys) | {median * 1000:.1f} ms | "
        f"≤ 50 ms {ok_key} |",
    ]
    for key, values in r["timings"].items():
        rows.append(f"| — {key} ×{len(values)}: median / max | "
                    f"{statistics.median(values) * 1000:.1f} / {max(values) * 1000:.1f} ms | |")
    follow = r["follow"]
    rows.append(f"| follow a row (Structure, Stack, Source request; debounced after keys): "
                f"median / max | {statistics.median(follow) * 1000:.1f} / "
                f"{max(follow) * 1000:.1f} ms | |")
    rows += [
        f"| peak RSS of the process | {r['rss_mb']:.0f} MB | |",
        f"| of which the reader's numpy index | {r['index_mb']:.0f} MB | |",
        f"| RSS before opening (Python + Textual + numpy) | {r['rss_before_mb']:.0f} MB | |",
        "",
    ]
    return "\n".join(rows)


if __name__ == "__main__":
    print(main(sys.argv[1]))
