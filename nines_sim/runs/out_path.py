"""An output path checked before anything starts: a run folder (``--out``) or a saved match's file (``--save``).

One check for every command that writes where the user says: what the operating system would refuse later, in
the middle of a run or after ``nines play`` opened its table, is said in one line first (an empty name, a name
longer than the file system takes, a folder where a file goes or a file where a folder goes, a parent that is a
file or cannot be written).
"""

from __future__ import annotations

import os
from pathlib import Path

from nines_sim.game.path_lookup import fs_limit, shown
from nines_sim.runs.errors import RunSetupError

#: The longest name nines-sim writes inside a run folder (``win_rates_by_rule_set.png``, ...), with room to spare,
#: and the suffix a saved match's file takes while it is written (``match.json.tmp``).
INSIDE_A_FOLDER = 40
WHILE_SAVING = ".tmp"


class OutputPathError(RunSetupError):
    """An output path that cannot be used; the message (one line) says why and what to give."""


def check_output_path(
    path: str | os.PathLike[str], option: str, *, folder: bool, default: str = "", beside: str = WHILE_SAVING
) -> Path:
    """``path`` as a :class:`~pathlib.Path`, once it is known that a folder (``folder``) or a file can be written there.

    Nothing is created or written: the path is read as the operating system will read it when the run writes.

    Parameters
    ----------
    path : str or os.PathLike
        The path as the user gave it (relative to the current folder, or absolute).
    option : str
        The option that gave it (``--out``, ``--save``), named in the message.
    folder : bool
        True for a run folder (it may exist as a folder; files are written inside it); False for a file (it may
        exist as a file; it is written beside itself first, as ``NAME.tmp``, then moved into place).
    default : str, optional
        What leaving the option out does, said after an empty value (e.g. ``a new folder under reports/``).
    beside : str, optional
        For a file: the longest suffix of a file written beside it (``NAME.tmp`` while a saved match is written;
        ``NAME.tune-lock`` beside a study's storage), which must fit the file system's names too.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputPathError
        For an empty path or one with a NUL character; a name in it longer than the file system takes, or a
        whole path longer than it takes; a folder given for a file; a parent that is a file; a parent, the
        nearest one that exists, that this process cannot write in.
    """
    text = os.fspath(path)
    what = "folder" if folder else "file"
    if not text.strip():
        left_out = f" (leave {option} out for {default})" if default else ""
        raise OutputPathError(f"{option} is empty; give a {what} name{left_out}")
    if "\0" in text:
        raise OutputPathError(f"{option} holds a NUL character; give a {what} name")
    p = Path(text)
    nearest = _nearest_existing(p)
    if not os.path.isdir(nearest) and nearest != p:
        raise OutputPathError(
            f"{option} {shown(text)}: {shown(str(nearest))} is a file, not a folder; choose another {option}"
        )
    _check_lengths(text, p, nearest, option, "" if folder else beside)
    # (a file where a run folder goes is refused as it is made: nines_sim.runs.output.make_dir)
    if not folder and os.path.isdir(p):
        example = shown(str(p / "match.json"))
        raise OutputPathError(f"{option} {shown(text)} is a folder; give a file's name, e.g. {example}")
    # a folder is made in its nearest parent (or is there); a file is written beside itself, then moved in place
    written_in = nearest if folder else _nearest_existing(p.parent)
    if not os.access(written_in, os.W_OK):
        raise OutputPathError(f"cannot write in {shown(str(written_in))} (permission denied); choose another {option}")
    return p


def _nearest_existing(p: Path) -> Path:
    """``p`` if it exists, else its nearest parent that does (the current folder for a relative path)."""
    for candidate in (p, *p.parents):
        if os.path.lexists(candidate):  # False, not an error, for a name too long to look up
            return candidate
    return Path(".") if not p.is_absolute() else Path(p.anchor)


def _check_lengths(text: str, p: Path, nearest: Path, option: str, beside: str) -> None:
    """Refuse a name or a whole path longer than the file system under ``nearest`` takes (``ENAMETOOLONG``);
    ``beside``: the suffix of a file written beside a file (none for a folder, which has a name added inside)."""
    name_max = fs_limit(nearest, "PC_NAME_MAX", 255)
    path_max = fs_limit(nearest, "PC_PATH_MAX", 4096)
    for part in p.parts:
        n = len(os.fsencode(part))
        if n + (len(beside) if part == p.name else 0) > name_max:
            extra = f" (less {len(beside)} for the file NAME{beside} written beside it)" if beside else ""
            raise OutputPathError(
                f"{option} is too long: a name in it has {n:,} characters, and this file system takes at most "
                f"{name_max}{extra}; choose a shorter {option}"
            )
    room = len(beside) if beside else 1 + INSIDE_A_FOLDER
    if len(os.fsencode(text)) + room >= path_max:
        raise OutputPathError(
            f"{option} is too long: {len(os.fsencode(text)):,} characters, and this system takes paths of at most "
            f"{path_max - 1 - room:,} here; choose a shorter {option}"
        )
