"""The ``nines`` command line: a thin Typer layer over the library, one module per command.

:mod:`~nines_sim.cli.app` holds the Typer app (one-line usage errors, ``--version``), and :func:`main` here
the console script's entry point; :mod:`~nines_sim.cli.options` the options several commands share and
:mod:`~nines_sim.cli.common` the checks and error handling they share.  Each command is a function in its own
module; :data:`COMMANDS` registers them on the app in the order ``nines --help`` lists them.  A command
imports the library it calls only when it runs, so that ``nines --help`` and a usage error load no engine,
statistics or charts.
"""

from nines_sim.cli import (
    analyze,
    bench,
    compare_rules,
    play,
    replay,
    report,
    review,
    rules,
    strategies,
    tournament,
    train,
    tune,
    tune_rules,
    warm_up,
)
from nines_sim.cli.app import app

#: Every command, as ``nines --help`` lists it: its name and the function that runs it.
COMMANDS = (
    ("bench", bench.bench),
    ("rules", rules.rules_cmd),
    ("strategies", strategies.strategies_cmd),
    ("tune-rules", tune_rules.tune_rules),
    ("tournament", tournament.tournament),
    ("compare-rules", compare_rules.compare_rules),
    ("replay", replay.replay),
    ("analyze", analyze.analyze),
    ("report", report.report),
    ("tune", tune.tune),
    ("play", play.play),
    ("train", train.train),
    ("review", review.review),
    ("warm-up", warm_up.warm_up),
)
for _name, _command in COMMANDS:
    app.command(_name)(_command)


def main() -> None:
    """Entry point of the ``nines`` console script (and of ``python -m nines_sim``), every command registered."""
    app()


__all__ = ["COMMANDS", "app", "main"]
