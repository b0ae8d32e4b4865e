"""The draw log: what each seat's draws this hand say about the cards it held then (T1, T2, T3, T4).

A seat draws only when it holds no legal card (T2, T4): none of the faces legal
on that turn (the active suit, the top card's rank, the 9s where a 9 was legal).
Such a face may still be in its hand later, but only as one of the cards it drew
since.  The log keeps, for each seat, :data:`~nines_sim.engine.slots.DRAW_LOG_WORDS`
int64 words in ``st``'s last columns (from :data:`~nines_sim.engine.slots.S_DRAW_LOG`):

- words ``LOG_K + k`` (k = 0, 1, 2, 3): the faces whose last exclusion (a draw
  turn of the seat on which they were legal) lies ``k`` cards drawn ago (3: 3
  or more), as 52-bit sets.  The four sets are disjoint; a face in none was
  never excluded this hand;
- word ``LOG_DECL``: bits 0-7 one plus the suit the seat last declared this hand
  (T3, D6; 0: none), bits 8-31 one plus the hand's turn it declared at, bit 32
  set when the engine dealt the hand (a position with this bit clear has no log).

A card drawn at the turn that excluded it (kept though legal) counts at ``k`` =
0.  The search's sampler weighs a hidden hand's cards by their ``k`` and the
declared suit (:func:`nines_sim.search.sampler.log_weights`).  Everything here is
public: every player sees who drew on which top card and who declared what.  The
turn loop writes the log and never reads it, so no result depends on it; a draw
costs a few word operations (the speed log: ``docs/explanation/benchmark-log.md``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import DRAW_LOG_DECL, DRAW_LOG_WORDS, S_DRAW_LOG

#: The words of a seat's log (see the module's docstring).
LOG_K = 0
LOG_DECL = DRAW_LOG_DECL
#: ``LOG_DECL``'s bit for a log kept since the deal.
LOG_KEPT = np.int64(1) << 32
#: The declaration's turn field stops here (24 bits).
LOG_TURN_MAX = (1 << 24) - 1


@njit(cache=True, error_model="numpy")
def log_reset(st, b, seat):
    """A new hand: nothing excluded, nothing declared, the log kept."""
    c = S_DRAW_LOG + seat * DRAW_LOG_WORDS
    for w in range(LOG_DECL):
        st[b, c + w] = 0
    st[b, c + LOG_DECL] = LOG_KEPT


@njit(cache=True, error_model="numpy")
def log_drew(st, b, seat):
    """A card came into ``seat``'s hand from the stock (a draw, or a penalty draw of V3): every exclusion ages."""
    c = S_DRAW_LOG + seat * DRAW_LOG_WORDS
    st[b, c + 3] |= st[b, c + 2]
    st[b, c + 2] = st[b, c + 1]
    st[b, c + 1] = st[b, c]
    st[b, c] = 0


@njit(cache=True, error_model="numpy")
def log_draw_turn(st, b, seat, drawn, legal_set):
    """``seat`` held none of the faces ``legal_set`` (int64, 52 bits) at this turn, then drew ``drawn`` cards."""
    for _ in range(min(drawn, 3)):  # three ages bring every exclusion to the last set
        log_drew(st, b, seat)
    c = S_DRAW_LOG + seat * DRAW_LOG_WORDS
    st[b, c] |= legal_set
    keep = ~legal_set
    st[b, c + 1] &= keep
    st[b, c + 2] &= keep
    st[b, c + 3] &= keep


@njit(cache=True, error_model="numpy")
def log_declared(st, b, seat, suit, turn):
    """``seat`` declared ``suit`` at the hand's turn ``turn`` (after a 9, or as the dealer at a 9 starter)."""
    c = S_DRAW_LOG + seat * DRAW_LOG_WORDS + LOG_DECL
    st[b, c] = (st[b, c] & LOG_KEPT) | (suit + 1) | (min(turn + 1, LOG_TURN_MAX) << 8)


seal_module(globals())
