"""How far this process's run got, and so what a Ctrl-C that reaches the command line says it stopped.

A run records its stage (:func:`run_reached`); the ``nines`` console script (:mod:`nines_sim.console`) and the
command-line app say :func:`stopped_words` for a Ctrl-C outside a run's own handler.  Nothing heavy is loaded
here: the console script reads it before the command-line modules load.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

#: A Ctrl-C before a command took charge of it (while the modules load or the command checks its input); here,
#: where nothing heavy is loaded, so that the command-line app shows the same words.
STARTING_STOPPED = "interrupted (Ctrl-C) while starting: no match was played"
#: The same, once a run's matches are played (its progress bar closed) and before its results are written, and
#: once they are written (the closing lines, the folder's lock let go): "while starting" would then be untrue.
PLAYED_STOPPED = (
    "interrupted (Ctrl-C) after the matches were played, before their results were written: nothing was written"
)
WRITTEN_STOPPED = "interrupted (Ctrl-C) after the results were written: they are whole"

_reached = [STARTING_STOPPED]


def run_reached(words: str) -> None:
    """Record how far this process's run got (:data:`PLAYED_STOPPED`, :data:`WRITTEN_STOPPED`): what a Ctrl-C that
    reaches the command line, outside a run's own handler, says it stopped."""
    _reached[0] = words


def stopped_words() -> str:
    """What a Ctrl-C that reaches the command line stopped, as far as this process's run got (one line)."""
    return _reached[0]


_heard = [False]


def ctrl_c_heard() -> bool:
    """Whether a Ctrl-C raised KeyboardInterrupt inside :func:`hearing_ctrl_c`'s block (caught there or not)."""
    return _heard[0]


def _raise_heard(signum: int, frame: object) -> None:
    _heard[0] = True
    raise KeyboardInterrupt


@contextmanager
def hearing_ctrl_c() -> Iterator[None]:
    """A block where Ctrl-C raises KeyboardInterrupt, as Python's own handler does, and is recorded
    (:func:`ctrl_c_heard`).

    A KeyboardInterrupt raised inside a C library's callback is printed and dropped there: a Ctrl-C while numba
    writes a first run's compiled code to its cache (llvmlite's callback) was lost so, and numba then failed
    with an error of its own (``no compiled object yet``), a long traceback where the run should have stopped.
    The record tells the run that such an error comes from the Ctrl-C.  Where another handler is in place (a
    command's own) or this is not the main thread, nothing changes.
    """
    _heard[0] = False
    try:
        previous = signal.getsignal(signal.SIGINT)
        ours = previous is signal.default_int_handler
        if ours:
            signal.signal(signal.SIGINT, _raise_heard)
    except ValueError:  # not the main thread: Ctrl-C reaches the main thread's handler
        ours = False
    try:
        yield
    finally:
        if ours:
            signal.signal(signal.SIGINT, previous)
        _heard[0] = False
