"""The state of the compiled turn loop's game slots, declared once: every per-slot field, its dtype and shape.

A *slot* holds one game in play (:func:`nines_sim.engine.turn_loop.play_slots`).  Its
state is the arrays of :data:`FIELDS`, indexed by slot (``B`` slots, ``P``
seats, ``D`` decks, ``S = 52 D`` cards); the slot's named scalars are the
columns of ``st`` (the ``S_*`` indices below) and its keys the columns of
``keys`` (``K_*``).  :func:`alloc_slots` allocates a :class:`SlotState`, whose
fields are the turn loop's first arguments in order (``play(*slots, ...)``):
the engine (:mod:`nines_sim.engine.batch`) and positions
(:mod:`nines_sim.engine.positions`, which the search plays on) use it, so a new
per-slot field is added here (and read by the loop) and nowhere else.

This module imports no compiled code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

# ----------------------------------------------------------------- the slot's named scalars: columns of ``st``
# match: index (-1: none), hand_seq: hands dealt (the hand keys' counter), hands: regular hands played,
# tb_hands: tie-break hands, first: first dealer, in_tb: in a tie-break, mask/n_in: seats in play, pos/end: the
# stock's next card and end, top/active: top card and active suit, seat/dealer/dir/turn/streak: whose turn,
# the dealer, direction bit, turn of the hand, turns without a play; drawn/resh/nine_start: the hand's draws,
# reshuffles and 9 starter; phase/move/passed/card: where the slot's game stands (``PH_*``), the move, whether
# the seat passed, the drawn card; outcome: how the hand ended; waiting/wait_kind/wait_seat/have_ans/answer:
# the decision a Python seat is asked and its answer.
(S_MATCH, S_HAND_SEQ, S_HANDS, S_TB_HANDS, S_FIRST, S_IN_TB, S_MASK, S_N_IN, S_POS, S_END, S_TOP, S_ACTIVE,
 S_SEAT, S_DEALER, S_DIR, S_TURN, S_STREAK, S_DRAWN, S_RESH, S_NINE_START, S_PHASE, S_MOVE, S_PASSED,
 S_CARD, S_OUTCOME, S_WAITING, S_WAIT_KIND, S_WAIT_SEAT, S_HAVE_ANS, S_ANSWER, S_DRAW_LOG) = range(31)  # fmt: skip
#: The draw log (:mod:`nines_sim.engine.draw_log`): ``DRAW_LOG_WORDS`` columns a seat, for at most
#: ``DRAW_LOG_SEATS`` seats, from ``S_DRAW_LOG`` on; the last columns of ``st``.
DRAW_LOG_WORDS = 5
#: The word of a seat's log that holds its last declaration (the others: sets of faces).
DRAW_LOG_DECL = 4
DRAW_LOG_SEATS = 6
DRAW_LOG_COLUMNS = DRAW_LOG_SEATS * DRAW_LOG_WORDS
NST = S_DRAW_LOG + DRAW_LOG_COLUMNS
# ----------------------------------------------------------------- the slot's keys: columns of ``keys``
# card match key, decision match key, card hand key, decision hand key, legal set of a waiting decision
K_CMK, K_DMK, K_CHK, K_DHK, K_LEGAL, NKEY = range(6)

#: Every per-slot array: name, dtype, shape (in ``B`` slots, ``P`` seats, ``D`` decks, ``S`` cards, and the
#: column counts), meaning.  Sets of faces are stored as uint64 (so that Python strategies read them as from
#: the numpy engine); the loop reads them as int64.
FIELDS: tuple[tuple[str, type, tuple[str, ...], str], ...] = (
    ("st", np.int64, ("B", "NST"), "the named scalars of each slot (the S_* columns)"),
    ("keys", np.uint64, ("B", "NKEY"), "match and hand keys, the legal set asked about (the K_* columns)"),
    ("hands", np.uint64, ("D", "B", "P"), "count-coded hands (nines_sim.game.cards)"),
    ("ncards", np.int64, ("B", "P"), "cards in each hand"),
    ("totals", np.int64, ("B", "P"), "the match's penalty totals"),
    ("drew_on", np.int64, ("B", "P"), "the suits each seat drew on this hand, a bit each"),
    ("under", np.uint64, ("D", "B"), "count-coded discard pile below the top card"),
    ("stock", np.int8, ("B", "S"), "faces of the stock, in order"),
    ("played", np.uint64, ("B",), "faces played this hand"),
)

#: The per-slot arrays as one value (the fields of :data:`FIELDS`, in order).
SlotState = NamedTuple("SlotState", [(name, np.ndarray) for name, *_ in FIELDS])


def alloc_slots(B: int, P: int, D: int) -> SlotState:
    """Zeroed state of ``B`` slots for ``P`` seats and ``D`` decks, every slot without a match (``S_MATCH`` -1).

    Returns
    -------
    SlotState
        The arrays of :data:`FIELDS`, C-contiguous, of the dtypes and shapes declared there.
    """
    size = {"B": B, "P": P, "D": D, "S": 52 * D, "NST": NST, "NKEY": NKEY}
    out = SlotState(*(np.zeros(tuple(size[d] for d in shape), dtype=dt) for _, dt, shape, _ in FIELDS))
    out.st[:, S_MATCH] = -1
    return out
