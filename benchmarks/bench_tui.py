"""TUI benchmark: first paint, first alert, key-to-repaint in Graph Executions, memory.

`main(logdir)` returns a Markdown section for BENCHMARKS.md and the raw numbers. The app runs
headless in this process (Textual's `run_test`) on a first open (an empty index cache, as
`tfdbg-tui LOGDIR` does it), driven as a user drives it — keys through the pilot — and:
- first paint: from constructing the logdir and the app to the first screen refresh (the
  screen shows while indexing continues in its worker);
- first alert: until the Alerts pane has an alert selected (the earliest read so far) and the
  frame is drawn; and whether it is still the run's earliest once indexing is done;
- key-to-repaint *while indexing*: ↓/↑ in Graph Executions every ~30 ms while the worker
  still reads, each timed from posting the key to the cursor having moved and the next frame
  composited and drawn (`_on_timer_update`, what a refresh does; the headless driver then
  skips only the write to the terminal);
- key-to-repaint once indexed (↓, PgDn, End/Home, `g` jumps to random rows), the debounced
  follow work (Graph Structure, Stack Trace, Source), and peak RSS against the index size.
Bars: first paint ≤ 1 s; first alert ≤ 3 s; median key-to-repaint ≤ 16 ms.
"""

from __future__ import annotations

import asyncio
import faulthandler
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import threading
import time
from typing import Any

FIRST_PAINT_BAR = 1.0
FIRST_ALERT_BAR = 3.0
KEY_BAR = 0.016


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6


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


FROZEN_AFTER = 30.0  # the app's event loop stuck this many seconds: the app froze
FROZE_STATUS = 3  # the exit status that says so (benchmarks.run measures again without keys)
_beat = [time.perf_counter()]  # last tick of the event loop (see `_heartbeat`)


async def _heartbeat() -> None:
    while True:
        _beat[0] = time.perf_counter()
        await asyncio.sleep(0.5)


def _watchdog() -> None:
    """End the process (status 3, stacks on stderr) when the app's event loop has not ticked
    for FROZEN_AFTER seconds: a UI thread blocked for good cannot be measured, and must not
    hang `make bench`."""
    while True:
        time.sleep(1.0)
        if time.perf_counter() - _beat[0] > FROZEN_AFTER:
            try:  # Textual replaced sys.stderr: write to file descriptor 2
                faulthandler.dump_traceback(file=2, all_threads=True)
            finally:
                os._exit(FROZE_STATUS)


async def _timed_key(app: Any, vl: Any, key: str) -> float:
    """Post `key`; seconds until the cursor moved and the next frame is drawn."""
    before = vl.cursor_index
    t = time.perf_counter()
    app.simulate_key(key)
    while vl.cursor_index == before:
        await asyncio.sleep(0)
    app.screen._on_timer_update()  # composite and draw the frame, as a refresh does
    return time.perf_counter() - t


