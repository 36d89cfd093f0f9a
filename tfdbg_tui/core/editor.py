"""From a line on screen to the user's editor: the command line, and the logdir's file copy.

Why here and not in the pane: which argv an editor wants is plain data (no Textual), and
tests check it with a real program standing in for the editor. Terminal editors (vi, vim,
nvim, nano, emacs, micro, kakoune…) take `+LINE FILE`; VS Code and its forks take
`--goto FILE:LINE`; Sublime, Helix and Zed take `FILE:LINE`.

The file's path comes from the logdir, which is untrusted: a path like `+!touch x` or `-c…`
would be read by vim as a command. So the editor is only ever given an absolute path (it
starts with `/`, never `+` or `-`), vim and its kin get `--` before it as well, and a path
with control characters is refused (see SECURITY.md).

A logdir often comes from another machine: then the file is not here, and the logdir's own
copy of it (what actually ran) can be written under a save folder instead —
`$TFDBG_TUI_SAVE_DIR`, else `./tfdbg-sources/`, mirroring the recorded path so two files of
the same name stay apart (one-to-one: other characters are percent-encoded), never following
a symlink, never leaving that folder and never replacing a file there (`reader.io.safewrite`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
from collections.abc import Mapping
from dataclasses import dataclass

try:  # the built-in BLAKE2: importing `hashlib` loads OpenSSL (~3 MB resident)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython builds without it
    from hashlib import blake2b

from reader.io.safewrite import open_folder, read_existing, write_new

GOTO_EDITORS = frozenset({"code", "code-insiders", "codium", "vscodium", "cursor", "windsurf"})
COLON_EDITORS = frozenset({"subl", "sublime_text", "hx", "helix", "zed", "zeditor"})
FALLBACK_EDITORS = ("nano", "vi")
# editors whose command line takes `--` (end of options) before the file, `+LINE` before it
DASHDASH_EDITORS = frozenset({"vi", "vim", "nvim", "gvim", "mvim", "view", "vim.basic",
                              "vim.tiny", "vim.nox", "vim.gtk3", "rvim", "gview"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SAVE_FOLDER = "tfdbg-sources"


class UnsafePath(ValueError):
    """A recorded path that cannot be handed to an editor without risk."""


def editor_path(file: str) -> str:
    """`file` as the editor gets it: absolute, so no editor reads it as an option or a
    command; UnsafePath for what cannot be made safe (control characters, NUL)."""
    if _CONTROL.search(file):
        raise UnsafePath("the path holds control characters; not opened")
    path = os.path.abspath(file)
    if not path.startswith("/"):  # pragma: no cover - POSIX paths always do
        raise UnsafePath("the path cannot be made absolute; not opened")
    return path


def editor_argv(file: str, line: int, env: Mapping[str, str] | None = None) -> list[str] | None:
    """The command that opens `file` at `line` in $VISUAL / $EDITOR (None: no editor found;
    UnsafePath: the path is refused)."""
    file = editor_path(file)
    env = os.environ if env is None else env
    command = (env.get("VISUAL") or env.get("EDITOR") or "").strip()
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = []
    if not argv:
        found = next((shutil.which(e) for e in FALLBACK_EDITORS if shutil.which(e)), None)
        if found is None:
            return None
        argv = [found]
    name = os.path.basename(argv[0]).lower().removesuffix(".exe")
    line = max(1, line)
    if name in GOTO_EDITORS:
        return [*argv, "--goto", f"{file}:{line}"]
    if name in COLON_EDITORS:
        return [*argv, f"{file}:{line}"]
    if name in DASHDASH_EDITORS:
        return [*argv, f"+{line}", "--", file]
    return [*argv, f"+{line}", file]


def file_on_this_machine(path: str) -> bool:
    """True when `path` is a regular file here (a logdir's path may name a file elsewhere)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def sources_dir(env: Mapping[str, str] | None = None) -> str:
    """Where `save_source` writes: $TFDBG_TUI_SAVE_DIR, else ./tfdbg-sources."""
    env = os.environ if env is None else env
    return os.path.abspath(env.get("TFDBG_TUI_SAVE_DIR") or SAVE_FOLDER)


def _safe_part(part: str) -> str:
    """One path component as a file name: letters, digits, `._ -` kept, every other
    character percent-encoded (as UTF-8), a leading dot too — so the mapping is one-to-one
    (`模型.py` and `数据.py`, `train (1).py` and `train [1].py` stay apart) and no name is
    hidden, `.` or `..`. Over-long names are cut and tagged with a hash of the whole."""
    out = "".join(c if (c.isalnum() and c.isprintable()) or c in "_ -" or (c == "." and i)
                  else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass"))
                  for i, c in enumerate(part))
    if len(out.encode()) > 180:  # NAME_MAX is 255 bytes; `%~` never comes out of the
        digest = blake2b(part.encode("utf-8", "surrogatepass"), digest_size=6)  # encoding
        while len(out.encode()) > 150:
            out = out[: len(out) * 3 // 4]
        out = f"{out}%~{digest.hexdigest()}"
    return out


def snapshot_parts(recorded: str) -> list[str]:
    """The folders and file name under the save folder for the copy of `recorded`."""
    parts = [p for p in re.split(r"[/\\]+", recorded) if p not in ("", ".", "..")]
    safe = [_safe_part(p) for p in parts] or ["source"]
    if len(safe) > 13:  # keep it shallow, but two deep paths that end alike stay apart
        digest = blake2b(recorded.encode("utf-8", "surrogatepass"), digest_size=6)
        safe = [f"%~{digest.hexdigest()}", *safe[-12:]]
    return safe


def snapshot_path(recorded: str, directory: str) -> str:
    """Where the copy of `recorded` goes under `directory`: its path, made safe, mirrored."""
    return os.path.join(directory, *snapshot_parts(recorded))


@dataclass(frozen=True)
class Saved:
    """Where `save_source` put the copy; `beside` names a different copy kept at the
    mirrored name (edited by the user, or another file's)."""

    path: str
    already: bool = False  # the same bytes were there already
    beside: str | None = None


def save_source(recorded: str, lines: list[str], directory: str | None = None) -> Saved:
    """Write the logdir's copy of `recorded` under the save folder, never replacing a file.

    The mirrored folders are opened without following symlinks (OSError for one: nothing is
    created outside the folder); a file already at the name that holds other bytes (the user
    edited it, or another recorded path mapped there) is kept, and the copy is written beside
    it as `name (2).py`; a symlink or anything not a regular file there is an OSError.
    """
    chosen = directory or os.environ.get("TFDBG_TUI_SAVE_DIR")
    base = os.path.abspath(chosen or sources_dir())
    *folders, name = snapshot_parts(recorded)
    data = ("\n".join(lines) + ("\n" if lines else "")).encode("utf-8", "surrogateescape")
    fd = open_folder(base, folders, follow_base=bool(chosen))  # ./tfdbg-sources: no symlink
    try:
        stem, ext = os.path.splitext(name)
        first = None
        for n in range(1, 1000):
            candidate = name if n == 1 else f"{stem} ({n}){ext}"
            existing = read_existing(fd, candidate, len(data))
            where = os.path.join(base, *folders, candidate)
            if existing == data:
                return Saved(where, already=True, beside=first)
            if existing is None:
                try:
                    write_new(fd, candidate, lambda f: f.write(data))
                except FileExistsError:  # another process took the name meanwhile
                    continue
                return Saved(where, beside=first)
            first = first or os.path.join(base, *folders, name)
        raise OSError(f"{name}: 999 other copies there already; not saved")
    finally:
        os.close(fd)
