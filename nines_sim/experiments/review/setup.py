"""A review as one library call: :func:`run_review` reviews a saved match or a strategy into a run folder.

``nines review`` is a thin layer over it: it reads the options and the saved match or the lineup, calls
:func:`run_review` and prints :func:`nines_sim.experiments.review.report.terminal_lines` of what it returns.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from nines_sim.experiments.review.work import Review, ReviewSetup
from nines_sim.game.rules import Rules
from nines_sim.runs.errors import NothingKept
from nines_sim.runs.ranges import Range, total
from nines_sim.runs.runfolder import run_folder, writing

if TYPE_CHECKING:  # pandas loads with the run, not with a usage error
    import pandas as pd


def run_review(
    setup: ReviewSetup,
    out: str | Path | None,
    force: bool,
    charts: bool,
    *,
    saved: Any = None,
    target: str | None = None,
    lineup: list[str] | None = None,
    rules: Rules | None = None,
    matches: int = 200,
    seed: int = 0,
    ranges: list[Range] | None = None,
    workers: int = 1,
    luck: bool = False,
) -> tuple[Path, Review, pd.DataFrame | None]:
    """Review a saved match (``saved``, loaded from ``target``) or seat 0 of ``lineup`` under ``rules`` in the
    matches ``ranges`` of ``seed`` (on ``workers`` processes, with a progress bar), and write the run folder:
    ``review.csv``, ``report.md``, the chart (unless not ``charts``) and ``manifest.json``; with ``luck`` (a
    strategy review), ``luck_skill.csv`` too (:func:`nines_sim.luck.review.review_luck`).

    Returns
    -------
    (pathlib.Path, Review, pandas.DataFrame or None)
        The run folder, the review (``Review.stopped`` when Ctrl-C cut it short; what finished is kept) and its
        luck and skill table (None without ``luck``).

    Raises
    ------
    nines_sim.runs.errors.RunSetupError, nines_sim.runs.output.OutputExists
        For an ``out`` that cannot be used.
    nines_sim.runs.errors.NothingKept
        When Ctrl-C came before any match was reviewed: nothing is written, a folder made is removed.
    nines_sim.play.SavedMatchError
        For a saved match that cannot be replayed.
    """
    # the search and the charts load once the input is known good: a usage error stays as quick as --help
    from nines_sim.experiments.review.report import write_review
    from nines_sim.experiments.review.work import review_saved, review_strategy

    with run_folder(out, "review", force) as run_dir:
        if saved is not None:
            res = review_saved(saved, target, setup)
        else:
            from nines_sim.runs.progress import RunProgress

            wanted = ranges or [(0, matches)]
            with RunProgress(total(wanted)) as bar:
                res = review_strategy(lineup[0], lineup[1:], matches, rules, seed, setup, workers=workers,
                                      on_progress=bar, ranges=wanted)  # fmt: skip
        if res.stopped and not res.matches:
            raise NothingKept()  # an empty review is no review: nothing is written, the folder made is removed
        table = None
        if luck and saved is None:
            from nines_sim.luck.review import review_luck

            table = review_luck(res, workers=workers)
        with writing():
            write_review(res, run_dir, chart=charts)
            if table is not None:
                from nines_sim.runs.output import write_csv

                write_csv(table, run_dir / "luck_skill.csv")
    return run_dir, res, table
