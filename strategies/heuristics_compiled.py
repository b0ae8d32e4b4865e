"""The heuristics' compiled twins: the moves of ``random``, ``hold-nines``, ``dump-faces`` and ``suit-majority``.

:func:`heuristic_play` and :func:`heuristic_declare` decide for one game as
:class:`~nines_sim.strategies.random_play.RandomPlay`,
:class:`~nines_sim.strategies.hold_nines.HoldNines`,
:class:`~nines_sim.strategies.dump_faces.DumpFaces` and
:class:`~nines_sim.strategies.suit_majority.SuitMajority` decide for a batch, from the same random words
(the tests compare both engines byte for byte).  Each class's ``kernel_id`` names its branch here.
"""

from __future__ import annotations

from nines_sim.engine.bits import (
    I_NATURALS,
    PEN_BIT_MASK,
    SUIT_MASKS,
    below,
    nth_face,
    pick_card,
    popcount,
    shared_inline,
)
from nines_sim.engine.code_cache import seal_module
from nines_sim.game.codes import PAIR_OF_NINES
from nines_sim.strategies.dump_faces import DumpFaces
from nines_sim.strategies.hold_nines import HoldNines
from nines_sim.strategies.random_play import RandomPlay
from nines_sim.strategies.suit_majority import SuitMajority

SID_RANDOM = RandomPlay.kernel_id
SID_HOLD_NINES = HoldNines.kernel_id
SID_DUMP_FACES = DumpFaces.kernel_id
SID_SUIT_MAJORITY = SuitMajority.kernel_id
#: The heuristics' ids are one range (the turn loop decides them in one block).
assert [SID_RANDOM, SID_HOLD_NINES, SID_DUMP_FACES, SID_SUIT_MAJORITY] == list(range(SID_RANDOM, SID_RANDOM + 4))


@shared_inline
def heuristic_play(sid, h0, h1, legal, pair_ok, x):
    """The card (or ``PAIR_OF_NINES``) that ``random``, ``hold-nines``, ``dump-faces`` or ``suit-majority`` plays: a
    uniformly chosen card of the set it prefers, from the hand words ``h0``, ``h1`` and the legal faces."""
    if sid == SID_RANDOM:
        l0 = h0 & legal
        l1 = h1 & legal
        c0 = popcount(l0)
        cards = c0 + popcount(l1)
        r = below(x, cards + (1 if pair_ok else 0))
        if r == cards:
            return PAIR_OF_NINES
        if r < c0:
            return nth_face(l0, r)
        return nth_face(l1, r - c0)
    if sid == SID_HOLD_NINES:
        nat = legal & I_NATURALS
        choose = nat if nat != 0 else legal
        return pick_card(h0 & choose, h1 & choose, x)
    if sid == SID_DUMP_FACES:
        # the dearest legal naturals: keep, bit by bit from the top of the points, the cards that have it
        nat = legal & I_NATURALS
        for k in range(PEN_BIT_MASK.shape[0] - 1, -1, -1):
            hit = nat & PEN_BIT_MASK[k]
            nat = hit if hit != 0 else nat
        choose = nat if nat != 0 else legal
        return pick_card(h0 & choose, h1 & choose, x)
    # SID_SUIT_MAJORITY
    return pick_card(h0 & legal, h1 & legal, x)


@shared_inline
def heuristic_declare(sid, h0, h1, x):
    """The suit that ``random``, ``hold-nines``, ``dump-faces`` or ``suit-majority`` declares: for
    ``suit-majority`` a uniformly chosen suit among those it holds the most natural cards of, else any suit."""
    if sid != SID_SUIT_MAJORITY:
        return below(x, 4)
    most = -1
    tied = 0
    for s in range(4):
        m = SUIT_MASKS[s] & I_NATURALS
        n = popcount(h0 & m) + popcount(h1 & m)
        if n > most:
            most = n
            tied = 0
        if n == most:
            tied |= 1 << s
    return pick_card(tied, 0, x)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
# (the heuristics take in bits.py)
seal_module(globals())
