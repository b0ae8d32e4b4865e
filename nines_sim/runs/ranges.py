"""Ranges of match indices: what a run plays, what a stopped run kept, and the ``--ranges`` text.

A range is a half-open pair ``(start, end)`` of match indices, ``start <= k < end``.
A run plays matches ``0 .. n-1`` of its seed, or only the ranges given with
``--ranges``; a run stopped by Ctrl-C records the ranges it kept, and
``--ranges`` with them plays exactly those matches again (match ``k`` depends
only on the seed, ``k``, the rules and the lineup).
"""

from __future__ import annotations

from collections.abc import Iterable

from nines_sim.game.text_lists import EmptyItem, items_of

Range = tuple[int, int]


class RangesError(ValueError):
    """A ``--ranges`` text that cannot be read or does not fit the run; the message says why."""


def merge(ranges: Iterable[Range]) -> list[Range]:
    """Sorted ranges with touching or overlapping ones joined, empty ones dropped."""
    out: list[list[int]] = []
    for a, b in sorted((int(a), int(b)) for a, b in ranges if b > a):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


def total(ranges: Iterable[Range]) -> int:
    """Matches in the ranges (assumed disjoint)."""
    return sum(b - a for a, b in ranges)


def format_ranges(ranges: Iterable[Range]) -> str:
    """``"0:20000,40000:60000"``: the text ``--ranges`` reads."""
    return ",".join(f"{a}:{b}" for a, b in ranges)


def parse_ranges(text: str, n_matches: int) -> list[Range]:
    """Read ``START:END[,START:END...]`` (end exclusive) within matches ``0 .. n_matches-1``.

    Parameters
    ----------
    text : str
        E.g. ``"0:20000,40000:60000"``, as a partial run's manifest gives it.
    n_matches : int
        The run's ``--matches``: every range must lie below it.

    Returns
    -------
    list of (int, int)
        Sorted, disjoint, non-empty ranges.

    Raises
    ------
    RangesError
        For text that is not ranges, an empty or reversed range, one beyond
        ``n_matches``, or ranges that overlap.
    """
    if not text.strip(" ,"):
        raise RangesError("--ranges needs START:END pairs, e.g. --ranges 0:20000,40000:60000")
    try:
        pieces = items_of(text, f"--ranges {text!r}")
    except EmptyItem as exc:
        raise RangesError(str(exc)) from None
    out: list[Range] = []
    for p in pieces:
        a_text, sep, b_text = p.partition(":")
        try:
            a, b = int(a_text), int(b_text)
        except ValueError:
            a = b = -1
        if not sep or a < 0 or b < 0:
            raise RangesError(f"--ranges takes START:END pairs of match indices (end exclusive), not {p!r}")
        if b <= a:
            raise RangesError(f"the range {p} is empty: END must be above START (end exclusive)")
        if b > n_matches:
            raise RangesError(f"the range {p} goes beyond the {n_matches:,} matches of --matches; raise --matches")
        out.append((a, b))
    out.sort()
    for (a0, b0), (a1, b1) in zip(out, out[1:]):
        if a1 < b0:
            raise RangesError(f"the ranges {a0}:{b0} and {a1}:{b1} overlap; each match may be played once")
    return out


def cut(ranges: Iterable[Range], size: int) -> list[tuple[int, int]]:
    """``(start, count)`` chunks of at most ``size`` matches covering the ranges, in order."""
    return [(s, min(size, b - s)) for a, b in ranges for s in range(a, b, size)]


class KeptBlocks:
    """The blocks of match indices a run's units kept, each from its unit's start (all of it unless stopped).

    Merged, they are the ranges a run reports as kept, and ``--ranges`` plays exactly those again.
    """

    def __init__(self) -> None:
        self.blocks: list[Range] = []

    def add(self, start: int, got: int) -> int:
        """Record that the unit starting at match ``start`` kept its first ``got`` matches; returns ``got``."""
        self.blocks.append((start, start + got))
        return got

    def ranges(self) -> list[Range]:
        """The kept blocks, sorted and merged."""
        return merge(self.blocks)
