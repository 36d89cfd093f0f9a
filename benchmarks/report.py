"""BENCHMARKS.md from one `make bench` run's numbers (see `benchmarks.run`).

MB here is 10^6 bytes; peak RSS is the whole process's maximum resident set (`wait4`), which
counts memory-mapped cache pages that were touched.
"""

from __future__ import annotations

import statistics
from typing import Any

MB = 1e6


def _mark(ok: bool) -> str:
    return "✅" if ok else "❌"


def _s(x: float) -> str:
    return f"{x:.2f} s"


def _runs(xs: list[float]) -> str:
    return ", ".join(f"{x:.2f}" for x in xs) + " s"


def _goals(res: dict[str, Any]) -> list[str]:
    rows: list[tuple[str, str, str, bool | None]] = []
    if "reader" in res:
        r = res["reader"]
        rows.append(("1.25M records: `report --json` vs TensorFlow's reader + InfNanMonitor, "
                     "whole process", "≥ 30× faster",
                     f"{r['speedup']:.1f}× ({_s(r['ours']['wall'])} vs "
                     f"{_s(r['tf']['wall'])})", r["speedup"] >= 30))
        rows.append(("… peak memory", "≤ 1/15 of TF's",
                     f"1/{1 / r['memory_share']:.1f} ({r['ours']['rss'] / MB:.0f} vs "
                     f"{r['tf']['rss_process'] / MB:.0f} MB)", r["memory_share"] <= 1 / 15))
    if "scale" in res:
        c = res["scale"]["cold"]
        rows.append(("12.5M records: `report --json`, first read", "≤ 8 s",
                     _s(c["wall"]), c["wall"] <= 8))
        rows.append(("… peak memory", "≤ 600 MB", f"{c['rss'] / MB:.0f} MB",
                     c["rss"] <= 600 * MB))
    if "tui" in res:
        t = res["tui"][1]
        if "first_alert" in t:
            rows.append(("12.5M records, TUI first open: first alert selected", "≤ 3 s",
                         _s(t["first_alert"]), t["first_alert"] <= 3))
        if "median_key" in t:
            rows.append(("… median key-to-repaint (while indexing and after)", "≤ 16 ms",
                         f"{t['median_key'] * 1000:.1f} ms", t["median_key"] <= 0.016))
        if t.get("max_during") is not None:
            rows.append(("… max key-to-repaint while indexing", "≤ 100 ms",
                         f"{t['max_during'] * 1000:.1f} ms", t["max_during"] <= 0.1))
        if t.get("stopped") or not t.get("keys_during"):
            rows.append(("… stays responsive while indexing", "keys handled",
                         "no: see the TUI section", False))
    if "cache" in res:
        for name, label in (("big", "1.25M"), ("big10", "12.5M")):
            x = res["cache"][name]
            rows.append((f"reopen {label} records from the cache, to a complete index",
                         "≤ 0.5 s", _s(x["reopen_s"]), x["reopen_s"] <= 0.5))
    if "live" in res:
        for mode in ("notify", "poll"):
            x = res["live"][mode]
            worst = x["max"] if x["max"] is not None else float("inf")
            rows.append((f"live: appended records visible ({x['mode']})", "≤ 0.5 s",
                         f"median {x['median'] * 1000:.0f} ms, max {worst * 1000:.0f} ms",
                         worst <= 0.5 and not x["missed"]))
    if "diff" in res:
        d = res["diff"][1]
        rows.append(("diff of two 1.25M-record runs, first read", "≤ 1.5× one report",
                     f"{d['ratio_cold']:.2f}× ({_s(d['diff']['cold'])} vs "
                     f"{_s(d['report']['cold'])})", d["ratio_cold"] <= 1.5))
    if "scaleout" in res:
        x = res["scaleout"][1]
        if "remote" in x:
            r = x["remote"]
            rows.append(("1.25M records from the local S3 server: `report --json`",
                         "≤ 2× local disk", f"{r['ratio']:.2f}×", r["ratio"] <= 2))
        if "export" in x:
            e = x["export"]
            rows.append(("`export` of 1.25M records (Parquet)", "≤ one report",
                         f"{e['ratio']:.2f}× ({_s(e['export']['wall'])} vs "
                         f"{_s(e['report']['wall'])})", e["ratio"] <= 1))
        if "hosts" in x:
            h = x["hosts"]
            rows.append(("8 hosts indexed in worker processes vs one after another",
                         "≥ 1.6× faster", f"{h['speedup']:.2f}×", h["speedup"] >= 1.6))
    if "shards" in res:
        x = res["shards"][1]
        t, rep = x["tui"], x["report"]
        rows.append(("12.5M records on 10 hosts, TUI first open from shards: first alert",
                     "≤ 1 s", _s(t["first_alert"]), t["first_alert"] <= 1))
        rows.append(("… peak RSS when it is shown", "≤ 300 MB",
                     f"{t['rss_first_alert']:.0f} MB", t["rss_first_alert"] <= 300))
        rows.append(("… peak RSS once every shard is merged", "≤ 300 MB",
                     f"{t['rss_peak']:.0f} MB", t["rss_peak"] <= 300))
        rows.append(("`report --json` from shards vs a direct first read (10 hosts)", "≤ 1/4",
                     f"{rep['ratio']:.2f}", rep["ratio"] <= 0.25))
    out = ["## Goals, measured in this run", "",
           "| goal | bar | measured | |", "|---|---|---|---|"]
    out += [f"| {a} | {b} | {c} | {_mark(ok) if ok is not None else ''} |"
            for a, b, c, ok in rows]
    return [*out, ""]


