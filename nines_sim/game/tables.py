"""The rules as lookup tables the engine and the search read: legal plays, the next seat, penalty points.

Each table is built once per rules (or table size) from :mod:`nines_sim.game.cards`; the compiled turn loop
(:mod:`nines_sim.engine.turn_loop`) indexes them, and the search (:mod:`nines_sim.search`) scores hands with
:func:`penalty_points`.
"""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import FACE_RANK, N_FACES, NATURALS, NINE_RANK, NINES, PENALTY_GROUPS, RANK_MASK, SUIT_MASK
from nines_sim.game.rules import Rules

U64_NINES = np.uint64(NINES)


def legal_table(rules: Rules) -> np.ndarray:
    """Faces that may be played on each (top face, active suit) (T1, V6).

    Returns
    -------
    numpy.ndarray
        uint64, shape (52 * 4,), indexed by ``top * 4 + active_suit``.
    """
    out = np.zeros(N_FACES * 4, dtype=np.uint64)
    for top in range(N_FACES):
        for suit in range(4):
            if FACE_RANK[top] == NINE_RANK:
                m = int(SUIT_MASK[suit])
                m = m | NINES if rules.nine_on_nine else m & NATURALS
            else:
                m = int(SUIT_MASK[suit]) | int(RANK_MASK[FACE_RANK[top]]) | NINES
            out[top * 4 + suit] = m
    return out


def next_seat_table(players: int) -> np.ndarray:
    """Next seat dealt in, after each seat, in each direction (D7, V3).

    Returns
    -------
    numpy.ndarray
        int64, shape (2**P * 2 * P,), indexed by ``(seats_mask * 2 + dirbit) * P + seat``;
        -1 where the mask holds no seat.
    """
    P = players
    out = np.full((1 << P) * 2 * P, -1, dtype=np.int64)
    for mask in range(1, 1 << P):
        for dirbit in (0, 1):
            step = 1 if dirbit == 0 else -1
            for s in range(P):
                for k in range(1, P + 1):
                    c = (s + step * k) % P
                    if (mask >> c) & 1:
                        out[(mask * 2 + dirbit) * P + s] = c
                        break
    return out


def penalty_points(words: list[np.ndarray], nine_penalty: int) -> np.ndarray:
    """Penalty of count-coded hands (C2, V1).

    Parameters
    ----------
    words : list of numpy.ndarray
        ``D`` uint64 arrays of any one shape.
    nine_penalty : int
        Points per 9.

    Returns
    -------
    numpy.ndarray
        int64, the same shape: points.
    """
    total = np.zeros(words[0].shape, dtype=np.int64)
    for w in words:
        for pts, mask in PENALTY_GROUPS:
            total += pts * np.bitwise_count(w & np.uint64(mask)).astype(np.int64)
        total += nine_penalty * np.bitwise_count(w & U64_NINES).astype(np.int64)
    return total
