"""The errors of a run folder's life: a run that cannot be set up, and a run stopped before it kept anything."""

from __future__ import annotations


class RunSetupError(ValueError):
    """A run's arguments that cannot work (an empty ``out`` or ``scheduler``); the message says what to give."""


class NothingKept(Exception):
    """A run stopped (Ctrl-C) before any match was kept: nothing was written, and a folder the run created
    is removed again."""

    def __init__(self, message: str = "Stopped before any match was kept: no results were written.") -> None:
        super().__init__(message)
