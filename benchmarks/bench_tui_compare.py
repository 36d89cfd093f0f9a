"""TUI compare mode (`tfdbg-tui A --compare B`) on a 1M-trace pair, beside one run (A alone).

Issue 10 asks that compare mode on a 1M-trace pair "stay as responsive as one run". Run B is a
copy of A (`bench_diff._copy_of`): every tensor aligns by name and is compared — the most work
the comparison can do — and no tensor differs. Each measurement is a fresh process on a first
open (an empty index cache), the app headless at 200×50, keys sent through the pilot and timed
as `bench_tui` times them (post the key; the cursor moved; the next frame composited). Per run:
- first paint, first alert selected, A indexed, and (compare mode) the comparison shown
  (`app.compared`: B read, compared, the column drawn);
- ↓/↑ in Graph Executions every ~30 ms while A is indexed, then while B is read and compared;
- once shown: ↓, PgDn, ↑, PgUp, End/Home; and `d` / `D` (next / previous divergence), which on
  an equivalent pair move nothing but say so: timed until that notice is mounted and drawn;
- peak RSS of the process.
The same measurement without B gives the one-run column. Bars: median key-to-repaint in
compare mode ≤ 16 ms, and within 2× of the one-run median. A frozen app ends its process with
the threads' stacks (`bench_tui`'s watchdog) and the section says so instead of hanging.

Usage: python -m benchmarks.bench_tui_compare A B [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

from benchmarks.bench_tui import (
    FROZE_STATUS,
    FROZEN_AFTER,
    KEY_BAR,
    _beat,
    _heartbeat,
    _ms,
    _rss_mb,
    _timed_key,
    _watchdog,
    settle,
)

RATIO_BAR = 2.0  # compare mode's median key-to-repaint ≤ this × one run's
AFTER_INDEXED = 2.0  # one run: ↓/↑ this long after indexing (≈ how long comparing takes)
CHILD_TIMEOUT = 300.0  # one measured open of the 1.25M pair takes well under a minute
CURSOR_KEYS = ["down"] * 40 + ["pagedown"] * 20 + ["up"] * 20 + ["pageup"] * 10
CURSOR_KEYS += ["end", "home"] * 5


async def _timed_notice(app: Any, vl: Any, key: str) -> tuple[float, str]:
    """Post `key`; seconds until the cursor moved, or a new notification's toast is mounted,
    and the next frame is drawn. Returns (seconds, what happened)."""
    from textual.widgets._toast import Toast

    seen = {n.identity for n in app._notifications}
    before = vl.cursor_index
    t = time.perf_counter()
    app.simulate_key(key)
    what = ""
    while not what:
        if vl.cursor_index != before:
            what = "moved"
        for toast in app.screen.query(Toast):
            if toast._notification.identity not in seen and toast.is_mounted:
                what = toast._notification.message
        if not what:
            await asyncio.sleep(0)
    app.screen._on_timer_update()
    return time.perf_counter() - t, what


async def _stamp(event: asyncio.Event, t0: float) -> float:
    """Seconds from `t0` until the app sets `event` (as soon as the event loop sees it)."""
    await event.wait()
    return time.perf_counter() - t0


def _say(msg: str) -> None:
    """A phase reached, on file descriptor 2 (Textual replaces sys.stderr while it runs)."""
    os.write(2, f"[tui-compare child {time.strftime('%H:%M:%S')}] {msg}\n".encode())


async def _keys_until(app: Any, vl: Any, event: asyncio.Event, out: list[float]) -> None:
    """↓/↑ (20 of each in turn) every ~30 ms until `event` is set."""
    step = 0
    while not event.is_set():
        if app.state.snapshot.traces > 100:
            out.append(await _timed_key(app, vl, "down" if (step // 20) % 2 == 0 else "up"))
            step += 1
        await asyncio.sleep(0.03)


async def _measure(a: str, b: str | None) -> dict[str, Any]:
    from reader import DebugLogdir
    from tfdbg_tui.core.memory import calm_collector
    from tfdbg_tui.ui.app import TfdbgApp

    t0 = time.perf_counter()
    other = DebugLogdir(b, cache=True, digests=True) if b else None
    app = TfdbgApp(DebugLogdir(a, cache=True, digests=b is not None), follow=False,
                   compare_with=other)
    calm_collector()  # as `tfdbg-tui A --compare B` does before it runs the app
    out: dict[str, Any] = {"during_index": [], "during_compare": [], "timings": {}}
    async with app.run_test(size=(200, 50), notifications=True) as pilot:  # toasts drawn
        beat = asyncio.create_task(_heartbeat())
        threading.Thread(target=_watchdog, daemon=True).start()
        stamps = {name: asyncio.create_task(_stamp(event, t0)) for name, event in
                  (("indexed", app.indexed), ("compared", app.compared))}
        while app.first_paint is None:
            await asyncio.sleep(0.002)
        out["first_paint"] = app.first_paint - t0
        while app.main is None or app.main.alerts.selected_alert() is None:
            await asyncio.sleep(0.002)
        app.screen._on_timer_update()
        out["first_alert"] = time.perf_counter() - t0
        _say("first alert")
        s = app.main
        vl = s.ge.vlist
        app.simulate_key("3")  # not pilot.press: it waits for the process to idle (≤ 1 s)
        while app.focused is not vl:
            await asyncio.sleep(0)
        await _keys_until(app, vl, app.indexed, out["during_index"])
        out["indexed"] = await stamps["indexed"]
        _say("indexed")
        if other is not None:
            await _keys_until(app, vl, app.compared, out["during_compare"])
            out["compared"] = await stamps["compared"]
            _say("compared")
            out["compare_error"] = s.compare_view is None
        else:  # the same keys for as long as comparing takes: the period side by side
            stamps["compared"].cancel()
            quiet = asyncio.Event()
            asyncio.get_running_loop().call_later(AFTER_INDEXED, quiet.set)
            await _keys_until(app, vl, quiet, out["during_compare"])
        await settle(app, pilot)
        out["traces"] = app.state.snapshot.traces
        out["records"] = out["traces"] + app.state.snapshot.executions
        _say("settled")
        if s.compare_view is not None:
            out["summary"] = s.compare_view.summary()
        await pilot.press("3")
        await settle(app, pilot)
        timings: dict[str, list[float]] = out["timings"]
        for key in CURSOR_KEYS:
            timings.setdefault(key, []).append(await _timed_key(app, vl, key))
            await settle(app, pilot)  # let the debounced follow finish, outside the timing
        if other is not None:
            await pilot.press("pagedown")  # mid-list: `d`/`D` both have somewhere to look
            await settle(app, pilot)
            for key in ["d", "D"] * 10:
                took, what = await _timed_notice(app, vl, key)
                timings.setdefault(key, []).append(took)
                out.setdefault("said", {})[key] = what
                app.clear_notifications()
                await settle(app, pilot)
        beat.cancel()
    _beat[0] = float("inf")  # measured: the watchdog has nothing more to watch
    out["rss_mb"] = _rss_mb()
    return out


def _child(a: str, b: str | None) -> tuple[dict[str, Any] | None, str]:
    """One measured open in a fresh process with an empty cache: (numbers, or None and why)."""
    cmd = [sys.executable, "-m", "benchmarks.bench_tui_compare", "--child", a]
    if b:
        cmd.append(b)
    mode = "compare mode" if b else "one run"
    with tempfile.TemporaryDirectory(prefix="tfdbg-bench-cache-") as cache:
        env = {**os.environ, "TFDBG_TUI_CACHE_DIR": cache, "PYTHONDONTWRITEBYTECODE": "1"}
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env,
                                  timeout=CHILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            why = f"{mode}: the run did not end within {CHILD_TIMEOUT:.0f} s (stopped)"
            print(why, file=sys.stderr, flush=True)
            return None, why
    if proc.returncode == FROZE_STATUS:
        why = (f"{mode}: the app froze (its event loop stuck {FROZEN_AFTER:.0f} s; the "
               "threads' stacks are on stderr)")
        print(why, file=sys.stderr, flush=True)
        return None, why
    if proc.returncode != 0:
        raise SystemExit(f"{mode}: the measurement failed with status {proc.returncode}")
    r: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return r, ""


def _pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Key samples pooled over the runs; one-off figures as the median of the runs."""
    keys: dict[str, list[float]] = {}
    for r in runs:
        for k, v in r["timings"].items():
            keys.setdefault(k, []).extend(v)
    scalars = ("first_paint", "first_alert", "indexed", "compared", "rss_mb")
    p: dict[str, Any] = {k: statistics.median(r[k] for r in runs) for k in scalars
                         if k in runs[0]}
    p.update(keys=keys, during_index=[x for r in runs for x in r["during_index"]],
             during_compare=[x for r in runs for x in r["during_compare"]],
             runs=[{k: r[k] for k in scalars if k in r} for r in runs])
    p["cursor_after"] = [x for k in keys if k not in ("d", "D") for x in keys[k]]
    p["all"] = (p["during_index"] + p["during_compare"]
                + [x for v in keys.values() for x in v])
    p["median"] = statistics.median(p["all"])
    return p


