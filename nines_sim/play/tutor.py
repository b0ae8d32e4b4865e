"""``nines play --tutor POINTS``: a warning before a move that loses more than ``POINTS``, as GNU Backgammon's
tutor warns, by the review's measure (``nines review``: the search's value of the best move minus the chosen
one's, in penalty points, on the same samples of the hidden cards).

The driver (:func:`nines_sim.play.driver.run_match`) judges the person's move before it is played; a move that
loses more than the threshold comes back to the person as the same :class:`~nines_sim.play.seat.Request` with a
:class:`TutorWarning`; choosing the warned move again plays it, any other move is judged in turn.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the search is imported when a move is judged, not with the screen
    from nines_sim.search.verdict import Verdict
    from nines_sim.strategy.base import Observation


@dataclass(frozen=True)
class TutorWarning:
    """A move the tutor warns about.

    Attributes
    ----------
    move : int
        The move warned about (a face, :data:`~nines_sim.strategy.base.PAIR_OF_NINES`, a suit 0..3, or 1/0 to
        play or keep a drawn card, T4).
    lost : float
        Penalty points it loses against the best move (the best mean minus its mean, ``nines review``'s
        ``points_lost``), > the threshold.
    se : float
        Standard error of ``lost`` (the difference taken sample by sample).
    best : int
        The search's best move.
    threshold : float
        The person's ``--tutor`` points.
    """

    move: int
    lost: float
    se: float
    best: int
    threshold: float


def tutor_warning(verdict: Verdict, obs: Observation, card: np.ndarray | None, move: int,
                  threshold: float) -> TutorWarning | None:  # fmt: skip
    """The warning for ``move`` of a one-game decision, or None if it loses ``threshold`` points or fewer.

    Parameters
    ----------
    verdict : Verdict
        The search's verdict on the decision (:func:`nines_sim.search.verdict.judge`), one game.
    obs : Observation
        The decision (one game).
    card : numpy.ndarray, optional
        int64, (1,): the drawn card of a ``play_drawn`` (T4).
    move : int
        The person's move, one the rules allow.
    threshold : float
        Points lost above which to warn (>= 0).

    Returns
    -------
    TutorWarning or None
        None too for a decision with no choice (one candidate; a 9 that ends the hand, O1), as the review
        scores none.
    """
    from nines_sim.search.pimc import candidates
    from nines_sim.search.verdict import has_choice

    if not has_choice(obs, candidates(obs, card))[0]:
        return None
    moves = np.array([move], dtype=np.int64)
    if verdict.column(moves)[0] < 0:
        return None  # not one of the search's candidates: nothing to measure it by
    lost, se = verdict.loss(moves)
    if not lost[0] > threshold:
        return None
    best = int(verdict.moves[0, verdict.best()[0]])
    return TutorWarning(move, float(lost[0]), float(se[0]), best, threshold)
