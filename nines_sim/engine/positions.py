"""Play positions forward on the compiled turn loop (:func:`nines_sim.engine.turn_loop.play_slots`).

The kernel plays from any state its slots hold, so a batch of positions is
loaded into slots and run with no new matches to start.  To stop at the end of
the hand, the slots run under the same rules with a match of one fixed hand
(the hand is played exactly as under the real rules; only what follows it
differs).  A forced first move enters at the kernel's apply phase, as a Python
seat's answer would.  A position taken from a run plays on as the run did
(``tests/test_position.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from nines_sim.engine import seats
from nines_sim.engine import turn_loop as K
from nines_sim.engine.entry import call_form
from nines_sim.game.cards import N_FACES
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table, next_seat_table
from nines_sim.search.position import PositionBatch
from nines_sim.strategy.base import Strategy

RECORDS = 1 << 14


def compiled_ids(lineup: Sequence[Strategy]) -> np.ndarray | None:
    """Kernel ids of the lineup's seats, or None where a seat is a Python seat (decides outside the loop)."""
    from nines_sim.engine.seats import seat_ids

    ids = seat_ids(lineup)
    if (ids == K.SID_PYTHON).any():
        return None
    return ids


@lru_cache(maxsize=64)
def _tables(rules: Rules, to: str) -> tuple:
    """What every call under the same rules shares: rules as numbers, move tables, scratch, seat callbacks.

    A search plays thousands of small batches; building these each time cost as much as a rollout.
    The scratch arrays are only work space, so one process may reuse them call after call.
    """
    from nines_sim.strategy.per_game_compiled import compiled_function

    rp = K.rules_params(rules)
    if to == "hand":
        rp[K.R_FIXED] = 1
    fs = tuple(compiled_function(None) for _ in range(K.MAX_SEATS))
    return rp, legal_table(rules), next_seat_table(rules.players), K.scratch(rules), fs


