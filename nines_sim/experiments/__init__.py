"""Experiments as library calls: a tournament or a rule comparison played into a run folder.

One call plays the matches (on local processes, or a Dask cluster with ``scheduler=``) and writes the
folder ``nines tournament`` or ``nines compare-rules`` writes for the same arguments: the CSVs (byte for
byte the same), ``manifest.json`` with the command that reproduces the run, the charts and ``report.md``::

    from nines_sim.experiments import run_tournament

    folder = run_tournament(["expert", "random"], matches=10_000, seed=1, out="runs/first")

Each experiment also comes in two steps, for callers that check their arguments before a folder is made
(the CLI does): a setup (:func:`tournament_setup`, :func:`comparison_setup`) that reads the lineup and the
rules and raises before anything is played, and a play (:func:`play_tournament`, :func:`play_comparison`)
that returns the folder with what the console summary says of it (``.summary()``).
"""

from nines_sim.experiments.compare_rules.setup import (
    ComparisonRun,
    ComparisonSetup,
    comparison_setup,
    play_comparison,
    run_rule_comparison,
)
from nines_sim.experiments.tournament.setup import (
    TournamentRun,
    TournamentSetup,
    play_tournament,
    run_tournament,
    tournament_setup,
)
from nines_sim.runs.errors import NothingKept, RunSetupError

__all__ = [
    "ComparisonRun",
    "ComparisonSetup",
    "NothingKept",
    "RunSetupError",
    "TournamentRun",
    "TournamentSetup",
    "comparison_setup",
    "play_comparison",
    "play_tournament",
    "run_rule_comparison",
    "run_tournament",
    "tournament_setup",
]