def _render(one: dict[str, Any], cmp: dict[str, Any], first: dict[str, Any],
            repeats: int) -> str:
    def ok(good: bool) -> str:
        return "✅" if good else "❌"

    def t(p: dict[str, Any], k: str, unit: str = "s") -> str:
        if k not in p:
            return "—"
        return f"{p[k] * 1000:.0f} ms" if unit == "ms" else f"{p[k]:.2f} s"

    ratio = cmp["median"] / one["median"]
    ratio_cmp = (statistics.median(cmp["during_compare"])
                 / statistics.median(one["during_compare"]) if cmp["during_compare"] else None)
    said = first.get("said", {})
    rows = [
        "## TUI compare mode (`tfdbg-tui A --compare B`) vs one run", "",
        f"Run A: {first['records']:,} records ({first['traces']:,} graph traces, FULL_HEALTH); "
        f"run B: a copy of A (every tensor aligns and is compared; none differs). Each column: "
        f"{repeats} fresh processes, first open (empty index cache), headless Textual app at "
        "200×50, keys through the pilot, each timed until its cursor moved (or its notice "
        "showed) and the next frame is drawn. Key times pooled over the runs (median / max); "
        "one-off times are the median of the runs.", "",
        "| measure | one run (A) | compare mode (A vs B) | bar |", "|---|---|---|---|",
        f"| first paint | {t(one, 'first_paint', 'ms')} | {t(cmp, 'first_paint', 'ms')} | |",
        f"| first alert selected (and drawn) | {t(one, 'first_alert')} | "
        f"{t(cmp, 'first_alert')} | |",
        f"| A indexed | {t(one, 'indexed')} | {t(cmp, 'indexed')} | |",
        f"| comparison shown (B read, compared, column drawn) | — | {t(cmp, 'compared')} | |",
        f"| **median key-to-repaint, all keys below** | {one['median'] * 1000:.1f} ms | "
        f"**{cmp['median'] * 1000:.1f} ms** | ≤ 16 ms {ok(cmp['median'] <= KEY_BAR)} |",
        f"| compare mode / one run (medians) | | **{ratio:.2f}×** | ≤ {RATIO_BAR:.0f}× "
        f"{ok(ratio <= RATIO_BAR)} |",
        f"| — ↓/↑ while A is indexed ×{len(one['during_index'])} / "
        f"×{len(cmp['during_index'])} | {_ms(one['during_index'])} | "
        f"{_ms(cmp['during_index'])} | |",
        f"| — ↓/↑ from A indexed: compare mode while B is read and compared, one run for "
        f"{AFTER_INDEXED:.0f} s ×{len(one['during_compare'])} / ×{len(cmp['during_compare'])}"
        f" | {_ms(one['during_compare'])} | {_ms(cmp['during_compare'])} | "
        + (f"median {ratio_cmp:.2f}× one run's: ≤ {RATIO_BAR:.0f}× "
           f"{ok(ratio_cmp <= RATIO_BAR)} |" if ratio_cmp is not None else "no keys |"),
    ]
    for key in one["keys"]:
        rows.append(f"| — {key} (indexed; compare mode: column shown) | "
                    f"{_ms(one['keys'][key])} | {_ms(cmp['keys'].get(key, []))} | |")
    for key, what in (("d", "next divergence"), ("D", "previous divergence")):
        if key in cmp["keys"]:
            rows.append(f"| — `{key}` ({what}; says \"{said.get(key, '?')}\") | — | "
                        f"{_ms(cmp['keys'][key])} | |")
    rows += [
        f"| peak RSS of the process | {one['rss_mb']:.0f} MB | {cmp['rss_mb']:.0f} MB | |",
        "",
        "Per run (first paint / first alert / indexed / compared): one run "
        + "; ".join(f"{r['first_paint'] * 1000:.0f} ms / {r['first_alert']:.2f} / "
                    f"{r['indexed']:.2f} s" for r in one["runs"])
        + " — compare mode "
        + "; ".join(f"{r['first_paint'] * 1000:.0f} ms / {r['first_alert']:.2f} / "
                    f"{r['indexed']:.2f} / {r.get('compared', float('nan')):.2f} s"
                    for r in cmp["runs"]) + ".",
    ]
    if "summary" in first:
        rows.append(f"The app's summary: \"{first['summary']}\".")
    return "\n".join(rows) + "\n"


