"""The tournament (``nines tournament``), with its league format, in one home.

- :mod:`~nines_sim.experiments.tournament.setup`: the arguments, the plan's checks, the reproduce command
  and the one library call (:func:`run_tournament`, :func:`tournament_setup`, :func:`play_tournament`).
- :mod:`~nines_sim.experiments.tournament.work`: the plan and its matches played on :func:`nines_sim.runs.driver.run`.
- :mod:`~nines_sim.experiments.tournament.league` and :mod:`~nines_sim.experiments.tournament.schedule`:
  the league format (seating, rated games).
- :mod:`~nines_sim.experiments.tournament.tables`: the run folder's tables.
- :mod:`~nines_sim.experiments.tournament.report` and :mod:`~nines_sim.experiments.tournament.report_league`:
  ``report.md``.
"""

from nines_sim.experiments.tournament.setup import (
    TournamentRun,
    TournamentSetup,
    play_tournament,
    run_tournament,
    tournament_setup,
)

__all__ = ["TournamentRun", "TournamentSetup", "play_tournament", "run_tournament", "tournament_setup"]
