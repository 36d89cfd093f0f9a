"""Paths the tool writes to, checked for symlinks someone else planted on the way.

Why: a path the user types for output (`export`'s OUT_DIR, `diff --csv FILE`, `index
--out`, `run --logdir`) often goes through a shared folder — /tmp, a team share — where
another user may have put a symlink at a name the user is about to type or the tool is
about to create (`/tmp/exports -> /home/you/.ssh`). Following it writes where that user
chose. The kernel's own guard (`fs.protected_symlinks`) covers world-writable sticky folders
only, and is off on many systems. So before anything is written, every symlink on the path
is checked as that guard checks one: it is followed only if it belongs to this user, to
root, or to the owner of the folder it sits in (who could have put anything there anyway).
A link of your own (`out -> /big/disk/out`) is followed as always; one made by someone else
is refused in one line, and nothing is written.

And `run`'s logdir: TensorFlow writes its files at predictable names (`tfdbg_events.<time>.
<host>.<kind>`) with plain `open`, which follows a symlink planted at one of them — so a
logdir others can create files in (someone else's folder, a world-writable one such as
/tmp itself) is refused (`shared_folder`).
"""

from __future__ import annotations

import os
import stat

MAX_HOPS = 40  # symlinks followed on one path, as the kernel's ELOOP limit


def foreign_link(path: str) -> str | None:
    """Why the symlinks on `path` must not be followed (one line), or None when every one
    of them belongs to this user, root, or its folder's owner (or there is none). Parts of
    `path` that do not exist yet are fine: they will be made as folders, not followed."""
    me = os.geteuid()
    pending = list(reversed(os.path.abspath(path).split("/")))
    cur = "/"
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            cur = os.path.dirname(cur)
            continue
        nxt = os.path.join(cur, part)
        try:
            st = os.lstat(nxt)
        except OSError:  # not there yet (made as a folder), or the writer says why
            return None
        if not stat.S_ISLNK(st.st_mode):
            cur = nxt
            continue
        hops += 1
        if hops > MAX_HOPS:
            return f"{path}: too many levels of symlinks"
        try:
            folder = os.stat(cur)
            target = os.readlink(nxt)
        except OSError:
            return None
        if st.st_uid not in (me, 0, folder.st_uid):
            return (f"{nxt} is a symlink made by another user (uid {st.st_uid}) in {cur}, "
                    "a folder others can write; refusing to follow it (nothing written)")
        if target.startswith("/"):
            cur = "/"
        pending.extend(reversed(target.split("/")))
    return None


def shared_folder(path: str) -> str | None:
    """Why folder `path` must not receive files written at predictable names by code that
    follows symlinks (one line), or None: it must belong to this user (or, for root, to
    root) and not be writable by everyone. A group-writable folder of one's own is fine
    (the usual user-private-group umask 002)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    me = os.geteuid()
    if st.st_uid != me:
        return (f"{path} belongs to another user (uid {st.st_uid}), who could plant links "
                "where the files are written; use a folder of your own")
    if st.st_mode & stat.S_IWOTH:
        return (f"{path} can be written by every user, who could plant links where the "
                "files are written; use a folder of your own")
    return None
