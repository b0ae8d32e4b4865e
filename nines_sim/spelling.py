"""The "did you mean" hint of a usage error: the known name closest to a misspelt one.

One rule for every name a user types (strategies, presets, rules options), so that each error suggests alike.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """The hint to put after a misspelt name, or ``""`` when no known name is close.

    Parameters
    ----------
    name : str
        What the user typed.
    known : iterable of str
        The names that exist.

    Returns
    -------
    str
        ``" (did you mean 'expert'?)"``, from :func:`difflib.get_close_matches` (its default cut-off, 0.6), or
        ``""``.
    """
    close = difflib.get_close_matches(name, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""
