"""Lists written in one option's text (``--sweep nine_penalty=0,10``, ``--ranges 0:10,20:30``, ``--params a,b``,
a rule set's ``key=value,...``): read item by item, an empty item refused rather than dropped."""

from __future__ import annotations


class EmptyItem(ValueError):
    """A list with an empty item (two separators in a row, or one at an end); the message says where."""


def items_of(text: str, what: str, sep: str = ",") -> list[str]:
    """The items of ``text`` separated by ``sep``, each stripped of spaces.

    Parameters
    ----------
    text : str
        The list as written, e.g. ``1,2,3``.
    what : str
        What holds the list, for the message (``--sweep 'nine_penalty=1,,2'``).
    sep : str, optional
        The separator.

    Raises
    ------
    EmptyItem
        If an item is empty: ``1,,2`` dropped the empty value before, and ran on what was left without a word.
    """
    items = [x.strip() for x in text.split(sep)]
    if any(not x for x in items):
        raise EmptyItem(
            f"{what} has an empty value (two {sep!r} in a row, or one at an end); give a value between every two"
        )
    return items