def play_out_kernel(
    batch: PositionBatch,
    sids: np.ndarray,
    to: str,
    force: np.ndarray | None,
    lineup: Sequence[Strategy],
    consume: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`nines_sim.search.position.play_out` on the kernel, for lineups of compiled built-ins (``sids``).

    ``consume=True`` lets the kernel play in the batch's own arrays (they are changed), sparing a copy.
    """
    from nines_sim.engine.batch import seat_params

    rules = batch.rules
    B, P = batch.n, rules.players
    rp, legal_tab, next_tab, work, fs = _tables(rules, to)
    if (np.asarray(sids) == K.SID_USER).any():  # compiled user strategies: their own callbacks
        from nines_sim.strategy.per_game_compiled import compiled_function

        user = [s if sid == K.SID_USER else None for s, sid in zip(lineup, sids)]
        fs = tuple(compiled_function(s, rules) for s in user + [None] * (K.MAX_SEATS - len(user)))
    slots = slot_state(batch, to, force, consume)
    seat_sid = np.asarray(sids, dtype=np.int64)
    seat_xp = seat_params(lineup)
    # to the hand's end each slot records one hand and one match: room for all, no second call
    n_rec = max(B, 1) if to == "hand" else RECORDS
    hrec = np.zeros((n_rec, K.NH), dtype=np.int64)
    hpen = np.zeros((n_rec, P), dtype=np.int64)
    hcount = np.zeros(1, dtype=np.int64)
    mrec = np.zeros((n_rec, K.NM), dtype=np.int64)
    mtot = np.zeros((n_rec, P), dtype=np.int64)
    mshare = np.zeros((n_rec, P), dtype=np.float64)
    mcount = np.zeros(1, dtype=np.int64)
    pen = np.zeros((B, P), dtype=np.int64)
    scored = np.zeros(B, dtype=bool)
    share = np.zeros((B, P)) if to == "match" else None
    mkeys = np.zeros((0, 2), dtype=np.uint64)
    nxt = np.zeros(1, dtype=np.int64)
    form = K.slots_kernel(rp, seats.heavy_seat(seat_sid))
    while True:
        code = call_form(
            form, *slots, rp, legal_tab, next_tab, seat_sid, seat_xp, mkeys, 0, 0, nxt, 0, hrec, hpen, hcount, mrec,
            mtot, mshare, mcount, fs, work,
        )  # fmt: skip
        h = int(hcount[0])
        if h:
            m = hrec[:h, K.H_MATCH]
            # a slot's hands come in order: its first record is the hand being played
            first = np.unique(m, return_index=True)[1]
            m1 = m[first]
            new = ~scored[m1]
            pen[m1[new]] = hpen[:h][first[new]]
            scored[m1[new]] = True
            hcount[0] = 0
        mc = int(mcount[0])
        if mc:
            if share is not None:
                share[mrec[:mc, K.M_MATCH]] = mshare[:mc]
            mcount[0] = 0
        if code == K.DONE:
            break
        if code == K.ILLEGAL:
            from nines_sim.engine.broker import IllegalMoveError

            seat = int(slots.st[np.flatnonzero(slots.st[:, K.S_WAITING] == 2)[0], K.S_WAIT_SEAT])
            raise IllegalMoveError(f"strategy {lineup[seat].name!r} returned an illegal answer in a play-out")
        if code != K.BUFFER_FULL:  # pragma: no cover - no other stop
            raise RuntimeError(f"the kernel stopped with code {code}")
    return pen, share


def slot_state(batch: PositionBatch, to: str, force: np.ndarray | None, consume: bool = False) -> K.SlotState:
    """The kernel's per-slot arrays (:data:`nines_sim.engine.slots.FIELDS`) holding the positions of ``batch``, one slot
    each (match index = slot): what :func:`play_out_kernel` plays and :func:`play_out_engine` loads.

    ``to="hand"``: the hand is played as a match of one regular hand.  ``force``: int64 (B,), a play (-1 none)
    the seat to move makes first, entered at the apply phase as a Python seat's answer would be.

    ``consume=True`` lets the kernel play in the batch's own arrays (they are changed), sparing a copy.

    Returns
    -------
    nines_sim.engine.slots.SlotState
        The slots' arrays, in the order :func:`nines_sim.engine.turn_loop.play_slots` takes them.
    """
    a = batch.arrays
    B, D = batch.n, batch.rules.decks
    cp = (lambda x: x) if consume else np.copy
    st = np.zeros((B, K.NST), dtype=np.int64)
    rows = np.arange(B, dtype=np.int64)
    for name, col in (
        ("hand_seq", K.S_HAND_SEQ), ("hands_played", K.S_HANDS), ("tb_hands", K.S_TB_HANDS),
        ("first_dealer", K.S_FIRST), ("in_tb", K.S_IN_TB), ("seats_mask", K.S_MASK), ("n_in", K.S_N_IN),
        ("stock_pos", K.S_POS), ("stock_end", K.S_END), ("top", K.S_TOP), ("active", K.S_ACTIVE),
        ("seat", K.S_SEAT), ("dealer", K.S_DEALER), ("dirbit", K.S_DIR), ("turn", K.S_TURN),
        ("streak", K.S_STREAK), ("drawn", K.S_DRAWN), ("reshuffles", K.S_RESH), ("nine_starter", K.S_NINE_START),
    ):  # fmt: skip
        st[:, col] = a[name]  # type: ignore[index]
    st[:, K.S_MATCH] = rows
    st[:, K.S_DRAW_LOG :] = a["draw_log"]  # type: ignore[index]
    if to == "hand":
        st[:, K.S_HANDS] = 0
        st[:, K.S_IN_TB] = 0
    st[:, K.S_PHASE] = K.PH_TURN
    if force is not None:
        f = force >= 0
        st[f, K.S_PHASE] = K.PH_APPLY
        st[f, K.S_MOVE] = force[f]
    keys = np.zeros((B, K.NKEY), dtype=np.uint64)
    keys[:, K.K_CMK] = a["mkey"]
    keys[:, K.K_DMK] = a["dmkey"]
    keys[:, K.K_CHK] = a["hkey"]
    keys[:, K.K_DHK] = a["dkey"]
    slots = K.SlotState(
        st=st, keys=keys, hands=np.stack(a["hands"]), under=np.stack(a["under"]),  # type: ignore[arg-type]
        **{f: np.ascontiguousarray(cp(a[f])) for f in ("ncards", "totals", "drew_on", "stock", "played")},
    )  # fmt: skip
    assert slots.stock.shape[1] == N_FACES * D
    return slots


def play_out_engine(
    batch: PositionBatch, lineup: Sequence[Strategy], to: str, force: np.ndarray | None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`nines_sim.search.position.play_out` on the compiled engine, for any lineup (Python seats decide through
    the broker, a batch at a time); ``force``: a first play, as in :func:`slot_state`."""
    from nines_sim.engine.batch import CompiledEngine

    B, P = batch.n, batch.rules.players
    eng = CompiledEngine(batch.rules, lineup, seed, 0, B, batch_size=B)
    if not eng._python:  # a table of compiled seats keeps one slot: play_out_kernel plays it
        raise ValueError("play_out_engine is for lineups with a Python seat")
    eng._next[0] = B  # every slot holds its position already: no match is started
    if to == "hand":
        eng._rp[K.R_FIXED] = 1
    for into, loaded in zip(eng.slots, slot_state(batch, to, force), strict=True):
        into[:] = loaded
    while eng.B:
        eng.advance()
    res = eng.results()
    hr = res.hand_records
    pen = np.zeros((B, P), dtype=np.int64)
    first = np.unique(hr.match, return_index=True)[1]  # a slot's first hand record is the hand being played
    pen[hr.match[first]] = hr.penalty[first]
    share = None
    if to == "match":
        share = np.zeros((B, P))
        share[res.match] = res.win_share
    return pen, share
