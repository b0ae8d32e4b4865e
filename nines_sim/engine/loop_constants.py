"""The turn loop's numbers: the rules as an int64 vector, the phases of a slot, the return codes, a compiled
user strategy's view, and the columns of the hand, match and event records.

The compiled turn loop (:mod:`nines_sim.engine.turn_loop`) and its phases read these as constants; Python reads
them to build the loop's arguments (:func:`rules_params`) and to decode what it returns.
"""

from __future__ import annotations

import numpy as np
from numba.core import types as nbt

from nines_sim.game.rules import Rules

# ----------------------------------------------------------------- constants
# rules parameters
R_P, R_NINE_PEN, R_HS, R_UNTIL, R_SKIPREV, R_DECKS, R_PAIR, R_NNO = 0, 1, 2, 7, 8, 9, 10, 11
R_NOPLAY_BLOCK, R_SHARE, R_TARGET, R_FIXED, R_CAP = 12, 13, 14, 15, 16
#: Whether the loop keeps the draw log (:mod:`nines_sim.engine.draw_log`): a table with a Python seat (only a
#: Python strategy's observation shows it) or a traced run; not set by :func:`rules_params`.
R_LOG = 17
NRP = 18


# phases of a slot
PH_NEW, PH_DEALER_DECL, PH_TURN, PH_PLAY, PH_PLAY_DRAWN, PH_APPLY, PH_DECLARE, PH_FINISH, PH_END, PH_DEAL = range(10)
# kernel return codes
DONE, BUFFER_FULL, ILLEGAL = 0, 1, 2
#: Seats a table can have: the length of the tuple of user decision functions.
MAX_SEATS = 6
#: The decisions' float64 scratch row ``fw``: the heavy built-in's figures (``expert``: per suit, then per face,
#: 64), then from ``FW_CHOICES`` the sets its last decision picked uniformly from (:data:`FW_TIED` ..), which the
#: trace form writes into an ``EV_CHOICE`` row for the luck walk.  Whole numbers below 2**52: exact as floats.
FW_CHOICES = 64
#: Offsets from ``FW_CHOICES``: the tied best naturals (a set of faces; for a declaration, the tied best suits, a
#: set of suits; -1 after a decision with no random pick, a drawn card's), the legal 9s a 9 is picked from (0: no 9
#: can be chosen), the suits of the tied naturals whose choice plays a 9 instead (a set of suits).
FW_TIED, FW_NINES, FW_NINE_SUITS = 0, 1, 2
FW_WIDTH = FW_CHOICES + 3

# What a compiled user strategy sees of one game: ``g``, an int64 vector with these fields.
(G_SEAT, G_LEGAL, G_PAIR_LEGAL, G_TOP, G_ACTIVE, G_STOCK, G_DEALER, G_DIRECTION, G_PLAYED, G_CARD, G_PLAYERS,
 G_NINE_PENALTY, G_TURN, G_KEY, G_IN_HAND, G_DECKS, NG) = range(17)  # fmt: skip
#: ``decide(kind, g, hand, hand_sizes, totals, drew_on) -> int64``: the form of a compiled user strategy.
DECIDE_SIG = nbt.int64(nbt.int64, nbt.int64[::1], nbt.uint64[::1], nbt.int64[::1], nbt.int64[::1], nbt.int64[::1])

# hand record columns
H_MATCH, H_HAND, H_DEALER, H_OUTCOME, H_TURNS, H_DRAWN, H_RESH, H_NINE, NH = range(9)
# match record columns
M_MATCH, M_HANDS, M_TB, M_FIRST, NM = range(5)
# events of the trace form of the loop (:func:`_compile_slots` with ``trace``): one int64 row each, its kind first
(EV_TURN, EV_DEAL, EV_DECLARE, EV_PLAY, EV_PAIR, EV_DRAW, EV_PENALTY_DRAW, EV_PASS, EV_SKIP, EV_RESHUFFLE, EV_END,
 EV_MATCH_END, EV_CHOICE) = range(13)  # fmt: skip
#: Columns of an event row: the kind, then at most 5 numbers and two words per seat (a deal's hands).
EV_WIDTH = 6 + 2 * MAX_SEATS
#: Rows a slot's event buffer keeps free before a pass of its loop: more than one turn, a hand's end and a deal
#: can write (draws until playable take at most every card of two decks, with a reshuffle before each).
EV_MARGIN = 4 * 104 + 32


def rules_params(rules: Rules) -> np.ndarray:
    """The rules as the int64 array the kernel reads (the ``R_*`` indices).

    Returns
    -------
    numpy.ndarray
        int64, shape (NRP,).
    """
    rp = np.zeros(NRP, dtype=np.int64)
    rp[R_P] = rules.players
    rp[R_NINE_PEN] = rules.nine_penalty
    rp[R_HS : R_HS + 5] = rules.hand_sizes
    rp[R_UNTIL] = rules.draw_rule == "until-playable"
    rp[R_SKIPREV] = rules.skip_reverse
    rp[R_DECKS] = rules.decks
    rp[R_PAIR] = rules.pair_of_nines
    rp[R_NNO] = rules.no_nine_out
    rp[R_NOPLAY_BLOCK] = rules.block_rule == "no-play-circle"
    rp[R_SHARE] = rules.tie_rule == "share"
    rp[R_TARGET] = rules.target
    rp[R_FIXED] = rules.fixed_hands
    rp[R_CAP] = rules.turn_cap
    return rp


def classic_shape(rp: np.ndarray) -> bool:
    """Whether rules (as :func:`rules_params`) have the classic shape (the classic form of the turn loop,
    :func:`nines_sim.engine.turn_loop.slots_kernel`, plays them): one deck, one card drawn (T4), no
    skip and reverse (V1), no pair of 9s (V4), and a 9 may go out.  Most presets do (classic, hard-nines,
    free-nines, no-stacking, fixed-hands-*); the nine penalty, block rule, tie rule, target and turn cap
    are read at run time by either form."""
    return bool(rp[R_DECKS] == 1 and rp[R_NNO] == 0 and rp[R_UNTIL] == 0 and rp[R_SKIPREV] == 0 and rp[R_PAIR] == 0)


#: What a phase returns as its code when the slot plays on (the kernel's return codes are >= 0).
GO = -1
