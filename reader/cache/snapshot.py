"""Saving a logdir's index and reopening it from the cache: what is kept, and when it is valid.

What is cached is what the two big files (`.graph_execution_traces`, `.execution`) produced:
the tensor tables, the alerts (already sorted), the interned strings, the modes, the warnings
those files gave and where reading them stopped. The small files (graphs, stack frames,
source files) are parsed again on every open: it is fast, and their objects stay Python's.

Reopening goes: read the small files; check every file of the run against the identity saved
with the entry (device, inode, size, mtime, ctime, a hash of its first and of its last cached
bytes, and of all of them — or of 512 blocks spread over them in a file over 16 MiB);
load the columns as memory-mapped arrays and check their types, lengths and value ranges;
then put it all in place at once, and let `update()` read only the bytes appended since. A
file that shrank, was replaced or changed in place makes the entry stale; anything damaged
in the cache makes it unusable — both mean the logdir is simply read again.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from reader.cache import remote_key
from reader.cache.files import CacheError, NoEntry, load_array
from reader.cache.identity import file_identity, still_holds
from reader.cache.location import blake2b, cache_dir_problem
from reader.cache.store import Store
from reader.index.schema import EAGER, GRAPH, TENSOR_TABLES, tensor_parts
from reader.io.remote import is_remote, source

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

BIG = ("graph_execution_traces", "execution")
SMALL = ("source_files", "stack_frames", "graphs")
ALL_FILES = ("metadata", *SMALL, *BIG)
MIN_ENV = "TFDBG_TUI_CACHE_MIN_BYTES"
DEFAULT_MIN_BYTES = 16 << 20  # smaller logdirs read faster than a cache is checked


def min_bytes() -> int:
    try:
        return max(0, int(os.environ.get(MIN_ENV, DEFAULT_MIN_BYTES)))
    except ValueError:
        return DEFAULT_MIN_BYTES


def _ints(value: Any, what: str) -> list[int]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise CacheError(f"{what}: not a list of integers")
    return value


def _in_range(a: np.ndarray, lo: int, hi: int, what: str) -> None:
    """Every value of `a` within [lo, hi)."""
    if len(a) and (int(a.min()) < lo or int(a.max()) >= hi):
        raise CacheError(f"{what}: values out of range")


@dataclass
class Loaded:
    """A cache entry read and checked, ready to be put in place."""

    tables: dict[str, dict[str, np.ndarray]]
    rows: dict[str, int]
    alerts: dict[str, np.ndarray]
    strings: list[str]
    trace_keys: list[tuple[int, int, int]]
    modes: frozenset[int]
    warnings: list[str]
    suppressed: int
    corrupt: int
    cursors: dict[tuple[int, str], tuple[int, bool, bool, str, int, int]]
    covered: int


class LogdirCache:
    """The cache of one open logdir: restores it on the first `update()`, saves it after."""

    def __init__(self, store: Store | None = None) -> None:
        self.store = store if store is not None else Store()
        self.key = ""
        self._started = False
        self._saved = False
        self._restored_bytes = -1  # bytes of the big files the restored entry covered
        self._mark = (0, 0, 0)  # problem log after the small files: (warnings, suppressed, corrupt)

    # ------------------------------------------------------------------ opening
    def before_update(self, logdir: DebugLogdir) -> None:
        """On the first update: read the small files, then adopt a valid cache entry."""
        if self._started:
            return
        self._started = True
        problem = cache_dir_problem()
        if problem is not None:
            logdir.warn(problem)
        self.key = _key(logdir)
        logdir.read_files(SMALL)
        p = logdir.problems
        self._mark = (len(p.warnings), p.suppressed, p.corrupt_records)
        try:
            loaded = self._load(logdir)
        except NoEntry:
            return
        except Exception:  # the cache is untrusted input: any surprise means "read the logdir"
            self.store.remove(self.key)  # stale or damaged: the next save replaces it
            return
        _adopt(logdir, loaded)
        self._restored_bytes = loaded.covered
        self.store.touch(self.key)

    def _load(self, logdir: DebugLogdir) -> Loaded:
        desc, folder = self.store.read(self.key)
        names = [fs.name for fs in logdir.filesets]
        saved_sets = desc.get("filesets")
        if (desc.get("logdir") != logdir.path or desc.get("run") != logdir.run_id
                or not isinstance(saved_sets, list) or saved_sets != names[: len(saved_sets)]):
            raise CacheError("entry is for other files")
        files = desc.get("files")
        if not isinstance(files, dict):
            raise CacheError("no file identities")
        for fsi in range(len(saved_sets)):
            for suffix in ALL_FILES:
                saved = files.get(f"{fsi}/{suffix}")
                if saved is not None and not still_holds(saved, logdir.filesets[fsi].path(suffix)):
                    raise CacheError("a file changed")
        strings = desc.get("strings")
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise CacheError("bad string table")
        n_strings, n_sets = len(strings), len(saved_sets)
        parts = tensor_parts(logdir)
        rows = {p: desc["rows"][p] for p in (*parts, "alerts")}
        _ints(list(rows.values()), "rows")
        digests = desc.get("digests") is True
        tables = {p: {c: (load_array(folder / f"{p}.{c}.npy", table.column_dtype(c), rows[p])
                          if c != "digest" or digests else _no_digests(rows[p]))
                      for c in table.columns}
                  for p, table in parts.items()}
        alerts = {c: load_array(folder / f"alerts.{c}.npy", dt, rows["alerts"])
                  for c, dt in logdir._alerts.spec().items()}
        _check_tables(tables, alerts, n_strings, n_sets)
        keys = [tuple(_ints(k, "trace key")) for k in desc.get("trace_keys", [])]
        if any(len(k) != 3 or not (0 <= k[0] < n_strings and 0 <= k[1] < n_strings
                                   and -1 <= k[2] < n_strings) for k in keys):
            raise CacheError("bad trace keys")
        problems = desc.get("problems", {})
        warnings = problems.get("warnings")
        if not isinstance(warnings, list) or not all(isinstance(w, str) for w in warnings):
            raise CacheError("bad warnings")
        cursors = {}
        for name, value in desc.get("cursors", {}).items():
            fsi_text, suffix = name.split("/")
            off, stopped, failed, *whole = value
            version, crc, crc_len = whole if len(whole) == 3 else ("", 0, 0)
            if suffix not in BIG or type(off) is not int or off < 0 or not (
                    isinstance(version, str) and type(crc) is int and 0 <= crc < 1 << 32
                    and type(crc_len) is int and 0 <= crc_len <= off):
                raise CacheError("bad cursor")
            cursors[(int(fsi_text), suffix)] = (off, bool(stopped), bool(failed),
                                                version, crc, crc_len)
        if any(not 0 <= fsi < n_sets for fsi, _ in cursors):
            raise CacheError("bad cursor")
        suppressed, corrupt = _ints([problems.get("suppressed"), problems.get("corrupt")],
                                    "counts")
        return Loaded(tables, rows, alerts, list(strings), [(k[0], k[1], k[2]) for k in keys],
                      frozenset(_ints(desc.get("modes"), "modes")), warnings, suppressed,
                      corrupt, cursors, sum(c[0] for c in cursors.values()))

    def scratch(self) -> Path | None:
        """A folder in the cache's for columns that may become its entry's (see
        `reader.index.column_spool`); None without a usable cache folder."""
        return self.store.scratch()

    # ------------------------------------------------------------------ saving
    def after_update(self, logdir: DebugLogdir) -> None:
        """Save the index once it covers enough new bytes (at most once per open). The
        files an open from shards spooled its columns to are moved into the entry, and
        what is left of them removed (they can be of no later entry)."""
        try:
            self._save(logdir)
        finally:
            spool, logdir.spool = logdir.spool, None
            if spool is not None:
                spool.discard()

    def _save(self, logdir: DebugLogdir) -> None:
        if self._saved or not self._started:
            return
        if logdir.problems.failed_reads:  # (a server's answer cut short, the network gone):
            return  # what was read is not the files; an entry would say the failure again
        covered = sum(logdir.file_cursor(fsi, s).offset for fsi in range(len(logdir.filesets))
                      for s in BIG)
        least = min_bytes()
        if covered < least:
            return
        if self._restored_bytes >= 0 and (covered - self._restored_bytes
                                          < max(least, self._restored_bytes // 4)):
            return
        self._saved = True
        desc, arrays = _describe(logdir, self._mark)
        if any(remote_key.unversioned(i) for i in desc["files"].values()):
            return  # an object its server gives no version of: no entry could be trusted
        desc["rows"]["total"] = sum(desc["rows"][t] for t in ("traces", "executions"))
        spool = logdir.spool  # columns an open from shards wrote already
        moved = {} if spool is None else {
            k: p for k, a in arrays.items() if (p := spool.file_of(k, a)) is not None}
        try:
            self.store.write(self.key, desc, arrays, moved)
        except (OSError, CacheError, ValueError, TypeError, RecursionError, OverflowError):
            pass  # the cache is optional and its folder untrusted: a failed save changes nothing



def _no_digests(rows: int) -> np.ndarray:
    """The digest column of an entry saved without one (by an index not opened for
    comparison): every row's digest unknown, so a comparison reads those rows' records back
    as it would without digests. Cheaper than reading the logdir again; rows read after it
    get theirs. Zero pages cost no memory until written."""
    return np.zeros(rows, np.uint64)


def _key(logdir: DebugLogdir) -> str:
    """The entry's name: the logdir, its run and first file set — and for a remote logdir
    where its bytes come from (endpoint, region, profile: `reader.io.remote.source`)."""
    h = blake2b(digest_size=16)
    where = source(logdir.path) if is_remote(logdir.path) else ""
    for part in (logdir.path, logdir.run_id, *(fs.name for fs in logdir.filesets[:1]), where):
        h.update(part.encode("utf-8", "surrogateescape") + b"\0")
    return h.hexdigest()


def _check_tables(tables: dict[str, dict[str, np.ndarray]], alerts: dict[str, np.ndarray],
                  n_strings: int, n_sets: int) -> None:
    """Every value the index uses as an index into something else is in range."""
    t, e, o = tables["traces"], tables["executions"], tables["outputs"]
    tk, ek = tables["traces.kinds"], tables["executions.kinds"]
    for c in ("graph_id", "op_name", "device"):
        _in_range(tk[c], 0, n_strings, f"traces.{c}")
    _in_range(tk["op_type"], -1, n_strings, "traces.op_type")
    _in_range(ek["op_type"], 0, n_strings, "executions.op_type")
    _in_range(ek["graph_id"], -1, n_strings, "executions.graph_id")
    for kinds, table in ((tk, t), (ek, e)):
        _in_range(kinds["fileset"], 0, n_sets, "fileset")
        _in_range(table["kind"], 0, len(kinds["fileset"]), "kind")
        _in_range(table["offset"], 0, 1 << 62, "offset")
    n_out = len(o["slot"])
    _in_range(ek["n_outputs"], 0, n_out + 1, "executions.n_outputs")
    _in_range(e["first_output"], 0, n_out + 1, "executions.first_output")
    if len(e["kind"]) and int((e["first_output"] + ek["n_outputs"][e["kind"]]).max()) > n_out:
        raise CacheError("outputs out of range")
    _in_range(o["execution"], 0, len(e["kind"]), "outputs.execution")
    for name, size in (("traces", len(t["kind"])), ("outputs", n_out)):
        kept = tables[f"{name}.details"]["row"]
        _in_range(kept, 0, size, f"{name}.details")
        if len(kept) > 1 and bool((np.diff(kept) <= 0).any()):
            raise CacheError("kept rows out of order")
    kind = alerts["kind"]
    _in_range(kind, GRAPH, EAGER + 1, "alerts.kind")
    for k, size in ((GRAPH, len(t["kind"])), (EAGER, n_out)):
        _in_range(alerts["row"][kind == k], 0, size, "alerts.row")


def _adopt(logdir: DebugLogdir, loaded: Loaded) -> None:
    """Put a checked entry in place (nothing here can fail half-way on bad data)."""
    logdir.strings.adopt(loaded.strings)
    for t in TENSOR_TABLES:
        table = getattr(logdir, t)
        table.adopt(loaded.tables[t], loaded.rows[t])
        if table.kinds is not None:
            table.kinds.adopt(loaded.tables[f"{t}.kinds"], loaded.rows[f"{t}.kinds"])
        table.details.adopt(loaded.tables[f"{t}.details"], loaded.rows[f"{t}.details"])
    logdir._alerts.adopt_sorted(loaded.alerts, loaded.rows["alerts"])
    for g, n, ty in loaded.trace_keys:
        logdir._trace_keys[(loaded.strings[g], loaded.strings[n])] = (g, n, ty)
    if any(ty < 0 for _, _, ty in loaded.trace_keys):
        logdir._unresolved_types = True
    logdir.modes = logdir.modes | loaded.modes
    p = logdir.problems
    for w in loaded.warnings:
        p.warn(w)
    p.suppressed += loaded.suppressed
    p.corrupt_records += loaded.corrupt
    for (fsi, suffix), (off, stopped, failed, version, crc, crc_len) in loaded.cursors.items():
        cur = logdir.file_cursor(fsi, suffix)
        cur.offset, cur.stopped, cur.failed = off, stopped, failed
        # an object's version and the CRC of the bytes read of it: the entry is used only
        # while the object is that version, so a longer one is checked against every byte
        cur.version, cur.crc, cur.crc_len = version, crc, crc_len


def _describe(logdir: DebugLogdir, mark: tuple[int, int, int]
              ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The entry for the index as it is now: its description and its columns."""
    arrays: dict[str, np.ndarray] = {}
    rows: dict[str, int] = {}
    for name, table in tensor_parts(logdir).items():
        rows[name] = len(table)
        for c in table.columns:
            arrays[f"{name}.{c}"] = table.col(c)
    alerts = logdir._alerts.sorted_columns()
    rows["alerts"] = len(logdir._alerts)
    arrays.update({f"alerts.{c}": a for c, a in alerts.items()})
    files = {}
    for fsi, fs in enumerate(logdir.filesets):
        for suffix in ALL_FILES:
            ident = file_identity(fs.path(suffix))
            if ident is not None:
                files[f"{fsi}/{suffix}"] = ident
    cursors = {}
    for fsi in range(len(logdir.filesets)):
        for suffix in BIG:
            cur = logdir.file_cursor(fsi, suffix)
            cursors[f"{fsi}/{suffix}"] = [cur.offset, cur.stopped, cur.failed, cur.version,
                                          cur.crc, cur.crc_len]
    p = logdir.problems
    desc = {
        "logdir": logdir.path, "run": logdir.run_id,
        "filesets": [fs.name for fs in logdir.filesets], "files": files, "cursors": cursors,
        "rows": rows, "strings": logdir.strings.all(),
        "trace_keys": [list(ids) for ids in _unique(logdir._trace_keys.values())],
        "modes": sorted(int(m) for m in logdir.modes),
        "digests": "digest" in logdir.traces.columns,
        "problems": {"warnings": p.warnings[mark[0]:], "suppressed": p.suppressed - mark[1],
                     "corrupt": p.corrupt_records - mark[2]},
    }
    return desc, arrays


def _unique(values: Iterable[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    return list(dict.fromkeys(values))
