"""An input path the user names, looked up without an ``OSError``: a strategy's file (``file.py:Class``), a
parameter file (``expert@best.json``), the C reference (``bench --against-c``).

pathlib's ``is_file`` and ``is_dir`` raise ``OSError`` for a name longer than the file system takes
(``ENAMETOOLONG``) or a parent that cannot be searched (``EACCES``), where a missing file gives False: every
command that reads a file the user names looks it up here, and says in its own one line why it cannot read it.
The output paths' check (:mod:`nines_sim.runs.out_path`) shares the limits and the shortened display.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Literal

Kind = Literal["file", "folder", "missing"]


def look_up(path: str | os.PathLike[str]) -> tuple[Kind, str]:
    """What ``path`` is, and, where it cannot be read, why in a few words; never raises.

    Parameters
    ----------
    path : str or os.PathLike
        The path as the user gave it (relative to the current folder, or absolute).

    Returns
    -------
    kind : {"file", "folder", "missing"}
        ``"file"`` for a regular file (or a link to one), ``"folder"`` for a folder; ``"missing"`` for anything
        else: no such path, a name too long to look up, a parent that cannot be searched, a device.
    why : str
        Empty for a file, a folder or a path that does not exist; else the reason, to follow the path in a
        message: ``"(a name in it has 300 characters; this file system takes at most 255)"``.
    """
    text = os.fspath(path)
    try:
        mode = os.stat(text).st_mode
    except ValueError:  # a NUL character
        return "missing", "(it holds a NUL character)"
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            return "missing", _too_long(text)
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "missing", ""
        return "missing", f"({exc.strerror or exc})"
    if stat.S_ISDIR(mode):
        return "folder", ""
    return ("file", "") if stat.S_ISREG(mode) else ("missing", "(not a regular file)")


def _too_long(text: str) -> str:
    p = Path(text)
    nearest = next((c for c in p.parents if os.path.isdir(c)), Path("."))
    name_max = fs_limit(nearest, "PC_NAME_MAX", 255)
    longest = max((len(os.fsencode(part)) for part in p.parts), default=0)
    if longest > name_max:
        return f"(a name in it has {longest:,} characters; this file system takes at most {name_max})"
    return f"(the path has {len(os.fsencode(text)):,} characters, more than this system looks up)"


def fs_limit(where: Path, name: str, fallback: int) -> int:
    """The file system's limit ``name`` (``os.pathconf``, e.g. ``PC_NAME_MAX``) at ``where``, or ``fallback``
    where it gives none."""
    try:
        return int(os.pathconf(where if os.path.isdir(where) else where.parent, name))
    except (OSError, ValueError):
        return fallback


def shown(text: str) -> str:
    """A path as a one-line message shows it: a very long one shortened in the middle."""
    return text if len(text) <= 100 else f"{text[:60]}...{text[-30:]}"
