"""A slot's hot state, moved between its arrays and the compiled turn loop's locals.

While a slot plays, the turn loop (:mod:`nines_sim.engine.turn_loop`) keeps the values every phase reads in
locals (:func:`load_slot`), stores them back when the slot stops (:func:`store_slot`), and reads them afresh
after a deal (:func:`start_hand`).  The columns are declared in :mod:`nines_sim.engine.slots`.
"""

from __future__ import annotations

import numpy as np

from nines_sim.engine.bits import shared_inline
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.slots import (
    K_DHK,
    K_LEGAL,
    S_ACTIVE,
    S_CARD,
    S_DIR,
    S_MASK,
    S_MOVE,
    S_N_IN,
    S_PASSED,
    S_PHASE,
    S_SEAT,
    S_STREAK,
    S_TOP,
    S_TURN,
)


@shared_inline
def load_slot(st, keys, b):
    """The slot's hot state, which the loop keeps in locals while the slot plays (:func:`store_slot`'s order)."""
    return (
        st[b, S_PHASE], st[b, S_TOP], st[b, S_ACTIVE], st[b, S_SEAT], st[b, S_DIR], st[b, S_TURN], st[b, S_STREAK],
        st[b, S_N_IN], st[b, S_MASK], st[b, S_MOVE], st[b, S_PASSED] != 0, st[b, S_CARD], keys[b, K_DHK],
        np.int64(keys[b, K_LEGAL]),
    )  # fmt: skip


@shared_inline
def store_slot(st, keys, b, ph, top, active, seat, dirbit, turn, streak, n_in, mask, mv, passed, card, legal):
    """Store the loop's locals in the slot, where Python (and the next call) can see them."""
    st[b, S_PHASE] = ph
    st[b, S_TOP] = top
    st[b, S_ACTIVE] = active
    st[b, S_SEAT] = seat
    st[b, S_DIR] = dirbit
    st[b, S_TURN] = turn
    st[b, S_STREAK] = streak
    st[b, S_N_IN] = n_in
    st[b, S_MASK] = mask
    st[b, S_MOVE] = mv
    st[b, S_PASSED] = passed
    st[b, S_CARD] = card
    keys[b, K_LEGAL] = np.uint64(legal)


@shared_inline
def start_hand(st, keys, b):
    """The loop's locals of a hand just dealt: ``(phase, top, active suit, seat, n_in, seats mask, decision key)``."""
    return (
        st[b, S_PHASE], st[b, S_TOP], st[b, S_ACTIVE], st[b, S_SEAT], st[b, S_N_IN], st[b, S_MASK], keys[b, K_DHK]
    )  # fmt: skip


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
