"""The reference's cards (RULES.md C1, C2): a face's suit and rank, the wild 9, a card's penalty.

Faces are 0..51, face = 13 * suit + rank, rank 8 is the 9 (wild); two decks repeat the faces.
"""

from __future__ import annotations

from nines_sim.game.codes import NINE_RANK as NINE  # rank index of the 9
from nines_sim.game.rules import Rules


def suit(face: int) -> int:
    return face // 13


def rank(face: int) -> int:
    return face % 13


def is_nine(face: int) -> bool:
    return rank(face) == NINE


def penalty(face: int, rules: Rules) -> int:
    """C2 / V1: A=1, 2..8 face value, 10/J/Q/K = 10, 9 = rules.nine_penalty."""
    r = rank(face)
    if r == NINE:
        return rules.nine_penalty
    if r <= 7:
        return r + 1
    return 10
