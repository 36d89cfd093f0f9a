"""Where index caches live, how big they may grow, and which code wrote them.

The cache folder comes from the environment (`$TFDBG_TUI_CACHE_DIR`, else
`$XDG_CACHE_HOME/tfdbg-tui`, else `~/.cache/tfdbg-tui`), its size cap too
(`$TFDBG_TUI_CACHE_MAX_BYTES`); an entry — or a shard of `tfdbg-tui index` — is current only
for the code that wrote it (`code_stamp`). The store (`reader.cache.store`) and the shards
(`reader.index.shard_store`) both ask here.
"""

from __future__ import annotations

import os
from pathlib import Path

try:  # the built-in BLAKE2: importing `hashlib` loads OpenSSL, ~3 MB resident in every run
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython builds without it
    from hashlib import blake2b

# Unchanged by the digest column (an entry may hold `<table>.digest.npy`, said by `"digests"`
# in its description): an entry without it reads as "digests unknown", and code that knows
# no digests ignores them; entries of other code are stale anyway (`code_stamp`).
FORMAT = 1
DIR_ENV = "TFDBG_TUI_CACHE_DIR"
MAX_ENV = "TFDBG_TUI_CACHE_MAX_BYTES"
DEFAULT_MAX_BYTES = 2 << 30


def cache_root() -> Path:
    """Where index caches live (not created here)."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "tfdbg-tui"


def cache_dir_problem() -> str | None:
    """One line when the cache folder is a file (a typo'd $TFDBG_TUI_CACHE_DIR, say): then
    nothing is cached and reopening a big logdir reads it all again — said, not silent."""
    root = cache_root()
    if root.exists() and not root.is_dir():
        return (f"the cache folder {root} is a file: indexes are not cached (set "
                f"${DIR_ENV} to a folder)")
    return None


def max_bytes() -> int:
    try:
        return max(0, int(os.environ.get(MAX_ENV, DEFAULT_MAX_BYTES)))
    except ValueError:
        return DEFAULT_MAX_BYTES


_CODE_STAMP: str | None = None


def code_stamp() -> str:
    """A digest of the code that turns a logdir into columns (reader/io, reader/index, the
    compiled core, the modes). An entry written by other code is stale: a fix to how damaged
    records are read must not be hidden by an index the old code cached."""
    global _CODE_STAMP
    if _CODE_STAMP is None:
        base = Path(__file__).resolve().parent.parent
        digest = blake2b(digest_size=8)
        files = [base / "modes.py", *sorted((base / "io").glob("*.py")),
                 *sorted((base / "index").glob("*.py")), *sorted((base / "_native").glob("*.[ch]")),
                 *sorted((base / "_native").glob("*.py")), *sorted((base / "cache").glob("*.py"))]
        for path in files:
            try:
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
            except OSError:
                digest.update(path.name.encode() + b"\0?")
        _CODE_STAMP = digest.hexdigest()
    return _CODE_STAMP
