"""Calling a compiled form of the turn loop through its entry point, without numba typing every argument.

numba's dispatcher types each argument on every call.  Arrays take its fast path in C, but the tuple of seat
callbacks (one first-class function per seat) is typed in Python each time: a large share of the time of a
table with a Python seat, whose loop returns to Python at every decision round, and of a search's small
play-out batches (measured in docs/explanation/benchmark-log.md, 2026-12-02).  :func:`call_form` types a call's
arguments once per kind of arguments and then calls the compiled code for those types directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: (dispatcher id, arguments' kinds) -> (entry point, the objects the key names by identity, kept alive so
#: that their ids are never reused by other objects while the key exists)
_ENTRIES: dict[tuple, tuple[Callable, list]] = {}


def _kinds(values: tuple, named: list) -> tuple:
    """What numba's types of ``values`` depend on, cheaply: the same kinds always get the same numba types.

    One loop over a call's few dozen arguments (a tuple's recursively), not a call per argument: a Python seat's
    table calls the loop at every decision round.
    """
    out = []
    for value in values:
        t = type(value)
        if t is np.ndarray:  # dtype, dimensions and the flags (contiguity, alignment, writeable) numba types by
            out.append((value.dtype, value.ndim, value.flags.num))
        elif t is tuple:
            out.append(_kinds(value, named))
        elif t is int:  # numba types a Python int as int64, or uint64 above int64's range
            out.append((int, value >= 1 << 63))
        elif value is None or t is bool or t is float or isinstance(value, np.generic):
            out.append(t)
        else:
            named.append(value)  # a seat callback: its type is its signature, so the object itself is the key
            out.append(id(value))
    return tuple(out)


def call_form(dispatcher: Any, *args: Any) -> Any:
    """``dispatcher(*args)``, through the compiled entry point for arguments of these kinds once it has one.

    Parameters
    ----------
    dispatcher : numba.core.registry.CPUDispatcher
        A compiled form of the turn loop (or any ``njit`` function).
    *args
        Its arguments, as for calling it.

    Returns
    -------
    object
        What the compiled function returns (the turn loop: its stop code, an int).

    Notes
    -----
    The first call with a new kind of arguments goes through the dispatcher, so it compiles or loads the
    form as usual (and its compile events reach the progress bar); results are the same machine code's.
    """
    named: list = []
    key = (id(dispatcher), _kinds(args, named))
    hit = _ENTRIES.get(key)
    if hit is not None:
        return hit[0](*args)
    result = dispatcher(*args)
    cres = dispatcher.overloads.get(tuple(dispatcher.typeof_pyval(a) for a in args))
    if cres is not None:
        _ENTRIES[key] = (cres.entry_point, [dispatcher, *named])
    return result
