"""A match's events as tuples, read from the rows the trace form of the compiled turn loop writes.

The kernel (:func:`nines_sim.engine.turn_loop._compile_slots` with ``trace``) appends one int64 row per event to each
slot's buffer; :func:`decode` turns the rows into the tuples that :func:`nines_sim.play.replay.describe` prints
and ``nines play`` shows:

``("turn", t)``                          a turn begins; ``t`` counts the hand's turns from 0 (T8's counter)
``("deal", seq, dealer, hands, starter)`` a hand dealt (D4-D7): ``hands`` one sorted tuple of faces per seat
                                         (empty for a seat left out of a tie-break hand, S4)
``("declare", dealer, suit)``            the dealer's suit at a 9 starter (D6)
``("play", seat, face, suit)``           a card played (T1, T2); ``suit`` declared with a 9 (T3), else -1
``("pair", seat, suit)``                 two 9s played as one move, and the suit declared (V4)
``("draw", seat, face)``                 a card drawn (T4, V2)
``("penalty_draw", seat, face)``         a card an ace makes the next seat draw (V3)
``("pass", seat)``                       nothing to draw (T6)
``("skip", seat)``                       the seat skipped (V3, V4)
``("reshuffle", cards)``                 the discard pile shuffled into a new stock (T5)
``("end", outcome, penalties)``          the hand over: the seat that went out, ``BLOCKED`` or ``CAPPED``
``("match_end", totals, shares)``        the match over (S2-S4): final totals and win shares
``("choice", seat, play, tied, nines, nine_suits)`` (with ``choices`` only) the sets the heavy built-in's
                                         decision (``expert``'s) picked uniformly from, before its move: a play
                                         (``play`` 1) picks among the tied best naturals ``tied`` (a set of faces,
                                         bit ``face``), then plays a 9 of ``nines`` instead if the natural's suit is
                                         in ``nine_suits`` (bit ``suit``); a declaration (0), among the suits of
                                         ``tied`` (the luck walk's)
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from nines_sim.engine import turn_loop as K
from nines_sim.engine.loop_constants import EV_CHOICE, EV_DECLARE
from nines_sim.game.cards import hand_faces

_SIMPLE = {
    EV_DECLARE: ("declare", 2),
    K.EV_PAIR: ("pair", 2),
    K.EV_DRAW: ("draw", 2),
    K.EV_PENALTY_DRAW: ("penalty_draw", 2),
    K.EV_PASS: ("pass", 1),
    K.EV_SKIP: ("skip", 1),
    K.EV_RESHUFFLE: ("reshuffle", 1),
    K.EV_TURN: ("turn", 1),
}


def decode(rows: np.ndarray, players: int, decks: int, choices: bool = False) -> Iterator[tuple[int, tuple]]:
    """The events of one slot's rows, each with the match it belongs to.

    Parameters
    ----------
    rows : numpy.ndarray
        int64, shape (n, ``kernel.EV_WIDTH``): one slot's event rows in the order written.
    players, decks : int
        The table's seats and the rules' decks.
    choices : bool
        Yield the ``choice`` events too (the luck walk reads them; a replay shows no such event).

    Yields
    ------
    tuple
        ``(match, event)``: the match index (-1 before the first deal the rows hold) and the event tuple
        (see the module's text).
    """
    match = -1
    for r in rows.tolist():
        kind = r[0]
        if kind in _SIMPLE:
            name, n = _SIMPLE[kind]
            yield match, (name, *r[1 : 1 + n])
        elif kind == K.EV_PLAY:
            yield match, ("play", r[1], r[2], r[3])
        elif kind == K.EV_DEAL:
            match = r[4]
            words = np.array(r[6 : 6 + 2 * players], dtype=np.int64).astype(np.uint64).reshape(players, 2)
            hands = tuple(tuple(hand_faces(words[p, :decks])) for p in range(players))
            yield match, ("deal", r[1], r[2], hands, r[3])
        elif kind == K.EV_END:
            yield match, ("end", r[1], tuple(r[6 : 6 + players]))
        elif kind == EV_CHOICE:
            if choices:
                yield match, ("choice", *r[1:6])
        elif kind == K.EV_MATCH_END:
            k = bin(r[1]).count("1")
            shares = tuple(1.0 / k if (r[1] >> p) & 1 else 0.0 for p in range(players))
            yield match, ("match_end", tuple(r[6 : 6 + players]), shares)
        else:  # pragma: no cover - the kernel writes no other kind
            raise ValueError(f"unknown event kind {kind}")


def without_open_turn(events: list[tuple]) -> list[tuple]:
    """``events`` without a last ``("turn", t)`` marker that nothing of its turn follows yet.

    A match stopped at the first decision of a turn (a person's seat waiting, a strategy failing) has begun
    the turn but shows nothing of it: a replay prints a turn from its first event.
    """
    return events[:-1] if events and events[-1][0] == "turn" else events
