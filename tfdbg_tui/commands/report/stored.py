"""The run's report stored beside its shards: `tfdbg-tui index` makes it, `report` reads it.

Why: a `report` from the shards still merges every row of every host (~1.5 s of CPU for
12.5M records), because the incidents and the diagnosis ask whole-run questions of the
merged index; asking them per host would change answers where hosts share graph or eager
tensor ids (docs/scale-out.md). So the answers are not asked anew: once the shards have
landed, `index` makes the report as `report` would (the same code: the run opened from its
shards, `build_report`) and stores its JSON model beside them; `report` then reads that
model and checks the bytes it was made from are still there, instead of merging.

The stored report (`report-<hash of the run id>.json` in the shard folder) is a header line
(JSON) and the model's bytes. It is used only when it is *current* — the shards' trust rules
(`reader.index.shard_store`, SECURITY.md) plus what a report depends on besides the
records:
- the same file: a regular file of a trusted owner, writable by its owner alone (an object
  read in one GET), no bigger than `LIMIT`; the model's bytes hash to the header's digest;
- made by the same code (a digest of the source of every module of ours that was loaded
  when it was made and rendered, of the reader's compiled core's sources, and of Python's,
  numpy's and Rich's versions: `report_stamp`), for the same logdir path, run, endpoint
  and `--limit`, of the same listing (the run's file sets, their files, the runs beside it,
  the warnings listing them gave);
- every file of every file set still holds the bytes it identifies, and has not grown
  (as for a shard), and every shard file is still the one the report was made from.
Anything else — stale, forged, damaged — is dropped with a warning (stderr) and the report
is made from the shards as before. `--values` (which reads tensors' values back) and a cache
folder that is not a folder (a warning of its own in the report) always make it anew.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from reader.cache.location import blake2b
from reader.cache.snapshot import ALL_FILES

FORMAT = 1
LIMIT = 64 << 20  # bytes of a stored report (its model is a few MB at most: 10,000 steps)
MAX_DEPTH = 64  # lists and dicts in a report nest ~8 deep
DEFAULT_LIMIT = 10  # the `--limit` it is made for (report's default)
PREFIX, SUFFIX = "report-", ".json"

MAX_FILES = 2000  # modules a report's code may name
_MODULE = re.compile(r"(reader|tfdbg_tui)(/[A-Za-z_][A-Za-z0-9_]*)*\.py")
# a report's keys, in order, and their types (`build.build_report`)
SHAPE: dict[str, type] = {
    "logdir": str, "run": dict, "runs": list, "tensor_debug_modes": list, "counts": dict,
    "alerts": dict, "steps": dict, "incidents": list, "first_alerts": list, "notes": list,
    "warnings": list}


def code_files() -> list[str]:
    """The source files (relative to the tree) of every module of ours loaded in this
    process: after a report was made and rendered, the code it depended on."""
    root = _root()
    out = set()
    for name, module in list(sys.modules.items()):
        f = getattr(module, "__file__", None)
        if name.split(".")[0] in ("reader", "tfdbg_tui") and f:
            path = Path(f).resolve()
            if path.suffix == ".py" and path.is_relative_to(root):
                out.add(path.relative_to(root).as_posix())
    return sorted(out)


def report_stamp(files: Any) -> str | None:
    """A digest of the code a report depends on: `files` (`code_files` when it was made),
    the shards' `code_stamp` (the reader's compiled core's sources among it), and the
    versions of Python, numpy and Rich (the human form). None when `files` is not a list of
    our modules' paths (a forged header). Why not the whole tree: a change to code the
    report never ran (the TUI, `diff`'s pairing) would make every stored report stale."""
    if (not isinstance(files, list) or not 0 < len(files) <= MAX_FILES
            or not all(isinstance(f, str) and _MODULE.fullmatch(f) for f in files)):
        return None
    import numpy

    from reader.cache.location import code_stamp

    try:
        from importlib.metadata import version

        rich = version("rich")
    except Exception:  # (not installed as a distribution: its files decide nothing here)
        rich = "?"
    root = _root()
    digest = blake2b(digest_size=12)
    digest.update(f"{sys.version}\0{numpy.__version__}\0{rich}\0{code_stamp()}\0".encode())
    for name in files:
        try:
            digest.update(name.encode() + b"\0" + (root / name).read_bytes())
        except OSError:
            digest.update(name.encode() + b"\0?")
    return digest.hexdigest()


def _root() -> Path:
    return Path(__file__).resolve().parents[3]


def name_for(run_id: str) -> str:
    """The stored report's file name: a run id is untrusted text, never part of a path."""
    return PREFIX + blake2b(run_id.encode(), digest_size=8).hexdigest() + SUFFIX


def listed(logdir: Any) -> dict[str, Any]:
    """What the listing of the logdir gave a report (before any record is read)."""
    return {"filesets": [[fs.name, sorted(fs.present)] for fs in logdir.filesets],
            "runs": [r.run_id for r in logdir.runs], "warnings": list(logdir.warnings)}


def source_of(path: str) -> str:
    from reader.io.remote import is_remote, source

    return source(path) if is_remote(path) else ""


# ------------------------------------------------------------------ reading
class Stale(Exception):
    """Why a stored report is not used (one line)."""


def read(path: str, run: str | None, limit: int, values: bool) -> dict[str, Any] | None:
    """The stored report of the run, when one is current for these options; None (the
    report is made from the shards or the logdir) otherwise, with a warning on stderr when
    one was there but could not be used."""
    from reader.cache.location import cache_dir_problem

    if values or limit != DEFAULT_LIMIT or cache_dir_problem() is not None:
        return None
    from reader import DebugLogdir
    from reader.index.shard_store import INDEX_DIR, SHARDS_ENV, folder
    from reader.io import regular
    from reader.io.remote import is_remote, local_path, normalize
    from reader.io.remote_listing import one_pass

    try:
        with one_pass():
            # no shard folder: nothing more is done here (the listing is the one the
            # report makes next: a folder, or a bucket's prefix, is listed once)
            here = local_path(path)
            here = normalize(here) if is_remote(here) else os.path.abspath(here)
            if not os.environ.get(SHARDS_ENV) and INDEX_DIR not in regular.listdir(here):
                return None
            logdir = DebugLogdir(path, run)
            where = folder(logdir.path)
            name = name_for(logdir.run_id)
            if name not in regular.listdir(where):
                return None
            target = regular.join(where, name)
            _last[0] = target
            try:
                return current(target, logdir, where, limit)
            except Stale as exc:
                why = str(exc)
            except Exception as exc:  # untrusted input: any surprise means "make it anew"
                why = "damaged (" + " ".join(f"{type(exc).__name__}: {exc}".split())[:200] + ")"
    except Exception:  # (no such logdir, no shard folder …: said by the usual path)
        return None
    _warn(f"{target}: stored report not used: {why}; the report was made from the shards "
          "(`tfdbg-tui index` stores it anew)")
    return None


def damaged(exc: BaseException) -> None:
    """Say that the stored report `read` returned could not be rendered (it is not used)."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    _warn(f"{_last[0]}: stored report not used: damaged ({text}); the report was made from "
          "the shards (`tfdbg-tui index` stores it anew)")


_last = [""]  # the stored report `read` returned last


def _warn(text: str) -> None:
    from tfdbg_tui.core.sanitize import error_line

    print(error_line("tfdbg-tui report: warning", text), file=sys.stderr)


def current(target: str, logdir: Any, where: str, limit: int) -> dict[str, Any]:
    header, body = _load(target, logdir.path)
    _check_key(header, logdir, limit)
    check_bytes(header, logdir, where)
    try:
        model = json.loads(body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Stale("damaged (not JSON)") from None
    if nesting(model) > MAX_DEPTH:
        raise Stale("damaged (nested too deep)")
    if (not isinstance(model, dict) or list(model) != list(SHAPE)
            or not all(isinstance(model[k], t) for k, t in SHAPE.items())
            or model.get("logdir") != logdir.path
            or model.get("runs") != header["listed"]["runs"]
            or not isinstance(model.get("run"), dict) or model["run"].get("id") != logdir.run_id
            or not isinstance(model.get("alerts"), dict)
            or type(model["alerts"].get("total")) is not int):
        raise Stale("it is not a report of this run")
    return model


def nesting(obj: Any) -> int:
    """How deep lists and dicts nest in `obj` (the renderings recurse that deep)."""
    deepest, todo = 0, [(obj, 1)]
    while todo:
        item, d = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                todo.extend((v, d + 1) for v in (item.values() if isinstance(item, dict)
                                                 else item))
    return deepest


def _load(target: str, logdir_path: str) -> tuple[dict[str, Any], bytes]:
    from reader.index.shard_store import _allowed_owners, read_bytes

    try:
        data = read_bytes(target, LIMIT, _allowed_owners(logdir_path))
    except OSError as exc:
        raise Stale(f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > LIMIT:
        raise Stale("larger than a report")
    line, sep, body = data.partition(b"\n")
    try:
        header = json.loads(line) if sep else None
    except (ValueError, UnicodeDecodeError, RecursionError):
        header = None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise Stale("not a stored report of this format")
    if header.get("digest") != blake2b(body, digest_size=16).hexdigest():
        raise Stale("its report is not the one its header names (changed after it was made)")
    return header, body


def _check_key(header: dict[str, Any], logdir: Any, limit: int) -> None:
    stamp = report_stamp(header.get("code"))
    if stamp is None or header.get("stamp") != stamp:
        raise Stale("made by another version of tfdbg-tui")
    if header.get("logdir") != logdir.path or header.get("run") != logdir.run_id:
        raise Stale("it is another run's")
    if header.get("source") != source_of(logdir.path):
        raise Stale("its objects were read from another endpoint")
    if header.get("limit") != limit:
        raise Stale("made for another --limit")
    if header.get("listed") != listed(logdir):
        raise Stale("the logdir's listing changed since it was made")


def check_bytes(header: dict[str, Any], logdir: Any, where: str) -> None:
    """Every file it was made from is there as it was, and so is every shard."""
    from reader.index.shard_store import _allowed_owners, holds, open_shard_file, shard_path
    from reader.io.remote import is_remote

    files, shards = header.get("files"), header.get("shards")
    names = [fs.name for fs in logdir.filesets]
    if (not isinstance(files, dict) or not isinstance(shards, dict)
            or sorted(files) != sorted(names) or sorted(shards) != sorted(names)):
        raise Stale("it names other file sets")
    jobs = [(fs, s) for fs in logdir.filesets for s in ALL_FILES]

    def same(job: tuple[Any, str]) -> bool:
        fs, s = job
        saved = files[fs.name]
        return isinstance(saved, dict) and holds(saved.get(s), fs.path(s), exact=True)

    for (fs, s), ok in zip(jobs, _map(same, jobs, logdir.path), strict=True):
        if not ok:
            raise Stale(f"{fs.name}.{s} changed since it was made")
    owners = _allowed_owners(logdir.path)
    for fs in logdir.filesets:
        target = shard_path(where, fs)
        if not is_remote(target):  # a shard file no longer trusted (SECURITY.md) is not either
            try:
                opened = open_shard_file(target, 1 << 62, owners)
                if not isinstance(opened, bytes):
                    opened.close()
            except OSError as exc:
                raise Stale(f"the shard {fs.name}.parquet: {exc.strerror or exc}") from None
        if not holds(shards[fs.name], target, exact=True):
            raise Stale(f"the shard {fs.name}.parquet changed since it was made")


def _map(fn: Any, jobs: list[Any], path: str) -> list[Any]:
    """`fn` over `jobs` in order; local files two at a time (hashing releases the GIL)."""
    from reader.io.remote import is_remote

    if is_remote(path) or len(jobs) < 2:
        return [fn(j) for j in jobs]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2, thread_name_prefix="tfdbg-stored") as pool:
        return list(pool.map(fn, jobs))
