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
the same name stay apart, never following a symlink and never leaving that folder.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import stat
from collections.abc import Mapping

GOTO_EDITORS = frozenset({"code", "code-insiders", "codium", "vscodium", "cursor", "windsurf"})
COLON_EDITORS = frozenset({"subl", "sublime_text", "hx", "helix", "zed", "zeditor"})
FALLBACK_EDITORS = ("nano", "vi")
# editors whose command line takes `--` (end of options) before the file, `+LINE` before it
DASHDASH_EDITORS = frozenset({"vi", "vim", "nvim", "gvim", "mvim", "view", "vim.basic",
                              "vim.tiny", "vim.nox", "vim.gtk3", "rvim", "gview"})
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
SAVE_FOLDER = "tfdbg-sources"
_UNSAFE = re.compile(r"[^A-Za-z0-9._ -]+")


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


def snapshot_path(recorded: str, directory: str) -> str:
    """Where the copy of `recorded` goes under `directory`: its path, made safe, mirrored."""
    parts = [p for p in re.split(r"[/\\]+", recorded) if p not in ("", ".", "..")]
    safe = [(_UNSAFE.sub("_", p).strip(" ") or "_")[:120] for p in parts[-12:]] or ["source"]
    safe = ["_" + p if p.startswith(".") else p for p in safe]
    return os.path.join(directory, *safe)


def save_source(recorded: str, lines: list[str], directory: str | None = None) -> str:
    """Write the logdir's copy of `recorded` under the save folder; returns the path written.

    Refuses (OSError) to write through a symlink or onto anything but a regular file.
    """
    base = os.path.abspath(directory or sources_dir())
    target = snapshot_path(recorded, base)
    parent = os.path.dirname(target)
    os.makedirs(parent, exist_ok=True)
    real_base, real_parent = os.path.realpath(base), os.path.realpath(parent)
    if os.path.commonpath([real_base, real_parent]) != real_base:
        raise OSError(f"{target}: outside {base}")
    if os.path.lexists(target) and not stat.S_ISREG(os.lstat(target).st_mode):
        raise OSError(f"{target}: exists and is not a regular file")
    tmp = f"{target}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("\n".join(lines) + ("\n" if lines else ""))
    os.replace(tmp, target)
    return target
