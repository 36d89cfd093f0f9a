"""Stack frames, source files and the "user frame".

A stack (from a graph op's creation or an eager execution) is a tuple of frame ids; each
frame names a file by its index in its own file set's `.source_files` list. Resolving needs
that list, so frames are resolved per file set. Source text is read on demand by offset —
`.source_files` is often megabytes of TensorFlow's own code that nobody looks at.

The user frame is what the panes and the report lead with: the innermost frame whose file is
not TensorFlow's, Keras', the standard library's, another installed package's or ours — nor
AutoGraph's generated code (`reader.index.autograph` maps those frames back to the user's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_FRAMEWORK_PATTERNS = re.compile(
    r"""(
        [/\\](site|dist)-packages[/\\]            # any installed package
      | [/\\]lib[/\\]python\d[\d.]*[/\\]          # the standard library
      | [/\\]lib[/\\]Python\d+[/\\]
      | (^|[/\\])<frozen\ |^<string>$|^<__array_function__   # runpy (a cwd may prefix it)
      | [/\\]tensorflow[/\\](python|core|compiler)[/\\]   # a TensorFlow source tree
      | [/\\]keras[/\\]src[/\\]
      | [/\\]tfdbg_tui[/\\]|[/\\]dumper[/\\](?!examples[/\\])   # our own wrapper
      | __autograph_generated_file[^/\\]*\.py$   # AutoGraph's generated code (see autograph.py)
    )""",
    re.VERBOSE,
)
# Our shipped example runs from site-packages when installed, but it is the user's program.
_USER_OVERRIDE = re.compile(r"[/\\]dumper[/\\]examples[/\\]")


@lru_cache(maxsize=4096)
def is_framework_file(path: str) -> bool:
    """True for files of TensorFlow, Keras, the standard library or any installed package.
    (Kept per path: a report asks it of the same few hundred files ~10,000 times, each a
    regular expression of a dozen alternatives.)"""
    if _USER_OVERRIDE.search(path):
        return False
    return bool(_FRAMEWORK_PATTERNS.search(path))


@dataclass(frozen=True)
class Frame:
    """One resolved stack frame. `line` is 1-based as in Python tracebacks."""

    file: str
    line: int
    function: str
    host: str = ""
    col: int = 0
    resolved: bool = True

    @property
    def is_framework(self) -> bool:
        return is_framework_file(self.file)


# `tfdbg-tui run`'s frame that starts the user's program, and runpy's that may follow it.
_RUN_WRAPPER = re.compile(r"[/\\]tfdbg_tui[/\\]commands[/\\]run\.py$")
_CONSOLE_SCRIPT = re.compile(r"(^|[/\\])tfdbg-tui(\.exe|-script\.py)?$")  # bin/tfdbg-tui
_RUNPY = re.compile(r"(^|[/\\])(<frozen runpy>|runpy\.py)$")


def wrapper_frames(frames: list[Frame]) -> int:
    """How many outermost frames of `frames` (outermost first) are `tfdbg-tui run`'s own: the
    console script, our CLI, the wrapper that starts the program and runpy under it. They
    sit under every stack the wrapper records and say nothing about the user's program, so
    Stack Trace does not show them at all (`f` only hides TensorFlow's). 0 when the stack
    was not recorded through the wrapper; only a leading run is counted, so a program that
    itself calls tfdbg-tui keeps those inner frames."""
    last = -1
    for i, f in enumerate(frames):
        if _RUN_WRAPPER.search(f.file):
            last = i
        elif last >= 0:
            break
        elif not (f.is_framework or _CONSOLE_SCRIPT.search(f.file)):
            return 0  # the user's code comes before: not the wrapper's start
    if last < 0:
        return 0
    end = last + 1
    while end < len(frames) and _RUNPY.search(frames[end].file):
        end += 1
    return end if end < len(frames) else 0  # never the whole stack


# tfdbg-tui's own op callback (`dumper/graph_vars.py`), which wraps TensorFlow's dumping
# callback: TensorFlow records the stack from inside it, so it and the dumping callback's
# frames end every stack that `tfdbg-tui run` records.
_RECORDER = re.compile(r"[/\\]dumper[/\\]\w+\.py$")


def recorder_frames(frames: list[Frame]) -> int:
    """How many innermost frames of `frames` are the recording's own: tfdbg-tui's op
    callback and the TensorFlow dumping callback it calls, which record the stack. Like the
    wrapper's (`wrapper_frames`), they sit in every stack recorded and are not the user's.
    0 when none (a run recorded without tfdbg-tui); only a trailing run of framework frames
    from one of ours is counted, and never the whole stack."""
    start = len(frames)
    while start > 0 and frames[start - 1].is_framework:
        start -= 1
    for i in range(max(start, 1), len(frames)):
        if _RECORDER.search(frames[i].file):
            return len(frames) - i
    return 0


def program_frames(frames: list[Frame]) -> tuple[list[Frame], int]:
    """`frames` without tfdbg-tui's own (the wrapper's outermost, the recorder's innermost),
    and how many were left out."""
    start, cut = wrapper_frames(frames), recorder_frames(frames)
    if start + cut >= len(frames):
        cut = 0
    return frames[start:len(frames) - cut], start + cut


def user_frame_index(frames: list[Frame]) -> int | None:
    """Index (into `frames`, outermost first) of the innermost user frame, or None."""
    for i in range(len(frames) - 1, -1, -1):
        if frames[i].resolved and not frames[i].is_framework:
            return i
    return None
