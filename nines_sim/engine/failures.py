"""A user's strategy failing in play: the errors the engine raises for it, each message the one line a command says.

Loads nothing (no numpy, no numba), so that the command line can turn any of them into its line and exit code
in one place (:class:`nines_sim.cli.app.OneLineErrors`) without loading an engine for a usage error.
"""

from __future__ import annotations

#: What a user's strategy code raises that is its own failure, not the user's stop: any Exception, and SystemExit
#: (a ``sys.exit()`` or ``exit()`` left in a plug-in ended every command silently with its code). KeyboardInterrupt
#: is left out: it is the person's Ctrl-C.
OWN_FAILURES = (Exception, SystemExit)


class StrategyFailure(RuntimeError):
    """A strategy failed in play; the message names it, and where to see it (the seed and the match to replay,
    or the line of its code).  Every command stops on it with the message as one ``Error:`` line, exit code 1."""


class IllegalMoveError(StrategyFailure):
    """A strategy returned an illegal move; the message names it, the seed and the match to replay.

    Attributes
    ----------
    match : int or None
        The match named, where the failure belongs to that match alone (a replay of it fails too); None for an
        answer wrong for the whole batch (its shape).
    """

    def __init__(self, message: str, match: int | None = None) -> None:
        super().__init__(message)
        self.match = match


class StrategyError(StrategyFailure):
    """A strategy raised during play; the message names it, the seed and the match to replay."""


class StrategyCompileError(StrategyFailure):
    """A compiled strategy's ``decide`` does not compile: the message names the strategy, the file and line
    numba points at, and the first line of numba's own message (its ``__cause__`` is numba's error)."""
