"""The "did you mean" hint of a usage error: the known names closest to a misspelt one.

One rule for every name a user types (strategies, presets, rules options, strategy parameters, measures,
workloads, classes in a strategy file), so that each error suggests alike:

1. the names that differ from it only in case (``EXPERT``, ``W1`` for ``w1``);
2. else the names it begins, when it begins at most :data:`MOST_NAMED` of them (``hard`` for ``hard-nines``,
   ``fixed-hands`` for all three ``fixed-hands-N``); it begins more, the error's own list says them;
3. else the names :func:`difflib.get_close_matches` finds closest, compared case-folded, at least
   :data:`CLOSE_ENOUGH` alike, every one that ties for closest (never one of a tie picked by its spelling), when no
   more than :data:`MOST_NAMED` tie.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: The most names a hint offers; more than this and the error's list of every name says them better.
MOST_NAMED = 3
#: How alike (difflib's ratio) a name must be to be offered: difflib's default, 0.6, offered ``nines`` for
#: ``infer`` (three letters of five in order), a hint that misleads; the misspellings met (a letter dropped,
#: two swapped) are 0.8 and more alike.
CLOSE_ENOUGH = 0.7


def close_names(name: str, known: Iterable[str]) -> list[str]:
    """The known names a user may have meant by ``name`` (the rule of the module docstring), in ``known``'s order.

    Parameters
    ----------
    name : str
        What the user typed.
    known : iterable of str
        The names that exist.

    Returns
    -------
    list of str
        At most :data:`MOST_NAMED` names; empty for a blank ``name`` or where none is close.
    """
    names = list(dict.fromkeys(known))
    typed = name.strip().casefold()
    if not typed:
        return []
    folded = [n.casefold() for n in names]
    same = [n for n, f in zip(names, folded, strict=True) if f == typed]
    if same:
        return same[:MOST_NAMED]
    begun = [n for n, f in zip(names, folded, strict=True) if f.startswith(typed)]
    if begun:
        return begun if len(begun) <= MOST_NAMED else []
    close = difflib.get_close_matches(typed, folded, n=len(folded), cutoff=CLOSE_ENOUGH)
    if not close:
        return []
    best = difflib.SequenceMatcher(None, close[0], typed).ratio()  # the ratio get_close_matches ranked by
    tied = [f for f in close if difflib.SequenceMatcher(None, f, typed).ratio() == best]
    return [n for n, f in zip(names, folded, strict=True) if f in tied] if len(tied) <= MOST_NAMED else []


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """The hint to put after a misspelt name, or ``""`` when no known name is close.

    Parameters
    ----------
    name, known
        As :func:`close_names`: what the user typed, and the names that exist.

    Returns
    -------
    str
        ``" (did you mean 'expert'?)"``, ``" (did you mean 'fixed-hands-5', 'fixed-hands-7' or
        'fixed-hands-10'?)"``, or ``""``.
    """
    close = [repr(n) for n in close_names(name, known)]
    if not close:
        return ""
    listed = close[0] if len(close) == 1 else f"{', '.join(close[:-1])} or {close[-1]}"
    return f" (did you mean {listed}?)"
