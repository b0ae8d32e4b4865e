"""The two deterministic strategies the reference plays ("det-lowest", "det-highest-pair").

Each is three plain functions over a small :class:`View` of the deciding player's situation: the card to play,
the suit to declare (T3, D6), whether to play a drawn card (T4).  Their batched twins are in
``tests/det_strategies.py``; both must decide alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from nines_sim.game.codes import PAIR_OF_NINES as PAIR  # move code: two 9s together (V4)
from nines_sim.game.reference.cards import is_nine, suit


@dataclass
class View:
    """What a deciding player sees (enough for the deterministic strategies)."""

    hand: list  # faces in hand (physical cards; repeats under two decks)
    legal: list  # faces in hand that are legal now (distinct or not, order irrelevant)
    pair_legal: bool
    seat: int = -1  # the deciding seat


def _suit_counts(hand: list) -> list:
    counts = [0, 0, 0, 0]
    for f in hand:
        counts[suit(f)] += 1
    return counts


def lowest_play(view: View) -> int:
    return min(view.legal)


def lowest_declare(view: View) -> int:
    counts = _suit_counts(view.hand)
    best = 0
    for s in range(4):
        if counts[s] > counts[best]:
            best = s
    return best


def lowest_play_drawn(view: View, face: int) -> bool:
    return True


def highest_pair_play(view: View) -> int:
    if view.pair_legal:
        return PAIR
    return max(view.legal)


def highest_pair_declare(view: View) -> int:
    counts = _suit_counts(view.hand)
    best = 0
    for s in range(4):
        if counts[s] < counts[best]:
            best = s
    return best


def highest_pair_play_drawn(view: View, face: int) -> bool:
    return not is_nine(face)


STRATEGIES = {
    "det-lowest": (lowest_play, lowest_declare, lowest_play_drawn),
    "det-highest-pair": (highest_pair_play, highest_pair_declare, highest_pair_play_drawn),
}
