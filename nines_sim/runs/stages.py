"""How far this process's run got, and so what a Ctrl-C that reaches the command line says it stopped.

A run records its stage (:func:`run_reached`); the ``nines`` console script (:mod:`nines_sim.console`) and the
command-line app say :func:`stopped_words` for a Ctrl-C outside a run's own handler.  Nothing heavy is loaded
here: the console script reads it before the command-line modules load.
"""

from __future__ import annotations

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