async def _measure(logdir: str, keys_while_indexing: bool = True) -> dict[str, Any]:
    from textual.widgets import Input

    from reader import DebugLogdir
    from tfdbg_tui.core.memory import calm_collector
    from tfdbg_tui.ui.app import TfdbgApp

    rss_before = _rss_mb()
    t0 = time.perf_counter()
    app = TfdbgApp(DebugLogdir(logdir, cache=True), follow=False)
    calm_collector()  # as `tfdbg-tui LOGDIR` does before it runs the app
    out: dict[str, Any] = {"during": []}
    async with app.run_test(size=(200, 50)) as pilot:
        beat = asyncio.create_task(_heartbeat())
        threading.Thread(target=_watchdog, daemon=True).start()
        while app.first_paint is None:
            await pilot.pause()
        out["first_paint"] = app.first_paint - t0
        while app.main is None or app.main.alerts.selected_alert() is None:
            await asyncio.sleep(0.002)
        app.screen._on_timer_update()
        out["first_alert"] = time.perf_counter() - t0
        out["first_alert_id"] = app.main.alerts.selected_alert()
        print("PARTIAL " + json.dumps({k: out[k] for k in ("first_paint", "first_alert")}),
              flush=True)  # what a run stopped later still tells
        s = app.main
        await pilot.press("3")
        vl = s.ge.vlist
        step = 0
        while not app.indexed.is_set():  # keys while the worker still reads
            if keys_while_indexing and app.state.snapshot.traces > 100:
                key = "down" if (step // 20) % 2 == 0 else "up"
                out["during"].append(await _timed_key(app, vl, key))
                step += 1
            await asyncio.sleep(0.03)
        out["indexed"] = time.perf_counter() - t0
        await settle(app, pilot)
        a = app.state.snapshot.alerts
        out["earliest"] = out["first_alert_id"] == (int(a.kind[0]), int(a.index[0]),
                                                    int(a.slot[0]))
        n = app.state.snapshot.traces
        out["traces"] = n
        out["records"] = n + app.state.snapshot.executions
        await pilot.press("3")
        await settle(app, pilot)
        vl = s.ge.vlist
        rng = random.Random(0)
        keys = ["down"] * 40 + ["pagedown"] * 20 + ["up"] * 20 + ["pageup"] * 10
        keys += ["end", "home"] * 5
        timings: dict[str, list[float]] = {}
        for key in keys:
            timings.setdefault(key, []).append(await _timed_key(app, vl, key))
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
        index = app.state.logdir
        out["index_mb"] = (index.traces.nbytes() + index.executions.nbytes()
                           + index.outputs.nbytes()) / 1e6
        beat.cancel()
    _beat[0] = float("inf")  # measured: the watchdog has nothing more to watch
    out["rss_mb"] = _rss_mb()
    out["rss_before_mb"] = rss_before
    return out


def _ms(values: list[float]) -> str:
    return (f"{statistics.median(values) * 1000:.1f} / {max(values) * 1000:.1f} ms"
            if values else "—")


def main(logdir: str, keys_while_indexing: bool = True, froze: str = ""
         ) -> tuple[str, dict[str, Any]]:
    """Run the TUI benchmark on `logdir`; returns (a Markdown section, the raw numbers).
    `froze`: why keys are not sent while indexing (an earlier attempt froze the app)."""
    import_s = _import_time()
    r = asyncio.run(_measure(logdir, keys_while_indexing))
    after = [x for k, v in r["timings"].items() if k != "g prompt opens" for x in v]
    during = r["during"]
    median = statistics.median(during + after)

    def ok(value: float, bar: float) -> str:
        return "✅" if value <= bar else "❌"

    rows = [
        "## TUI (`tfdbg-tui LOGDIR`, first open)",
        "",
        f"Logdir: {r['records']:,} records ({r['traces']:,} graph traces), opened with an "
        "empty index cache. Headless Textual app at 200×50, keys sent through the pilot; each "
        "key is timed until its cursor moved and the next frame is drawn.",
        "",
        "| measure | value | bar |",
        "|---|---|---|",
        f"| first paint after launch (logdir discovery + app start) | "
        f"{r['first_paint'] * 1000:.0f} ms | ≤ 1 s {ok(r['first_paint'], FIRST_PAINT_BAR)} |",
        f"| first alert selected (and drawn) | {r['first_alert']:.2f} s | ≤ 3 s "
        f"{ok(r['first_alert'], FIRST_ALERT_BAR)} |",
        f"| … that first alert shown is the run's earliest (known once indexed) | "
        f"{'yes' if r['earliest'] else 'no'} | |",
        f"| import of the app (fresh interpreter, paid before launch) | "
        f"{import_s * 1000:.0f} ms | |",
        f"| indexing done (in a worker; screen usable throughout) | {r['indexed']:.1f} s | |",
        f"| median key-to-repaint, all keys below | {median * 1000:.1f} ms | "
        f"≤ 16 ms {ok(median, KEY_BAR)} |",
        f"| — ↓/↑ while indexing ×{len(during)}: median / max | {_ms(during)} | |"
        if keys_while_indexing else
        f"| — ↓/↑ while indexing | not measured: {froze} | ❌ |",
    ]
    for key, values in r["timings"].items():
        rows.append(f"| — {key} ×{len(values)} (indexed): median / max | {_ms(values)} | |")
    rows += [
        f"| follow a row (Structure, Stack, Source request; debounced after keys): "
        f"median / max | {_ms(r['follow'])} | |",
        f"| peak RSS of the process | {r['rss_mb']:.0f} MB | |",
        f"| of which the reader's numpy index | {r['index_mb']:.0f} MB | |",
        f"| RSS before opening (Python + Textual + numpy) | {r['rss_before_mb']:.0f} MB | |",
        "",
    ]
    raw = {k: v for k, v in r.items() if k not in ("timings", "during", "follow",
                                                    "first_alert_id")}
    raw.update(median_key=median, median_during=statistics.median(during) if during else None,
               keys_during=len(during), import_s=import_s,
               max_during=max(during) if during else None)
    return "\n".join(rows), raw


if __name__ == "__main__":
    idle = sys.argv[2:3] == ["--no-keys-while-indexing"]
    section, numbers = main(sys.argv[1], not idle, " ".join(sys.argv[3:]))
    print(section)
    print(json.dumps(numbers))
