"""The one run driver: an experiment's units of work, run on a backend, merged into its outcome.

An experiment (a tournament, a league, a rule comparison, a simulation) says
what to play as a stream of units of work, each a chunk of match indices, and
how to merge their results; a backend (:mod:`nines_sim.runs.backends`) says where the
units run; the chunk size comes from the one policy of :mod:`nines_sim.runs.chunks`.
Every experiment therefore gets the same Ctrl-C behaviour (it stops within
seconds and keeps what finished), the same progress and the same numbers on
local processes or a Dask cluster, whatever the workers, chunk or batch size::

    from nines_sim.runs import driver
    from nines_sim.runs.backends import Local
    from nines_sim.experiments.tournament.work import TournamentWork, plan_tournament

    outcome = driver.run(TournamentWork(plan_tournament("table", [], rules), 10_000, seed=0), Local(2))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from nines_sim.game.rules import Rules
from nines_sim.runs.backends import Backend, Job
from nines_sim.runs.chunks import Shape, chunk_size
from nines_sim.runs.pool import STOP_NOTICE, Progress

Outcome = TypeVar("Outcome", covariant=True)


class Experiment(Protocol[Outcome]):
    """Units of work and how their results merge.

    Attributes
    ----------
    play : callable
        The unit function, module level (pickled by reference): ``play(*args, on_matches=..., should_stop=...)``
        (see :mod:`nines_sim.runs.pool`).
    matches : int
        Matches the run plays (per game or rule set): what the chunk size is cut from.
    warm : list of Rules or (Rules, lineup), or None
        The rules the units play, so that forked workers inherit the compiled forms they need (None: the run
        loads its own before they fork, :func:`nines_sim.engine.batch.warm_up`).
    """

    play: Callable[..., Any]
    matches: int
    warm: Sequence[Rules | tuple[Rules, Sequence]] | None

    def shape(self) -> Shape:
        """What the chunk size depends on besides the matches and workers (:mod:`nines_sim.runs.chunks`)."""

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Iterable[tuple[Any, tuple]]:
        """The ``(tag, args)`` units of ``size`` matches each, lazily; lineups passed through ``portable``."""

    def take(self, tag: Any, result: Any) -> int:
        """Merge one unit's result; returns the matches it kept, as progress counts them."""

    def outcome(self, partial: bool) -> Outcome:
        """The merged results; ``partial`` when a Ctrl-C cut the run short."""


def run(
    experiment: Experiment[Outcome],
    backend: Backend,
    on_progress: Progress | None = None,
    chunk: int | None = None,
    notice: str = STOP_NOTICE,
    meanwhile: Callable[[], None] | None = None,
) -> Outcome:
    """Run every unit of ``experiment`` on ``backend`` and return the merged outcome.

    Parameters
    ----------
    experiment : Experiment
    backend : Backend
        :class:`nines_sim.runs.backends.Local` or :class:`nines_sim.runs.backends.Dask`.
    on_progress : callable, optional
        ``on_progress(played, kept)`` with counts of matches (for a progress bar).
    chunk : int, optional
        Matches per unit (default :func:`nines_sim.runs.chunks.chunk_size`); the numbers do not depend on it.
    notice : str
        Printed to stderr on the first Ctrl-C (``nines bench`` keeps nothing of a stopped run, and says so).
    meanwhile : callable, optional
        Work this process may do while workers play, such as loading the modules that write the outcome
        (:attr:`nines_sim.runs.backends.Job.meanwhile`).

    Returns
    -------
    The experiment's outcome, ``partial`` when Ctrl-C stopped the run (what finished is kept).

    Raises
    ------
    Exception
        The first error of a unit, after the other units were told to stop.
    """
    size = chunk or chunk_size(experiment.matches, backend.workers, experiment.shape(), backend.live_progress)
    units = experiment.units(size, backend.portable)
    partial = backend.run(Job(experiment.play, units, experiment.take, on_progress, experiment.warm, notice, meanwhile))
    return experiment.outcome(partial)
