"""Pointing at the user's code when a strategy fails: the file and line, and a traceback without the engine."""

from __future__ import annotations

import inspect
import traceback
from pathlib import Path

_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the nines_sim folder (this module is in strategy/)


def _ours(filename: str) -> bool:
    return str(Path(filename).resolve()).startswith(_PACKAGE)


def user_frames(exc: BaseException) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback outside nines-sim's own modules, outermost first."""
    return [f for f in traceback.extract_tb(exc.__traceback__) if not _ours(f.filename)]


def user_location(exc: BaseException, cls: type) -> str:
    """``" (at FILE, line N, in FUNC)"``: where in the strategy's code ``exc`` was raised, or "" if nowhere.

    The innermost frame in the file of ``cls`` is preferred (a library the
    strategy called may have raised deeper down); else the innermost frame
    outside nines-sim.
    """
    frames = user_frames(exc)
    try:
        own = str(Path(inspect.getsourcefile(cls) or "").resolve())
    except TypeError:  # a class without a source file (defined interactively)
        own = ""
    mine = [f for f in frames if own and str(Path(f.filename).resolve()) == own]
    f = (mine or frames or [None])[-1]
    return "" if f is None else f" (at {f.filename}, line {f.lineno}, in {f.name})"


def user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` as Python prints it, without the frames of nines-sim's engine."""
    te = traceback.TracebackException.from_exception(exc)
    te.stack = traceback.StackSummary.from_list([f for f in te.stack if not _ours(f.filename)])
    return "".join(te.format()).rstrip("\n")
