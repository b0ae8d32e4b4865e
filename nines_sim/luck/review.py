"""One match's luck, hand by hand: each seat's luck by part, and the net luck that sums to zero across seats.

The start of the review's luck and skill split: the value here is the table's fitted one (or any other), the luck
in win shares; the skill side (what each seat's own decisions lost) is the review's (:mod:`nines_sim.play.review`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nines_sim.luck.value import LinearValue


@dataclass(frozen=True)
class MatchLuckReport:
    """A match's luck per hand and seat.

    Attributes
    ----------
    luck : numpy.ndarray
        float64, shape (hands, 3, P): each hand's corrections per part (deal, draw, choice) and seat, in win share.
    net : numpy.ndarray
        float64, shape (hands, P): each hand's luck, all parts, minus the seats' mean: it sums to zero across the
        seats in every hand (what one seat's luck took from the others).
    shares : numpy.ndarray
        float64, shape (P,): the win shares.
    adjusted : numpy.ndarray
        float64, shape (P,): the win shares minus the match's net luck (they sum to what the shares sum to, 1).
    """

    luck: np.ndarray
    net: np.ndarray
    shares: np.ndarray
    adjusted: np.ndarray


def match_luck(rules, lineup: Sequence[str], seed: int, match: int, value: LinearValue) -> MatchLuckReport:  # noqa: ANN001
    """Replay match ``match`` of ``seed`` and measure its luck hand by hand under ``value``.

    Net luck subtracts the seats' mean from each seat's luck: a value ``V_p - mean_q V_q + 1/P``, which is still a
    value (the adjusted shares stay unbiased), and whose shares always sum to 1, as win shares do.

    Parameters
    ----------
    rules : nines_sim.game.rules.Rules
    lineup : sequence of str
        Strategy specs, seat by seat.
    seed, match : int
    value : LinearValue

    Returns
    -------
    MatchLuckReport
    """
    from nines_sim.engine.seats import seat_ids
    from nines_sim.luck.walk import Walker
    from nines_sim.play.replay import replay
    from nines_sim.strategy.registry import make_lineup

    events, _ = replay(rules, list(lineup), seed, match)
    walker = Walker(rules, seat_ids(make_lineup(list(lineup))))
    walker.per_hand = []
    walked = walker.walk(events)
    luck = value.corrections(np.array(walker.per_hand))
    total = luck.sum(axis=1)
    net = total - total.mean(axis=1, keepdims=True)
    return MatchLuckReport(luck, net, walked.shares, walked.shares - net.sum(axis=0))
