"""The progress bar of a run: matches played, matches kept, and an ETA only once it means something."""

from __future__ import annotations

import math
from typing import Any

from tqdm import tqdm

#: Share of a run's matches to be played, with a chunk kept, before the bar shows a remaining time:
#: until then the rate still holds the start (worker processes, imports, first deals) and the
#: ETA swings by hours.
ETA_AFTER = 0.02

_LEFT = "{l_bar}{bar}| {n_fmt}/{total_fmt} played{postfix} "
WITH_ETA = _LEFT + "[{elapsed}<{remaining}, {rate_fmt}]"
WITHOUT_ETA = _LEFT + "[{elapsed}, {rate_fmt}]"


def count_text(n: float) -> str:
    """A count of matches as the bar shows it: ``0``, ``999``, ``1.23k``, ``2k``, ``100k``, ``2.5M``.

    tqdm's ``unit_scale`` writes counts with two decimals (``0.00/100k``, ``2.00k``); matches are whole, so
    below 1,000 the count is exact and above it is cut (not rounded: ``99.9k`` until the 100,000th match) to
    at most 3 significant digits, without trailing zeros.
    """
    n = int(n)
    if n < 1000:
        return f"{n}"
    suffix = "k"
    for suffix in ("k", "M", "G"):  # noqa: B007 - the suffix the loop stops at is the one shown
        n /= 1000
        if n < 1000:
            break
    decimals = 0 if n >= 100 else 1 if n >= 10 else 2
    return f"{math.floor(n * 10**decimals) / 10**decimals:g}{suffix}"


class _MatchBar(tqdm):
    """A tqdm bar whose counts (``n_fmt``, ``total_fmt``) are whole numbers below 1,000; rates stay scaled."""

    @property
    def format_dict(self) -> dict[str, Any]:
        d = super().format_dict
        d["n_fmt"] = count_text(d["n"])
        if d.get("total") is not None:
            d["total_fmt"] = count_text(d["total"])
        return d


class RunProgress:
    """A tqdm bar counting matches as they finish, with the matches kept so far beside it.

    Called as ``progress(played, kept)`` (the ``on_progress`` of the runners).
    Played matches move the bar; kept ones are those the results will hold if
    the run stops now (whole chunks of a comparison, finished blocks of a
    tournament), shown as ``kept N``.

    Parameters
    ----------
    total : int
        Matches the run plays, over all its games or rule sets.
    disable : bool
        No bar at all (``--quiet``).
    """

    def __init__(self, total: int, disable: bool = False) -> None:
        self.total = total
        self.kept = 0
        self.eta = False
        self.bar = _MatchBar(total=total, unit="match", unit_scale=True, disable=disable, desc="matches",
                        smoothing=0.1, bar_format=WITHOUT_ETA, postfix="kept 0")  # fmt: skip

    def __call__(self, played: int, kept: int) -> None:
        self.kept += kept
        if not self.eta and self.kept and self.bar.n + played >= ETA_AFTER * self.total:
            self.eta = True
            self.bar.bar_format = WITH_ETA
        if kept:
            self.bar.set_postfix_str(f"kept {count_text(self.kept)}", refresh=False)
        self.bar.update(played)

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.close()