def main(a: str, b: str, repeats: int = 3) -> tuple[str, dict[str, Any]]:
    """Measure one run and compare mode `repeats` times each (alternating, so load drifts hit
    both alike); returns (Markdown section, raw numbers)."""
    got: dict[str | None, list[dict[str, Any]]] = {None: [], b: []}
    for _ in range(repeats):
        for other in (None, b):
            r, why = _child(a, other)
            if r is None:
                section = ("## TUI compare mode (`tfdbg-tui A --compare B`) vs one run\n\n"
                           f"❌ {why}.\n")
                return section, {"froze": why}
            got[other].append(r)
    one, cmp = _pool(got[None]), _pool(got[b])
    raw = {"one_median": one["median"], "compare_median": cmp["median"],
           "ratio": cmp["median"] / one["median"], "compared_s": cmp.get("compared"),
           "rss_one_mb": one["rss_mb"], "rss_compare_mb": cmp["rss_mb"],
           "keys_while_comparing": len(cmp["during_compare"])}
    return _render(one, cmp, got[b][0], repeats), raw


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m benchmarks.bench_tui_compare")
    p.add_argument("a")
    p.add_argument("b", nargs="?")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        import faulthandler
        import signal

        faulthandler.register(signal.SIGUSR1, file=2, all_threads=True)
        print(json.dumps(asyncio.run(_measure(args.a, args.b))))
    elif args.b is None:
        p.error("give run B (e.g. a copy of A)")
    else:
        section, numbers = main(args.a, args.b, args.repeats)
        print(section)
        print(json.dumps(numbers))
