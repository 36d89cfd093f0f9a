"""The user's keymap: a file in the config directory that rebinds keys by binding id.

`$XDG_CONFIG_HOME/tfdbg-tui/keymap.toml` (or `~/.config/tfdbg-tui/keymap.toml`; a
`keymap.json` works too) maps binding ids (see `tfdbg_tui/ui/bindings.py`, and `pane.<name>`
for the pane keys) to Textual key names, comma-separated or as a list:

    "alert.next" = "ctrl+n"
    "list.down" = ["down", "j", "ctrl+j"]

The app hands it to Textual's `App.set_keymap`. A broken file or an unknown id never stops
the app: it is reported in one line and the rest of the keymap still applies.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILE_NAMES = ("keymap.toml", "keymap.json")
MAX_BYTES = 1 << 20


@dataclass
class UserKeymap:
    """Binding id → keys, where it came from, and what was wrong with it."""

    keys: dict[str, str] = field(default_factory=dict)
    source: str | None = None
    problems: list[str] = field(default_factory=list)


def config_dir() -> Path:
    """Where tfdbg-tui's user configuration lives (XDG base directory rules)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "tfdbg-tui"


def _parse(path: Path) -> Any:
    data = path.read_bytes()[:MAX_BYTES + 1]
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES} bytes")
    text = data.decode("utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    import tomllib  # Python 3.11+

    return tomllib.loads(text)


def load_keymap(known_ids: Collection[str], directory: Path | None = None) -> UserKeymap:
    """Read the first keymap file found in `directory` (default: `config_dir()`)."""
    directory = directory if directory is not None else config_dir()
    path = next((directory / n for n in FILE_NAMES if (directory / n).is_file()), None)
    if path is None:
        return UserKeymap()
    out = UserKeymap(source=str(path))
    try:
        raw = _parse(path)
    except ImportError:
        out.problems.append(f"{path}: TOML keymaps need Python 3.11+; use keymap.json")
        return out
    except (OSError, ValueError, UnicodeDecodeError) as exc:  # TOMLDecodeError is a ValueError
        first = (str(exc).splitlines() or [type(exc).__name__])[0][:200]
        out.problems.append(f"{path}: not read ({first})")
        return out
    except RecursionError:  # `[[[[…` under the size cap: the parsers recurse per level
        out.problems.append(f"{path}: not read (nested too deeply); the default keys apply")
        return out
    if not isinstance(raw, dict):
        out.problems.append(f"{path}: expected a table of binding id = keys")
        return out
    for binding_id, keys in raw.items():
        if isinstance(keys, list) and keys and all(isinstance(k, str) for k in keys):
            keys = ",".join(keys)
        if not isinstance(keys, str) or not keys.strip():
            out.problems.append(f"{path}: {binding_id!r}: keys must be a string or a list")
        elif binding_id not in known_ids:
            out.problems.append(f"{path}: unknown binding id {binding_id!r}")
        else:
            out.keys[binding_id] = ",".join(k.strip() for k in keys.split(","))
    return out
