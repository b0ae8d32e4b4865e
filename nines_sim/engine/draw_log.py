"""The draw log: what each seat's draws this hand say about the cards it held then (T1, T2, T4).

A seat draws only when it holds no legal card (T2, T4): no card of the active
suit, none of the top card's rank, and no 9 where a 9 was legal.  The log keeps,
for each seat, 18 counters of 16 bits in ``st``'s last columns (four to a word,
:data:`~nines_sim.engine.slots.DRAW_LOG_WORDS` words a seat, from
:data:`~nines_sim.engine.slots.S_DRAW_LOG`):

- counter ``LOG_DRAWS``: 1 plus the cards the seat has drawn this hand (0: the
  hand was not dealt by the engine, so there is no log);
- counters ``LOG_SUIT + s``: counter ``LOG_DRAWS``'s value after the seat's last
  turn that drew while suit ``s`` was active (0: none);
- counters ``LOG_RANK + r``: the same for the last turn that drew while cards of
  rank ``r`` were legal (the top card's rank; rank 9 where a 9 was legal);
- counter ``LOG_DECL``: 1 plus the suit the seat last declared this hand (T3, D6; 0: none), and
  ``LOG_DECL_TURN``: 1 plus the hand's turn it declared at.  A player tends to
  declare a suit it holds.

So a card of suit ``s`` and rank ``r`` held by the seat now came in with one of
the ``k`` cards it drew since its last such turn, ``k`` being counter
``LOG_DRAWS`` less the larger of the two counters: what the search's sampler
weighs a hidden hand's cards by (:func:`nines_sim.search.sampler.hand_weights`).
Everything here is public: every player sees who drew on which top card.  The
turn loop writes the log and never reads it, so no result depends on it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import DRAW_LOG_WORDS, S_DRAW_LOG
from nines_sim.game.codes import NINE_RANK

#: The counters of a seat's log (see the module's docstring).
LOG_DRAWS = 0
LOG_SUIT = 1
LOG_RANK = 5
LOG_DECL = 18
LOG_DECL_TURN = 19
LOG_COUNTERS = 20
#: A counter stops here (15 bits: the word's sign bit is never set).
LOG_MAX = 32767


@njit(cache=True, error_model="numpy")
def log_get(st, b, seat, j):
    """Counter ``j`` of ``seat``'s log in slot ``b``."""
    return (st[b, S_DRAW_LOG + seat * DRAW_LOG_WORDS + (j >> 2)] >> (16 * (j & 3))) & 0xFFFF


@njit(cache=True, error_model="numpy")
def log_set(st, b, seat, j, v):
    """Set counter ``j`` of ``seat``'s log in slot ``b`` to ``v`` (0 to :data:`LOG_MAX`)."""
    c = S_DRAW_LOG + seat * DRAW_LOG_WORDS + (j >> 2)
    sh = 16 * (j & 3)
    st[b, c] = (st[b, c] & ~(np.int64(0xFFFF) << sh)) | (np.int64(v) << sh)


@njit(cache=True, error_model="numpy")
def log_reset(st, b, seat):
    """A new hand: no draws yet."""
    for w in range(DRAW_LOG_WORDS):
        st[b, S_DRAW_LOG + seat * DRAW_LOG_WORDS + w] = 0
    st[b, S_DRAW_LOG + seat * DRAW_LOG_WORDS] = 1


@njit(cache=True, error_model="numpy")
def log_drew(st, b, seat):
    """A card came into ``seat``'s hand from the stock (a draw, or a penalty draw of V3)."""
    v = log_get(st, b, seat, LOG_DRAWS)
    if 0 < v < LOG_MAX:
        log_set(st, b, seat, LOG_DRAWS, v + 1)


@njit(cache=True, error_model="numpy")
def log_no_legal(st, b, seat, top, active, nines_legal):
    """``seat`` had no legal card on ``top`` with suit ``active`` active; call it after the turn's draws.

    ``nines_legal``: whether a 9 was legal then (V5 and V6 can make it not).
    """
    v = log_get(st, b, seat, LOG_DRAWS)
    if v == 0:
        return
    log_set(st, b, seat, LOG_SUIT + active, v)
    r = top % 13
    if r != NINE_RANK:
        log_set(st, b, seat, LOG_RANK + r, v)
    if nines_legal:
        log_set(st, b, seat, LOG_RANK + NINE_RANK, v)


@njit(cache=True, error_model="numpy")
def log_declared(st, b, seat, suit, turn):
    """``seat`` declared ``suit`` at the hand's turn ``turn`` (after a 9, or as the dealer at a 9 starter)."""
    if log_get(st, b, seat, LOG_DRAWS) == 0:
        return
    log_set(st, b, seat, LOG_DECL, suit + 1)
    log_set(st, b, seat, LOG_DECL_TURN, min(turn + 1, LOG_MAX))


seal_module(globals())
