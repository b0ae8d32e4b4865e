"""The trace form of the compiled turn loop: the event rows it writes.

The trace form (:func:`nines_sim.engine.turn_loop._compile_slots` with ``trace``) appends one int64 row per
event to each slot's buffer (the ``EV_*`` kinds of :mod:`nines_sim.engine.loop_constants`);
:mod:`nines_sim.engine.events` reads them back.  The other forms of the loop hold none of this code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from nines_sim.engine.bits import I_NINES, shared_inline
from nines_sim.engine.code_cache import seal_module
from nines_sim.engine.deal import draw
from nines_sim.engine.loop_constants import (
    EV_CHOICE,
    EV_DEAL,
    EV_DECLARE,
    EV_PAIR,
    EV_PLAY,
    EV_RESHUFFLE,
    EV_TURN,
    FW_CHOICES,
    FW_NINE_SUITS,
    FW_NINES,
    FW_TIED,
    PH_APPLY,
    PH_TURN,
)
from nines_sim.engine.slots import S_DEALER, S_END, S_HAND_SEQ, S_MATCH, S_RESH, S_TOP
from nines_sim.game.codes import PAIR_OF_NINES as PAIR

#: The zero the trace form's loggers are passed for an unused column, as an int64 scalar; callers pass the event
#: kinds as ``np.int64(EV_*)`` too.  numba types a global int or a literal 0 as a constant and compiles a callee
#: once for each constant it is passed (``log_event`` nine times, ``log_seats``, ``traced_draw`` and
#: ``draw_card_trace`` two or three times each: 2 s of the trace form's compile); an int64 scalar is typed
#: int64, one signature for every call.  LLVM inlines the loggers and folds the constants in either way.
NIL = np.int64(0)


@shared_inline
def log_event(ev, evn, b, kind, x, y, z):
    """Append an event row ``(kind, x, y, z)`` to slot ``b``'s buffer (the trace form only)."""
    n = evn[b]
    ev[b, n, 0] = kind
    ev[b, n, 1] = x
    ev[b, n, 2] = y
    ev[b, n, 3] = z
    evn[b] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False)
def traced_draw(ev, evn, kind, st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw):
    """:func:`draw`, with its events: ``(EV_RESHUFFLE, cards in the new stock)`` before the card if the
    discard pile was shuffled (T5), then ``(kind, seat, face)`` if a card came (``EV_DRAW`` or
    ``EV_PENALTY_DRAW``)."""
    r0 = st[b, S_RESH]
    f = draw(st, keys, hands, ncards, under, stock, D, b, s, sv, sfull, sbuf, scw)
    if st[b, S_RESH] != r0:
        log_event(ev, evn, b, np.int64(EV_RESHUFFLE), st[b, S_END], NIL, NIL)
    if f >= 0:
        log_event(ev, evn, b, kind, s, f, NIL)
    return f


@njit(cache=True, error_model="numpy", _nrt=False)
def log_deal(ev, evn, b, st, hands, P, D):
    """``(EV_DEAL, hand sequence number, dealer, starter, match, then each seat's hand words 0 and 1)``."""
    n = evn[b]
    ev[b, n, 0] = EV_DEAL
    ev[b, n, 1] = st[b, S_HAND_SEQ] - 1
    ev[b, n, 2] = st[b, S_DEALER]
    ev[b, n, 3] = st[b, S_TOP]
    ev[b, n, 4] = st[b, S_MATCH]
    for p in range(P):
        ev[b, n, 6 + 2 * p] = np.int64(hands[0, b, p])
        ev[b, n, 7 + 2 * p] = np.int64(hands[1, b, p]) if D == 2 else 0
    evn[b] = n + 1


@njit(cache=True, error_model="numpy", _nrt=False)
def log_seats(ev, evn, b, kind, x, vals, P):
    """``(kind, x, 0, 0, 0, 0, then one number per seat)``: a hand's end (``EV_END``: the outcome, the hand
    penalties) or a match's (``EV_MATCH_END``: the winners' seat mask, the totals)."""
    n = evn[b]
    ev[b, n, 0] = kind
    ev[b, n, 1] = x
    for p in range(P):
        ev[b, n, 6 + p] = vals[p]
    evn[b] = n + 1


@shared_inline
def trace_turn(ev, evn, stop, st, b, turn):
    """The trace form at a turn's start: True to pause before it (``stop``: int64 (3,), the hand dealt
    ``stop[0]``-th and its turn ``stop[1]``, while ``stop[2]`` is 1; cleared, so the next call goes on), else
    log ``(EV_TURN, turn)``."""
    if stop[2] != 0 and st[b, S_HAND_SEQ] == stop[0] and turn == stop[1]:
        stop[2] = 0  # a position to look at (nines analyze)
        return True
    log_event(ev, evn, b, np.int64(EV_TURN), turn, NIL, NIL)
    return False


@shared_inline
def log_decision(ev, evn, b, st, seat_sid, heavy, seat, ph, active, fw):
    """After a compiled decision (its next phase ``ph``): if the heavy built-in (kernel id ``heavy``) made it with a
    random pick, ``(EV_CHOICE, seat, 1 for a play or 0 for a declaration, tied, nines, nine suits)``, the sets it
    picked uniformly from (``fw[FW_CHOICES:]``, :mod:`~nines_sim.engine.loop_constants`; a tied set of -1: a drawn
    card, no pick), before the move's own row, for the luck walk; then, after the dealer's declaration (D6, ``ph``
    ``PH_TURN``), ``(EV_DECLARE, dealer, suit)``."""
    who = st[b, S_DEALER] if ph == PH_TURN else seat
    if seat_sid[who] == heavy and fw[FW_CHOICES + FW_TIED] >= 0:
        play = ph == PH_APPLY
        n = evn[b]
        ev[b, n, 0] = EV_CHOICE
        ev[b, n, 1] = who
        ev[b, n, 2] = 1 if play else 0
        ev[b, n, 3] = np.int64(fw[FW_CHOICES + FW_TIED])
        ev[b, n, 4] = np.int64(fw[FW_CHOICES + FW_NINES]) if play else 0
        ev[b, n, 5] = np.int64(fw[FW_CHOICES + FW_NINE_SUITS]) if play else 0
        evn[b] = n + 1
    if ph == PH_TURN:
        log_event(ev, evn, b, np.int64(EV_DECLARE), who, active, NIL)


@shared_inline
def log_move(ev, evn, b, seat, mv, active):
    """The trace form's move: ``(EV_PAIR, seat, suit)`` or ``(EV_PLAY, seat, face, suit declared or -1)``."""
    if mv == PAIR:
        log_event(ev, evn, b, np.int64(EV_PAIR), seat, active, NIL)
    else:
        log_event(ev, evn, b, np.int64(EV_PLAY), seat, mv, active if (I_NINES >> mv) & 1 else -1)


# numba's cache checks only this file's timestamp: key it by every file the code takes in
seal_module(globals())
