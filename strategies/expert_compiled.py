"""``expert``'s compiled twin: :class:`~nines_sim.strategies.expert.Expert`'s decisions for the turn loop.

The same moves as ``Expert.play``, ``Expert.declare`` and ``Expert.play_drawn`` for one game, in the same
order of floating-point operations (the tests compare both engines byte for byte).  The parameter columns
``X_*`` are the positions of the names in ``Expert.params``: a parameter added to the class is a column here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.bits import (
    FACE_NAT_PEN,
    I_NATURALS,
    I_NINES,
    RANK_MASKS,
    SUIT_MASKS,
    decision_stream,
    face_rank,
    face_suit,
    lowest_face,
    pick_card,
    popcount,
    renamed,
    shared_inline,
)
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.loop_constants import FW_CHOICES, FW_NINE_SUITS, FW_NINES, FW_TIED
from nines_sim.game.codes import K_DEALER_DECLARE, K_DECLARE, K_PLAY_DRAWN, NINE_RANK
from nines_sim.strategies.expert import Expert

#: The kernel id of ``expert``'s seats (:data:`Expert.kernel_id`).
SID_EXPERT = Expert.kernel_id

_COLUMN = {p.name: i for i, p in enumerate(Expert.params)}
#: ``expert``'s parameters, one float64 row per seat (``seat_xp``): the column of each ``Expert.params`` name.
X_PENALTY = _COLUMN["w_penalty"]
X_FOLLOW = _COLUMN["w_follow"]
X_BLOCK = _COLUMN["w_block"]
X_DANGER = _COLUMN["danger_cards"]
X_NEXT_FACTOR = _COLUMN["next_player_factor"]
X_SHED_NINE_AT = _COLUMN["shed_nine_at"]
X_SWITCH_AGAINST = _COLUMN["switch_against"]
X_SPARE_NINES = _COLUMN["spare_nines"]
X_DECLARE_POINTS = _COLUMN["declare_points"]
X_RANK = _COLUMN["w_rank"]
X_SHORT = _COLUMN["w_short"]
X_END_CARDS = _COLUMN["end_cards"]
X_PENALTY_END = _COLUMN["w_penalty_end"]
X_NINE_AT_END = _COLUMN["nine_at_end"]
X_SCARCE = _COLUMN["w_scarce"]
X_DECLARE_SHORT = _COLUMN["declare_short"]
NXP = len(Expert.params)


# The kernel runs without numba's reference counting (``_nrt=False``: no atomic increments on every
# array passed around a turn), so nothing here allocates: per-suit figures go to the scratch row ``fw``.
@shared_inline
def _suit_counts_nat(h0, h1, fw, o):
    """Natural cards held per suit into ``fw[o : o + 4]`` (float64)."""
    for s in range(4):
        m = SUIT_MASKS[s] & I_NATURALS
        fw[o + s] = popcount(h0 & m) + popcount(h1 & m)


@shared_inline
def _pick_best_suit(fw, o, x):
    """A uniformly chosen suit among those with the highest ``fw[o : o + 4]`` (the tied suits also into
    ``fw[FW_CHOICES + FW_TIED]``: the set the luck walk corrects the choice over)."""
    mx = max(max(fw[o], fw[o + 1]), max(fw[o + 2], fw[o + 3]))
    tied = 0
    for s in range(4):
        if fw[o + s] == mx:
            tied |= 1 << s
    fw[FW_CHOICES + FW_TIED] = tied
    return pick_card(tied, 0, x)


@shared_inline
def _expert_threat(dirbit, sizes, drew, P, seat, threat, danger, next_factor):
    for s in range(4):
        threat[s] = 0.0
    step = 1 - 2 * dirbit
    nxt = (seat + step + P) % P
    for p in range(P):
        sz = sizes[p]
        if sz > 0 and sz <= danger and p != seat:
            wgt = next_factor if nxt == p else 1.0
            for s in range(4):
                threat[s] += wgt * ((drew[p] >> s) & 1)


@shared_inline
def _expert_card_score(f, h0, h1, held, threat, short, w_pen, pl, xr):
    """``expert``'s score of shedding natural face ``f`` (higher first), in ``Expert.play``'s order of operations."""
    s = face_suit(f)
    m = RANK_MASKS[face_rank(f)]
    same_rank = popcount(h0 & m) + popcount(h1 & m) - 1.0
    return (
        w_pen * FACE_NAT_PEN[f]
        + xr[X_FOLLOW] * (held[s] - 1.0)
        + xr[X_BLOCK] * threat[s]
        + xr[X_RANK] * same_rank
        + xr[X_SHORT] * ((short >> s) & 1)
        + xr[X_SCARCE] * popcount(pl & SUIT_MASKS[s] & I_NATURALS)
    )


def _expert_decide(kind, seat, legal, card, dkey, turn, dirbit, h0, h1, pl, sizes, drew, P, fw, xr):
    """``expert``'s decision: a face / PAIR, a suit, or 0/1 for play_drawn (:class:`Expert`'s twin).

    Compiled twice: apart (:data:`expert_decide`, called from the forms of the turn loop for tables without
    ``expert``, which never call it: inlined there its code crowded the loop's registers)
    and inlined (:data:`expert_decide_inline`, in the forms for tables with ``expert``, whose every call
    would otherwise cost a tenth of a rollout's time for ``lookahead``).

    ``h0``, ``h1``: the seat's hand words; ``pl``: faces played this hand; ``sizes``, ``drew``:
    int64 (P,), the seats' hand sizes and the suits each drew on; ``fw``: float64 scratch of 64 (held per
    suit, threat per suit, suit scores, then a score per face), then (from ``FW_CHOICES``) the sets a play or
    declaration picks uniformly from (:mod:`nines_sim.engine.loop_constants`: the trace form logs them for the
    luck walk); ``xr``: float64 (NXP,), the seat's parameters (the ``X_*`` columns), used in the same order of
    floating-point operations as ``Expert`` so that both give the same moves.
    """
    if kind == K_PLAY_DRAWN:
        fw[FW_CHOICES + FW_TIED] = -1.0  # no random pick (the trace form logs no sets)
        return 1 if (face_rank(card) != NINE_RANK or sizes[seat] - 1 <= xr[X_SHED_NINE_AT]) else 0
    held = fw[0:4]
    threat = fw[4:8]
    _suit_counts_nat(h0, h1, fw, 0)
    _expert_threat(dirbit, sizes, drew, P, seat, threat, xr[X_DANGER], xr[X_NEXT_FACTOR])
    nxt = (seat + 1 - 2 * dirbit + P) % P
    short = drew[nxt]
    if kind == K_DECLARE or kind == K_DEALER_DECLARE:
        score = fw[8:12]
        block100 = xr[X_BLOCK] * 100.0
        short100 = xr[X_DECLARE_SHORT] * 100.0
        for s in range(4):
            pts = 0.0
            m = SUIT_MASKS[s] & I_NATURALS
            for w in (h0, h1):
                x = w & m
                while x != 0:
                    pts += FACE_NAT_PEN[lowest_face(x)]
                    x &= x - 1
            score[s] = (
                held[s] * 100.0 + xr[X_DECLARE_POINTS] * pts + block100 * threat[s] + short100 * ((short >> s) & 1)
            )
        return _pick_best_suit(fw, 8, decision_stream(dkey, turn, kind, 1))
    # K_PLAY
    x = decision_stream(dkey, turn, kind, 0)
    near_end = False
    for p in range(P):
        sz = sizes[p]
        if p != seat and sz > 0 and sz <= xr[X_END_CARDS]:
            near_end = True
    w_pen = xr[X_PENALTY] + xr[X_PENALTY_END] * (1.0 if near_end else 0.0)
    natural = legal & I_NATURALS
    best = -np.inf
    w = natural
    while w != 0:
        f = lowest_face(w)
        w &= w - 1
        sc = _expert_card_score(f, h0, h1, held, threat, short, w_pen, pl, xr)
        fw[12 + f] = sc  # each card's score, kept for the tie test below
        best = max(best, sc)
    top = 0
    w = natural
    while w != 0:
        f = lowest_face(w)
        w &= w - 1
        top |= np.int64(fw[12 + f] >= best - 1e-9) << f
    choice = pick_card(top, 0, x)
    nines = legal & I_NINES
    has_natural = natural != 0
    best_suit = face_suit(choice) if has_natural else 0
    danger = (threat[0] + threat[1] + threat[2] + threat[3]) > 0
    can_block = max(max(threat[0], threat[1]), max(threat[2], threat[3])) > 0 and sizes[nxt] <= xr[X_SWITCH_AGAINST]
    # 9s held (both decks), not only the legal ones: spare 9s go like any card
    nines_held = popcount(h0 & I_NINES) + popcount(h1 & I_NINES)
    # A 9 replaces the natural chosen: always, or (to block) only when the natural's suit blocks no one.  The suits
    # whose natural a 9 replaces, as a set: the luck walk's distribution of the move (the tie-break, then a 9).
    always = (
        (not has_natural)
        or sizes[seat] <= xr[X_SHED_NINE_AT]
        or nines_held > xr[X_SPARE_NINES]
        or (near_end and xr[X_NINE_AT_END] > 0)
    )
    nine_suits = 0
    if nines != 0 and always:
        nine_suits = 15
    elif nines != 0 and danger and can_block:
        for s in range(4):
            if threat[s] <= 0:  # a natural of this suit blocks no one (natural_blocks)
                nine_suits |= 1 << s
    fw[FW_CHOICES + FW_TIED] = top
    fw[FW_CHOICES + FW_NINES] = nines if nine_suits != 0 else 0
    fw[FW_CHOICES + FW_NINE_SUITS] = nine_suits
    if (nine_suits >> best_suit) & 1:
        return pick_card(nines, 0, decision_stream(dkey, turn, kind, 2))
    return choice


expert_decide = njit(cache=True, error_model="numpy", _nrt=False)(renamed(_expert_decide, "expert_decide"))
expert_decide_inline = shared_inline(renamed(_expert_decide, "expert_decide_inline"))


# numba's cache checks only this file's timestamp: key it by every file the code takes in
# (expert's decision takes in bits.py)
seal_module(globals())
