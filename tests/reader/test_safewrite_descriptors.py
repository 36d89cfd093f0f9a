"""`safewrite.write_new` out of file descriptors leaves nothing behind.

Why: `write_new` holds a second descriptor of its temporary (so that the temporary is never
taken for a dead writer's while its name exists). That `os.dup` ran before the `try` whose
`finally` removes the temporary: a process at its descriptor limit (EMFILE: a `diff` of
thousands of hosts, a low `ulimit -n`) left the temporary in the user's folder and its
descriptor open. Here a child process lowers its limit so that the temporary's own
descriptor is the last it may open: the write must fail with EMFILE, leave the folder as it
was, and leave no descriptor open.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support.paths import ROOT

CHILD = r"""
import errno, os, resource, sys
from reader.io import safewrite



def open_fds():
    out = []
    for fd in range(1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        out.append(fd)
    return out


folder = sys.argv[1]
dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
before = open_fds()
used = max(before)
# the temporary gets the lowest free descriptor, at most `used + 1`: it is the last allowed
resource.setrlimit(resource.RLIMIT_NOFILE,
                   (used + 2, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
free = [fd for fd in range(used + 2) if fd not in before]
assert len(free) == 1, free  # exactly one descriptor left: the temporary's
try:
    safewrite.write_new(dir_fd, "out.json", lambda f: f.write(b"{}"))
except OSError as exc:
    print("errno", errno.errorcode.get(exc.errno))
else:
    print("written")
print("fds", open_fds() == before)
"""


def test_no_descriptor_left_for_the_held_copy(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    proc = subprocess.run([sys.executable, "-c", CHILD, str(folder)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["errno", "EMFILE", "fds", "True"], proc.stdout
    assert list(folder.iterdir()) == []
