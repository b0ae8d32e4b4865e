"""The design part of an experiment: a tournament's or a rule comparison's ``design=N`` (``--design N``).

Plays the design lineups of :mod:`nines_sim.experiments.design.work` (skill, seat fairness, length, comebacks and
tension)
under the experiment's rule sets after its own matches, and writes ``design.csv`` and
``design_distribution.csv`` into its run folder, where :func:`nines_sim.reporting.redraw` adds the report
section and chart.  Opt-in: it plays three more lineups per rule set, and every stored folder stays as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: The files the design part writes into a run folder.
DESIGN_FILES = ["design.csv", "design_distribution.csv"]
#: What the console says (on stderr) when Ctrl-C stopped the design part.
DESIGN_STOPPED = "Interrupted: the design measures were not finished and are not written."


def check_design(skilled: str, weak: str) -> None:
    """Check the design lineups' strategies before anything is played.

    Raises
    ------
    nines_sim.strategy.registry.StrategyNotFound
        For a spec that names no strategy.
    """
    from nines_sim.strategy.registry import make_lineup

    make_lineup([skilled, weak])


def design_words(n: int, skilled: str, weak: str) -> list[str]:
    """The words of a command that asks for these design measures (none for ``n == 0``)."""
    return ["--design", str(n), "--skilled", skilled, "--weak", weak] if n else []


def play_design(
    sets: Sequence[Any], n: int, skilled: str, weak: str, seed: int, workers: int, batch_size: int, quiet: bool,
    client: Any = None,
) -> tuple[pd.DataFrame, pd.DataFrame] | None:  # fmt: skip
    """Play the design lineups on ``n`` matches each under every rule set (RULES.md as each rule set reads).

    Parameters
    ----------
    sets : sequence
        The experiment's rule sets, each with ``label`` and ``rules`` (the first is the paired reference).
    n : int
        Matches per design lineup and rule set, indices ``0 .. n-1`` of ``seed`` (common random numbers).
    skilled, weak : str
        The strategies of the design lineups (:class:`nines_sim.experiments.design.work.DesignSetup`).
    seed, workers, batch_size, quiet
        As the experiment's: the seed of the run, worker processes, games in play at once, no progress bar.
    client : distributed.Client, optional
        The experiment's Dask client: the design lineups play on its cluster (the same numbers), not locally.

    Returns
    -------
    tuple of pandas.DataFrame, or None
        ``design.csv`` and ``design_distribution.csv`` as frames, or None when Ctrl-C stopped the design
        part (nothing of it is kept).
    """
    from nines_sim.experiments.design.work import (
        LINEUPS,
        DesignSet,
        DesignSetup,
        design_frame,
        distribution_frame,
        run_design,
    )
    from nines_sim.runs.backends import choose
    from nines_sim.runs.progress import RunProgress

    dsets = [DesignSet(rs.label, rs.rules) for rs in sets]
    with RunProgress(n * len(sets) * len(LINEUPS), quiet) as bar:
        out = run_design(dsets, DesignSetup(skilled, weak), n, seed, workers, batch_size, on_progress=bar,
                         backend=choose(workers, client))  # fmt: skip
    if out.partial:
        return None
    return design_frame(out), distribution_frame(out)


def tournament_sets(label: str, plan: Any) -> list[Any]:
    """The one rule set of a tournament (its first game's, which seats the table asked) for :func:`play_design`."""
    from nines_sim.experiments.design.work import DesignSet

    return [DesignSet(label, plan.games[0].rules)]


def write_design(run_dir: Path, frames: tuple[pd.DataFrame, pd.DataFrame] | None) -> list[str]:
    """Write the design measures into a run folder (or remove a previous run's); the names written."""
    from nines_sim.runs.output import write_csv

    for name in DESIGN_FILES:
        (run_dir / name).unlink(missing_ok=True)
    if frames is None:
        return []
    for name, frame in zip(DESIGN_FILES, frames, strict=True):
        write_csv(frame, run_dir / name)
    return list(DESIGN_FILES)
