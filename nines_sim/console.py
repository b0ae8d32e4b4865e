"""The ``nines`` console script and ``python -m nines_sim``: the command-line modules load inside it.

The CLI's modules (typer, numpy and the commands) take a few tenths of a second to import; a Ctrl-C in that
time, before any command could take charge of it, ends here in one line instead of a traceback.
"""

from __future__ import annotations

import signal
import sys

from nines_sim.runs.stages import stopped_words


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

        try:
            run_cli()
        finally:
            # The command has said and written all it will: a Ctrl-C from here on (the worker pools' shutdown
            # and the interpreter's take a second or so) would end a complete run as killed by SIGINT, exit 130
            # without a word
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:  # the commands take charge of Ctrl-C once they run: this one came before
        sys.stderr.write(f"Error: {stopped_words()}\n")
        sys.exit(130)
