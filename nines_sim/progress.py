"""The progress bar of a run: matches played, matches kept, and an ETA only once it means something."""

from __future__ import annotations

from typing import Any

from tqdm import tqdm

#: Share of a run's matches to be played, with a chunk kept, before the bar shows a remaining time:
#: until then the rate still holds the start (worker processes, imports, first deals) and the
#: ETA swings by hours.
ETA_AFTER = 0.02

_LEFT = "{l_bar}{bar}| {n_fmt}/{total_fmt} played{postfix} "
WITH_ETA = _LEFT + "[{elapsed}<{remaining}, {rate_fmt}]"
WITHOUT_ETA = _LEFT + "[{elapsed}, {rate_fmt}]"


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
        self.bar = tqdm(total=total, unit="match", unit_scale=True, disable=disable, desc="matches",
                        smoothing=0.1, bar_format=WITHOUT_ETA, postfix="kept 0")  # fmt: skip

    def __call__(self, played: int, kept: int) -> None:
        self.kept += kept
        if not self.eta and self.kept and self.bar.n + played >= ETA_AFTER * self.total:
            self.eta = True
            self.bar.bar_format = WITH_ETA
        if kept:
            shown = f"{self.kept}" if self.kept < 1000 else tqdm.format_sizeof(self.kept)
            self.bar.set_postfix_str(f"kept {shown}", refresh=False)
        self.bar.update(played)

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.bar.close()