def _reader(r: dict[str, Any], size_mb: float) -> list[str]:
    o, tf, rep = r["ours"], r["tf"], r["ours"]["report"]
    return [
        "## Reader, 1.25M records: `report --json` vs TensorFlow's reader", "",
        f"Logdir: {rep['counts']['graph_traces']:,} graph traces + "
        f"{rep['counts']['executions']:,} executions ({size_mb:.0f} MB, "
        f"{rep['alerts']['total']:,} NaN/∞ alerts), FULL_HEALTH. Both readers agree on counts "
        f"and alert total: {'yes' if r['same'] else 'NO'}. Ours runs with an empty index cache "
        "each time (it reads every byte).", "",
        "| what | wall time | peak RSS |", "|---|---:|---:|",
        f"| `tfdbg-tui report --json` (whole process, median) | {_s(o['wall'])} | "
        f"{o['rss'] / MB:.0f} MB |",
        f"| TensorFlow reader + InfNanMonitor (whole process) | {_s(tf['wall'])} | "
        f"{tf['rss_process'] / MB:.0f} MB |",
        f"| TensorFlow reader + InfNanMonitor (reading only, import excluded) | "
        f"{_s(tf['seconds'])} | {(tf['rss_process'] - tf['rss_after_import']) / MB:.0f} MB "
        "above its import |", "",
        f"- Speed-up, process vs process: **{r['speedup']:.1f}×**; against TensorFlow's reading "
        f"time alone: **{r['speedup_read']:.1f}×**. Peak memory: **{o['rss'] / MB:.0f} MB = "
        f"1/{1 / r['memory_share']:.1f}** of TensorFlow's.",
        f"- Our runs: {_runs(o['walls'])} (load average during them: "
        f"{', '.join(f'{x:.1f}' for x in o['loads'])}).", "",
    ]


def _scale(s: dict[str, Any], size_mb: float) -> list[str]:
    c, w, tf = s["cold"], s["warm"], s["tf"]
    rep = c["report"]
    n = rep["counts"]["graph_traces"] + rep["counts"]["executions"]
    out = [
        "## 12.5M records (the 1.25M logdir ×10)", "",
        f"Logdir: {rep['counts']['graph_traces']:,} graph traces + "
        f"{rep['counts']['executions']:,} executions ({size_mb / 1000:.1f} GB, "
        f"{rep['alerts']['total']:,} alerts): the same real records replicated ten times "
        "further (`benchmarks/synth.py`: each replica's wall times shifted past the previous "
        "one's; no record the format would not hold).", "",
        "| what | wall time | peak RSS |", "|---|---:|---:|",
        f"| `report --json`, first read (empty cache), median of {len(c['walls'])} | "
        f"{_s(c['wall'])} | {c['rss'] / MB:.0f} MB |",
        f"| `report --json`, reopened from the cache, median of {len(w['walls'])} | "
        f"{_s(w['wall'])} | {w['rss'] / MB:.0f} MB |",
    ]
    done = tf["graph_traces"] + tf["executions"]
    if tf.get("finished"):
        out.append(f"| TensorFlow reader + InfNanMonitor (whole process) | {_s(tf['wall'])} "
                   f"| {tf['rss_process'] / MB:.0f} MB |")
        out.append("")
    else:
        rate = done / tf["seconds"] if tf["seconds"] else 0.0
        per = (tf["rss"] - tf["rss_after_import"]) / max(done, 1)
        out += [
            f"| TensorFlow reader + InfNanMonitor, stopped at {tf['seconds']:.0f} s | did not "
            f"finish | {tf['rss'] / MB:.0f} MB at the stop |", "",
            f"- In {tf['seconds']:.0f} s (import excluded) TensorFlow's reader took in "
            f"{tf['graph_traces']:,} graph traces and {tf['executions']:,} executions "
            f"({done / n:.1%} of the logdir, {rate:,.0f} records/s; it reads the traces "
            f"first), growing by {per:,.0f} bytes per record. At that rate the whole logdir "
            f"would take about {n / max(rate, 1) / 60:.0f} min and "
            f"{(tf['rss_after_import'] + per * n) / 1e9:.1f} GB (an extrapolation).",
        ]
    out += [f"- Our cold runs: {_runs(c['walls'])}; warm: {_runs(w['walls'])} (load average: "
            f"{', '.join(f'{x:.1f}' for x in c['loads'] + w['loads'])}).", ""]
    return out


