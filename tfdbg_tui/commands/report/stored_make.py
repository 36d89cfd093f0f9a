"""Making the report `tfdbg-tui index` stores beside a run's shards (reading it, and the
rules that say when it is current: `tfdbg_tui.commands.report.stored`).

Made in `index`'s own process once every file set landed, by the code `report` runs (the
run opened from the shards just written, `build_report` with report's defaults), then
checked: nothing that makes it differ from what `report` would make later (a shard not
used, a file not read whole, a model that does not come back from JSON the same), and no
file or shard changed while it was made. Written whole, as a shard is.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from reader.cache.location import blake2b
from reader.cache.snapshot import ALL_FILES
from tfdbg_tui.commands.report.stored import (
    DEFAULT_LIMIT,
    FORMAT,
    LIMIT,
    MAX_DEPTH,
    Stale,
    check_bytes,
    code_files,
    current,
    listed,
    name_for,
    nesting,
    report_stamp,
    source_of,
)
from tfdbg_tui.core.sanitize import literal

SHARD_WARNINGS = ("shard not used", "shards not used", ": not indexed: ", ": cannot read (",
                  ": reading stopped at byte ")


def store(path: str, run: str | None, where: str) -> str:
    """After `tfdbg-tui index` wrote the shards of `path`'s run into `where`: make the run's
    report from them, as `report` would, and store it there — unless the one there is
    current. Returns one line saying which (or why none was stored)."""
    import time

    from reader import DebugLogdir
    from reader.index.shard_store import SHARDS_ENV
    from reader.index.shard_task import _put, _shown
    from reader.io import regular

    t0 = time.monotonic()
    old_env = os.environ.get(SHARDS_ENV)
    os.environ[SHARDS_ENV] = where  # the run opened from these shards (`--out`)
    try:
        listing = DebugLogdir(path, run)
        target = regular.join(where, name_for(listing.run_id))
        try:
            if name_for(listing.run_id) in regular.listdir(where):
                current(target, listing, where, DEFAULT_LIMIT)
                return "the stored report is up to date"
        except Exception:  # stale, or not one: made anew
            pass
        header = _key_of(listing, where)
        if isinstance(header, str):
            return f"no report stored: {header}"
        logdir = DebugLogdir(path, run)  # (no index cache: nothing kept but the report)
        made = _make(logdir, header, where)
        if isinstance(made, str):
            return f"no report stored: {made}"
        try:
            _put(target, where, lambda f: f.write(made))
        except OSError as exc:  # (a folder planted at its name: the file, not our temporary)
            return f"no report stored: {_shown(exc.filename, target)}: {exc.strerror or exc}"
    finally:
        if old_env is None:
            os.environ.pop(SHARDS_ENV, None)
        else:
            os.environ[SHARDS_ENV] = old_env
    return f"report stored beside the shards ({time.monotonic() - t0:.1f} s)"


def _key_of(logdir: Any, where: str) -> dict[str, Any] | str:
    """The stored report's header (its digest to come): the identities of every file set's
    files as its current shard names them, and of each shard file; or why there is none
    (a file set without a current shard)."""
    from reader.cache.identity import file_identity
    from reader.index.parquet_shards import ShardError, metadata
    from reader.index.shard_store import (
        _allowed_owners,
        open_shard_file,
        portable,
        shard_path,
        stale_reason,
    )

    src, owners = source_of(logdir.path), _allowed_owners(logdir.path)
    files, shards = {}, {}
    for fs in logdir.filesets:
        target = shard_path(where, fs)
        try:
            data = open_shard_file(target, 1 << 62, owners)
            try:
                meta = metadata(data)
            finally:
                if not isinstance(data, bytes):
                    data.close()
        except OSError as exc:
            return f"{fs.name}.parquet: {exc.strerror or exc}"
        except ShardError as exc:
            return f"{fs.name}.parquet: {exc}"
        why = stale_reason(meta, fs, logdir.run_id, src, exact=True)
        if why is not None:
            return f"{fs.name}.parquet: {why}"
        files[fs.name] = {s: portable(meta["files"][s]) for s in ALL_FILES}
        shards[fs.name] = portable(file_identity(target))
    return {"format": FORMAT, "logdir": logdir.path,
            "run": logdir.run_id, "source": src, "limit": DEFAULT_LIMIT,
            "listed": listed(logdir), "files": files, "shards": shards}


def _make(logdir: Any, header: dict[str, Any], where: str) -> bytes | str:
    """The stored report's bytes (header line, model), made as `report` makes it; or why
    none is stored (the run has nothing to report, a shard was not used, the model does not
    come back the same from JSON)."""
    from tfdbg_tui.commands.report import _nothing_readable, build_parser
    from tfdbg_tui.commands.report.build import build_report
    from tfdbg_tui.core.recorded import nothing_recorded

    if listed(logdir) != header["listed"]:
        return "the logdir changed while it was read"
    logdir.update()
    if _nothing_readable(logdir) or nothing_recorded(logdir) is not None:
        return "nothing recorded to report"
    model = build_report(logdir, DEFAULT_LIMIT, build_parser().parse_args([logdir.path]))
    if any(w in line for line in model["warnings"] for w in SHARD_WARNINGS):
        return "the shards were not all used or a file could not be read"
    try:
        body = json.dumps(model, allow_nan=True).encode()
    except (TypeError, ValueError) as exc:
        return f"the report is not JSON ({exc})"
    if (len(body) > LIMIT // 2 or nesting(model) > MAX_DEPTH
            or not _same(json.loads(body), model)):
        return "the report does not come back the same from JSON"
    from tfdbg_tui.commands.report.text import render_report

    try:
        list(render_report(model))  # (and the code its human form runs is loaded)
    except Exception as exc:
        return f"the report cannot be rendered ({type(exc).__name__}: {exc})"
    files = code_files()
    header = {**header, "code": files, "stamp": report_stamp(files)}
    try:
        check_bytes(header, logdir, where)  # nothing changed while it was made
    except Stale as exc:
        return str(exc)
    head = {**header, "digest": blake2b(body, digest_size=16).hexdigest()}
    return json.dumps(head).encode() + b"\n" + body


def _same(a: Any, b: Any) -> bool:
    """Equal, of the same types, keys in the same order (a NaN equal to a NaN): what the
    text and the JSON renderings of the two cannot tell apart."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b or (a != a and b != b)
    return bool(a == b)


def stored_report_line(path: str, run: str, where: str) -> str:
    """`index`'s line about the run's stored report (made here unless the one there is
    current); a failure to make or write it is said in that line, the shards stay."""
    from reader import ReaderError

    try:
        if not sys.stderr.isatty():
            return literal(store(path, run, where))
        from rich.console import Console

        with Console(stderr=True).status("making the run's report from its shards…"):
            return literal(store(path, run, where))
    except (ReaderError, OSError, ValueError, MemoryError) as exc:
        return literal(f"no report stored: {type(exc).__name__}: {exc}", limit=300)
