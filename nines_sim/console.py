"""The ``nines`` console script and ``python -m nines_sim``: the command-line modules load inside it.

The CLI's modules (typer, numpy and the commands) take a few tenths of a second to import; a Ctrl-C in that
time, before any command could take charge of it, ends here in one line instead of a traceback.
"""

from __future__ import annotations

import signal
import sys

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


def hear_ctrl_c() -> None:
    """Have SIGINT raise KeyboardInterrupt in this process even if it started with SIGINT ignored.

    A shell without job control starts a background command (``nines tune ... &`` in a script) with SIGINT
    ignored, and Python then leaves it ignored: a ``kill -INT`` was lost wherever no run had put its own
    handler in place (between a study's trials, while a command loads or writes), so one command stopped
    and another ran on.  Every command stops the same way however it was started: the signal is heard as
    an interactive start hears it.
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main() -> None:
    """Load the command-line interface and run the command named on the command line (exit code 130 on a
    Ctrl-C while loading); SIGINT is heard even where the process started with it ignored."""
    hear_ctrl_c()
    try:
        from nines_sim.cli import main as run_cli

        run_cli()
    except KeyboardInterrupt:  # the commands take charge of Ctrl-C once they run: this one came before
        sys.stderr.write(f"Error: {stopped_words()}\n")
        sys.exit(130)