def _cache(c: dict[str, Any]) -> list[str]:
    out = [
        "## Reopening from the index cache", "",
        "A fresh process opens a logdir whose index an earlier `report` saved (see the README, "
        "\"The index cache\"): files checked against the saved identities, columns "
        "memory-mapped, nothing re-read.", "",
        "| logdir | reader import | open + `update()` to a complete index | next `update()` "
        "(nothing new) |", "|---|---:|---:|---:|",
    ]
    for name, label in (("big", "1.25M records"), ("big10", "12.5M records")):
        x = c[name]
        out.append(f"| {label} | {x['import_s'] * 1000:.0f} ms | {x['reopen_s'] * 1000:.0f} ms "
                   f"| {x['idle_update_s'] * 1000:.2f} ms |")
    col = c["big10"]["columns"]
    out += ["", "## Memory per indexed record (12.5M records)", "",
            "What the index keeps in memory, by column (health counts are not kept per row: "
            "they are read back from the record by offset when a pane asks).", "",
            "| table | rows | column: bytes per row | bytes per row | MB |",
            "|---|---:|---|---:|---:|"]
    for t, d in col["tables"].items():
        per = sum(d["bytes_per_row"].values())
        cols = ", ".join(f"{k} {v}" for k, v in d["bytes_per_row"].items())
        out.append(f"| {t} | {d['rows']:,} | {cols} | {per} | {d['rows'] * per / MB:.0f} |")
    alerts = col["alerts"] * col["alert_bytes_per_alert"]
    alert_cols = ", ".join(f"{k} {v}" for k, v in col.get("alert_columns", {}).items())
    out += [f"| alerts | {col['alerts']:,} | {alert_cols} | {col['alert_bytes_per_alert']} | "
            f"{alerts / MB:.0f} |",
            f"| kinds, kept health details, strings | | | | "
            f"{(col['side_bytes'] + col['strings_bytes']) / MB:.2f} |", "",
            f"Total {col['total_bytes'] / MB:.0f} MB for {col['records']:,} records: "
            f"**{col['total_bytes'] / col['records']:.1f} bytes per indexed record** (graph "
            f"trace or execution; {col['main_bytes'] / col['records']:.1f} without the "
            "alerts).", ""]
    return out


def _live(x: dict[str, Any]) -> list[str]:
    out = ["## Live follow", "",
           "A writer thread appends real graph-trace records (1,000 per append, flushed, "
           "0.3–0.7 s apart) to a logdir; the follower waits on `reader.io.watch.ChangeWatcher` "
           "and calls `update()`. Latency: from the flush returning to the rows being in the "
           "index.", "",
           "| how | median | max | missed | CPU while nothing changes |",
           "|---|---:|---:|---:|---:|"]
    for mode, label in (("notify", "file-system notifications (watchfiles)"),
                        ("poll", "polling (network file systems; `TFDBG_TUI_FORCE_POLLING=1`)")):
        d = x[mode]
        lat = d["latencies"]
        out.append(f"| {label} [{d['mode']}] | {statistics.median(lat) * 1000:.0f} ms | "
                   f"{max(lat) * 1000:.0f} ms | {d['missed']} | "
                   f"{d['idle_cpu_share']:.2%} of a core |")
    u = x["update"]
    out += ["", f"`update()` with nothing new: {u['idle_ms']:.3f} ms (a `stat` per file); "
            f"reading 10,000 appended traces: {u['append_10k_ms']:.1f} ms.", ""]
    return out


def render(res: dict[str, Any], big: str, big10: str) -> str:
    from benchmarks.bench_reader import logdir_size

    load = res["load_start"]
    busy = max(v[1] for v in res["loads"].values()) if res["loads"] else load[0]
    head = [
        "# Benchmarks", "",
        f"Measured {res['date']} on: {res['machine']}.",
        f"Reproduce with `make bench` (this run: {res['total_s'] / 60:.0f} min; the logdirs "
        "are built once into `bench-data/`, the 12.5M one is 3.7 GB). Each benchmark runs in "
        "fresh processes; the TensorFlow comparisons run in the same session as ours.",
        f"The machine is shared with other work: load average {load[0]:.1f} at the start, up "
        f"to {busy:.1f} during sections (2 cores). "
        + ("Wall times are inflated by that load (ratios measured side by side less so)."
           if busy > 1.5 else "Expect ±20% between runs."), "",
    ]
    body = _goals(res)
    if "reader" in res:
        body += _reader(res["reader"], logdir_size(big) / MB)
    if "scale" in res:
        body += _scale(res["scale"], logdir_size(big10) / MB)
    if "tui" in res:
        body += [res["tui"][0]]
    if "cache" in res:
        body += _cache(res["cache"])
    if "live" in res:
        body += _live(res["live"])
    for name in ("tui-compare", "diff", "dumper", "scaleout", "shards"):
        if name in res:
            body += [res[name][0] if isinstance(res[name], tuple | list) else res[name]]
    loads = ", ".join(f"{k} {a:.1f}→{b:.1f} ({t:.0f} s)" for k, (a, b, t) in res["loads"].items())
    body += ["", f"Load average (1 min) at the start → end of each section: {loads}.", ""]
    return "\n".join(head + body)
