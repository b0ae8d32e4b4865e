"""The ``nines`` console script and ``python -m nines_sim``: the command-line modules load inside it.

The CLI's modules (typer, numpy and the commands) take a few tenths of a second to import; a Ctrl-C in that
time, before any command could take charge of it, ends here in one line instead of a traceback.
"""

from __future__ import annotations

import sys

#: A Ctrl-C before a command took charge of it (while the modules load or the command checks its input); here,
#: where nothing heavy is loaded, so that the command-line app shows the same words.
STARTING_STOPPED = "interrupted (Ctrl-C) while starting: no match was played"


def main() -> None:
    """Load the command-line interface and run the command named on the command line (exit code 130 on a
    Ctrl-C while loading)."""
    try:
        from nines_sim.cli import main as run_cli

        run_cli()
    except KeyboardInterrupt:  # the commands take charge of Ctrl-C once they run: this one came before
        sys.stderr.write(f"Error: {STARTING_STOPPED}\n")
        sys.exit(130)
