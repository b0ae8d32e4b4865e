"""Play positions forward on the compiled turn loop (:func:`nines_sim.engine.turn_loop.play_slots`).

The kernel plays from any state its slots hold, so a batch of positions is
loaded into slots and run with no new matches to start.  To stop at the end of
the hand, the slots run under the same rules with a match of one fixed hand
(the hand is played exactly as under the real rules; only what follows it
differs).  A position taken from a run plays on as the run did
(``tests/test_position.py``).

This is the one way a search steps positions: a first move (:class:`~nines_sim.engine.moves.Moves`: a
card, a suit, the drawn card played or kept) enters the loop as a Python seat's answer would, at the phase
of the decision the position stands at, and :class:`PositionSlots` plays on, stopping at the decisions
of seats played from Python (a tree search answers them) or to the hand's end (``lookahead``'s play-outs,
:func:`play_out`).  ``tests/test_position_steps.py`` checks it event by event against the reference.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from nines_sim.engine import seats
from nines_sim.engine import turn_loop as K
from nines_sim.engine.entry import call_form
from nines_sim.engine.moves import Moves
from nines_sim.engine.position import Position, PositionBatch, PositionError
from nines_sim.engine.slot_records import keep_records
from nines_sim.game.cards import N_FACES
from nines_sim.game.codes import PAIR_OF_NINES, DecisionKind
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table, next_seat_table
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
def _tables(rules: Rules, to: str, log: bool = False) -> tuple:
    """What every call under the same rules shares: rules as numbers, move tables, scratch, seat callbacks.

    A search plays thousands of small batches; building these each time cost as much as a rollout.
    The scratch arrays are only work space, so one process may reuse them call after call.
    """
    from nines_sim.strategy.per_game_compiled import compiled_function

    rp = K.rules_params(rules)
    if to == "hand":
        rp[K.R_FIXED] = 1
    rp[K.R_LOG] = log
    fs = tuple(compiled_function(None) for _ in range(K.MAX_SEATS))
    return rp, legal_table(rules), next_seat_table(rules.players), K.scratch(rules), fs


class PositionSlots:
    """A batch of positions loaded into the compiled turn loop's slots (one slot each, match index = slot) and
    played forward: the one way positions are stepped, by a play-out and by a tree search alike.

    Parameters
    ----------
    batch : PositionBatch
    to : {"hand", "match"}
        Where the slots stop (the hand: they play a match of one regular hand).
    lineup : sequence of Strategy
        Compiled seats (built-ins, compiled user strategies): they play once a slot is released
        (:meth:`release`).
    moves : Moves, optional
        The first move of each position (:func:`slot_state`); applied here, the slots then stand at the next
        decision.
    consume : bool
        The kernel may play in the batch's own arrays (they are changed), sparing a copy.
    log : bool
        Keep the draw log (:mod:`nines_sim.engine.draw_log`), as an engine with a Python seat does.
    release : bool
        After ``moves``, hand the decisions the slots stand at to the lineup (:meth:`release`); False: they
        wait for :meth:`answer` (a tree search goes on deciding).
    trace : bool
        Play the trace form of the loop and keep each slot's events in :attr:`events`
        (:mod:`nines_sim.engine.events`; the tests compare them with the reference's).
    stop : numpy.ndarray, optional
        int64, (B,): per slot, the turn of the hand (T8's counter) before which its hand stops, unplayed from
        there (0: none; ``to="hand"`` only, :func:`slot_state`).

    Raises
    ------
    IllegalMoveError
        If a compiled user strategy answers outside the rules.
    """

    def __init__(
        self,
        batch: PositionBatch,
        to: str,
        lineup: Sequence[Strategy],
        moves: Moves | None = None,
        consume: bool = False,
        log: bool = False,
        release: bool = True,
        trace: bool = False,
        stop: np.ndarray | None = None,
    ) -> None:
        from nines_sim.engine.batch import seat_params
        from nines_sim.engine.seats import seat_ids

        rules = batch.rules
        B, P = batch.n, rules.players
        self.lineup = lineup
        self.rp, self.legal_tab, self.next_tab, self.work, self.fs = _tables(rules, to, log)
        self.sid = np.asarray(seat_ids(lineup), dtype=np.int64)
        if (self.sid == K.SID_USER).any():  # compiled user strategies: their own callbacks
            from nines_sim.strategy.per_game_compiled import compiled_function

            user = [s if sid == K.SID_USER else None for s, sid in zip(lineup, self.sid)]
            self.fs = tuple(compiled_function(s, rules) for s in user + [None] * (K.MAX_SEATS - len(user)))
        self.xp = seat_params(lineup)
        self.form = K.slots_kernel(self.rp, seats.heavy_seat(self.sid))
        #: Per slot, the events of its game so far (``trace`` only).
        self.events: list[list[tuple]] | None = None
        if trace:
            from nines_sim.engine.batch import EVENT_ROWS

            self.form = K.play_slots_trace
            self._ev = np.zeros((B, EVENT_ROWS, K.EV_WIDTH), dtype=np.int64)
            self._nev = np.zeros(B, dtype=np.int64)
            self.work = (*self.work, self._ev, self._nev, np.zeros(3, dtype=np.int64))
            self.events = [[] for _ in range(B)]
        self.slots = slot_state(batch, to, moves, consume, stop)
        self._cap = rules.turn_cap
        # to the hand's end each slot records one hand and one match: room for all, no second call
        n_rec = max(B, 1) if to == "hand" else RECORDS
        self.hrec = np.zeros((n_rec, K.NH), dtype=np.int64)
        self.hpen = np.zeros((n_rec, P), dtype=np.int64)
        self.hcount = np.zeros(1, dtype=np.int64)
        self.mrec = np.zeros((n_rec, K.NM), dtype=np.int64)
        self.mtot = np.zeros((n_rec, P), dtype=np.int64)
        self.mshare = np.zeros((n_rec, P), dtype=np.float64)
        self.mcount = np.zeros(1, dtype=np.int64)
        #: int64, (B, P): the points each seat scores for the hand being played (S1, C2), once it has ended.
        self.penalties = np.zeros((B, P), dtype=np.int64)
        self.scored = np.zeros(B, dtype=bool)
        #: bool, (B,): the slots whose match has ended.
        self.finished = np.zeros(B, dtype=bool)
        #: float64, (B, P): each seat's share of the match win (S2, S3), for ``to="match"``.
        self.share = np.zeros((B, P)) if to == "match" else None
        self._nxt = np.zeros(1, dtype=np.int64)
        if moves is not None and moves.asks:
            self.run(every_seat=True)  # the answers entered: each slot stops at the next decision
            if moves.suit is not None:  # the 9 is down: the seat declares the suit given (T3)
                wait = self.waiting()
                wait = wait[moves.suit[wait] >= 0]
                self.answer(wait, moves.suit[wait])
                self.run(every_seat=True)
            if release:
                self.release()

    @property
    def st(self) -> np.ndarray:
        """int64, (B, NST): the slots' named scalars (:data:`nines_sim.engine.slots.STATE`)."""
        return self.slots.st

    def run(self, every_seat: bool = False) -> None:
        """Play every slot that does not wait until its game ends or it waits on a seat played from Python
        (``every_seat``: every seat is, so each slot stops at its next decision)."""
        sids = _EVERY_SEAT if every_seat else self.sid
        while True:
            code = call_form(
                self.form, *self.slots, self.rp, self.legal_tab, self.next_tab, sids, self.xp, _NO_KEYS, 0, 0,
                self._nxt, 0, self.hrec, self.hpen, self.hcount, self.mrec, self.mtot, self.mshare, self.mcount,
                self.fs, self.work,
            )  # fmt: skip
            self._drain()
            if code == K.DONE:
                return
            if code == K.ILLEGAL:
                from nines_sim.engine.broker import IllegalMoveError

                seat = int(self.st[np.flatnonzero(self.st[:, K.S_WAITING] == 2)[0], K.S_WAIT_SEAT])
                raise IllegalMoveError(f"strategy {self.lineup[seat].name!r} returned an illegal answer in a play-out")
            if code != K.BUFFER_FULL:  # pragma: no cover - no other stop
                raise RuntimeError(f"the kernel stopped with code {code}")

    def _drain(self) -> None:
        """Keep each slot's first hand record (the hand being played) and its match's win shares (and events)."""
        if self.events is not None:
            from nines_sim.engine.events import decode

            P, D = self.slots.ncards.shape[1], self.slots.hands.shape[0]
            for b in np.flatnonzero(self._nev).tolist():
                self.events[b].extend(ev for _, ev in decode(self._ev[b, : self._nev[b]], P, D))
                self._nev[b] = 0
        h, mc = int(self.hcount[0]), int(self.mcount[0])
        if h or mc:
            keep_records(self.hrec, self.hpen, h, self.penalties, self.scored, self.mrec, self.mshare, mc,
                         self.finished, _NO_SHARE if self.share is None else self.share)  # fmt: skip
            self.hcount[0] = self.mcount[0] = 0

    def waiting(self) -> np.ndarray:
        """int64: the slots waiting on a decision (:meth:`decision` says which)."""
        return np.flatnonzero(self.st[:, K.S_WAITING] == 1)

    def decision(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The decisions slots ``idx`` wait on: kind (``DecisionKind``'s numbers), seat, legal set (a play's
        faces, the drawn card's bit) and the seat's cards in hand (0 after a 9 that went out), int64 each."""
        st = self.st
        seats = st[idx, K.S_WAIT_SEAT]
        legal = self.slots.keys[idx, K.K_LEGAL].astype(np.int64)
        return st[idx, K.S_WAIT_KIND], seats, legal, self.slots.ncards[idx, seats]

    def answer(self, idx: np.ndarray, answers: np.ndarray | list[int]) -> None:
        """Answer the decisions slots ``idx`` wait on (legal answers only: the loop applies them unchecked)."""
        st = self.st
        st[idx, K.S_ANSWER] = answers
        st[idx, K.S_HAVE_ANS] = 1
        st[idx, K.S_WAITING] = 0

    def stop_after(self, turns: int) -> None:
        """Stop each slot's hand ``turns`` turns after the one in progress, unscored (``to="hand"`` only; a stop
        at or past the rules' turn cap is none): :attr:`scored` then tells the hands that ended from those that
        stopped, and :attr:`slots` holds the stopped positions (:func:`play_out_leaves`)."""
        if self.share is not None:
            raise PositionError("a play-out stops at a turn only to the hand's end (to='hand')")
        stop = self.st[:, K.S_TURN] + 1 + turns
        self.st[:, K.S_STOP] = np.where(stop < self._cap, stop, 0)

    def release(self) -> None:
        """Let the lineup's compiled seats take the decisions the slots wait on, and every one after."""
        wait = self.st[:, K.S_WAITING] == 1
        self.st[wait, K.S_WAITING] = 0
        self.st[wait, K.S_HAVE_ANS] = 0


#: Every seat played from Python: a slot stops at each decision (:meth:`PositionSlots.run`).
_EVERY_SEAT = np.full(K.MAX_SEATS, K.SID_PYTHON, dtype=np.int64)
_NO_KEYS = np.zeros((0, 2), dtype=np.uint64)
#: No win shares kept (``to="hand"``): :func:`~nines_sim.engine.slot_records.keep_records` writes none.
_NO_SHARE = np.zeros((0, 0))


def play_out_kernel(
    batch: PositionBatch,
    to: str,
    moves: Moves | None,
    lineup: Sequence[Strategy],
    consume: bool = False,
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`play_out` on the kernel, for lineups of compiled seats.

    ``consume=True`` lets the kernel play in the batch's own arrays (those in C order are changed), sparing a copy.
    """
    slots = PositionSlots(batch, to, lineup, moves, consume)
    slots.run()
    return slots.penalties, slots.share


def play_out_leaves(
    batch: PositionBatch,
    lineup: Sequence[Strategy],
    stop: np.ndarray,
    moves: Moves | None = None,
    consume: bool = False,
) -> tuple[np.ndarray, np.ndarray, K.SlotState]:
    """Play positions to the hand's end or, per position, until a turn of the hand: a search's rollouts cut
    short, their leaves left for a value to score (``lookahead:leaf=learned``).

    Parameters
    ----------
    batch : PositionBatch
    lineup : sequence of Strategy
        Compiled seats only (built-ins, compiled user strategies such as ``learned``).
    stop : numpy.ndarray
        int64, (B,): the turn of the hand (T8's counter, ``turn`` of a position) before which each position's
        hand stops; 0, or at or past the rules' turn cap: it plays to its end (as :func:`play_out` to the hand).
    moves : Moves, optional
        The first move of each position, as :func:`play_out`'s; the first move is always played.
    consume : bool
        The kernel may play in the batch's own arrays (they are changed), sparing a copy.

    Returns
    -------
    penalties : numpy.ndarray
        int64, (B, P): the hand's points (S1, C2) where it ended; 0 where it stopped (unscored: a caller values
        those rows itself).
    stopped : numpy.ndarray
        bool, (B,): the positions whose hand was stopped before its end.
    leaves : nines_sim.engine.slots.SlotState
        The slots' state as they finished: where stopped, the position before turn ``stop`` (every power of
        the turn before applied), the seat to move in ``S_SEAT``.

    Raises
    ------
    PositionError
        For a lineup with a seat played from Python.
    """
    if compiled_ids(lineup) is None:
        raise PositionError("a play-out stopped at a turn plays compiled seats only (no Python strategy)")
    stop = np.where(stop < batch.rules.turn_cap, np.asarray(stop, dtype=np.int64), 0)
    slots = PositionSlots(batch, "hand", lineup, moves, consume, stop=stop)
    slots.run()
    return slots.penalties, ~slots.scored, slots.slots


def slot_state(
    batch: PositionBatch, to: str, moves: Moves | None, consume: bool = False, stop: np.ndarray | None = None
) -> K.SlotState:
    """The kernel's per-slot arrays (:data:`nines_sim.engine.slots.FIELDS`) holding the positions of ``batch``, one slot
    each (match index = slot): what :class:`PositionSlots` plays and :func:`play_out_engine` loads.

    ``to="hand"``: the hand is played as a match of one regular hand.  ``moves``: the first move of each
    position, entered as a Python seat's answer is: a card played at the apply phase, any other answer at
    its decision's phase.

    ``consume=True`` lets the kernel play in the batch's own arrays (those in C order are changed), sparing a copy.

    ``stop``: int64, (B,), per slot the turn of the hand before which the loop leaves the hand unplayed and
    unscored (``S_OUTCOME`` ``CAPPED``, no hand record: a search values these leaves itself,
    :func:`play_out_leaves`); 0 or none: the hand plays to its end.  Only with ``to="hand"``: a slot would
    stop every later hand at that turn too.

    Returns
    -------
    nines_sim.engine.slots.SlotState
        The slots' arrays, in the order :func:`nines_sim.engine.turn_loop.play_slots` takes them.
    """
    B, D = batch.n, batch.rules.decks
    # C order, whatever the batch's (a batch taken by rows holds views in other orders): the loop is compiled for
    # C-ordered arrays, and any other order would have numba compile the whole loop again for it
    slots = K.SlotState(*(np.ascontiguousarray(x) if consume else np.copy(x, order="C") for x in batch.state))
    st = slots.st
    st[:, K.S_MATCH] = np.arange(B, dtype=np.int64)
    if to == "hand":
        st[:, K.S_HANDS] = 0
        st[:, K.S_IN_TB] = 0
    st[:, K.S_PHASE] = K.PH_TURN
    if stop is not None and to != "hand":
        raise PositionError("a play-out stops at a turn only to the hand's end (to='hand')")
    st[:, K.S_STOP] = 0 if stop is None else stop  # a batch played before may hold a stop of its own
    assert slots.stock.shape[1] == N_FACES * D
    if moves is not None:
        _enter(slots, moves, batch.rules.players)
    return slots


#: The phase at which each decision's answer enters the loop.
_PHASE = {DecisionKind.PLAY_DRAWN: K.PH_PLAY_DRAWN, DecisionKind.DECLARE: K.PH_DECLARE,
          DecisionKind.DEALER_DECLARE: K.PH_DEALER_DECL}  # fmt: skip


def _enter(slots: K.SlotState, moves: Moves, P: int) -> None:
    """Enter each slot's first move where the loop takes a Python seat's answer."""
    st = slots.st
    mv = moves.moves
    if moves.kind == DecisionKind.PLAY:  # a card played: straight to the apply phase, as decide returns it
        f = mv >= 0
        st[f, K.S_PHASE] = K.PH_APPLY
        st[f, K.S_MOVE] = mv[f]
        return
    st[:, K.S_PHASE] = _PHASE[moves.kind]
    st[:, K.S_ANSWER] = mv
    st[:, K.S_HAVE_ANS] = 1
    if moves.kind == DecisionKind.PLAY_DRAWN:  # the turn's draw came to a playable card (T4): no pass
        assert moves.card is not None
        st[:, K.S_CARD] = moves.card
        slots.keys[:, K.K_LEGAL] = np.uint64(1) << moves.card.astype(np.uint64)
    elif moves.kind == DecisionKind.DECLARE:  # the turn ends on the 9 (or the pair, V4) played
        pair = np.zeros(st.shape[0], dtype=bool) if moves.pair is None else moves.pair
        st[:, K.S_MOVE] = np.where(pair, PAIR_OF_NINES, st[:, K.S_TOP])
    else:  # the dealer declares before the first turn, of the seat after the dealer's (D6)
        st[:, K.S_SEAT] = next_seat_table(P)[st[:, K.S_MASK] * 2 * P + st[:, K.S_DEALER]]


def play_out_engine(
    batch: PositionBatch, lineup: Sequence[Strategy], to: str, moves: Moves | None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`play_out` on the compiled engine, for any lineup (Python seats decide through
    the broker, a batch at a time); ``moves``: a card played first (:class:`Moves`, ``PLAY`` only)."""
    from nines_sim.engine.batch import CompiledEngine

    B, P = batch.n, batch.rules.players
    eng = CompiledEngine(batch.rules, lineup, seed, 0, B, batch_size=B)
    if not eng._python:  # a table of compiled seats keeps one slot: play_out_kernel plays it
        raise ValueError("play_out_engine is for lineups with a Python seat")
    eng._next[0] = B  # every slot holds its position already: no match is started
    if to == "hand":
        eng._rp[K.R_FIXED] = 1
    # any other first move is stepped as a play-out steps it, keeping the draw log as this engine does
    pre = PositionSlots(batch, to, lineup, moves, log=True) if moves is not None and moves.asks else None
    for into, loaded in zip(eng.slots, slot_state(batch, to, moves) if pre is None else pre.slots, strict=True):
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
    if pre is not None:  # hands (and matches) that ended on the first move
        pen[pre.scored] = pre.penalties[pre.scored]
        if share is not None and pre.share is not None:
            share[pre.finished] = pre.share[pre.finished]
    return pen, share


# ------------------------------------------------------------------- playing
def play_out(
    positions: Sequence[Position] | PositionBatch,
    lineup: Sequence[Strategy],
    to: str = "hand",
    seed: int = 0,
    force: np.ndarray | None = None,
    consume: bool = False,
    moves: Moves | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Play positions forward on the compiled turn loop, to the end of the hand or of the match.

    Lineups of compiled seats (built-ins, compiled user strategies) play on the loop alone
    (:func:`play_out_kernel`); a lineup with a Python seat plays on the compiled engine, whose broker
    asks that seat (:func:`play_out_engine`).

    Parameters
    ----------
    positions : sequence of Position, or PositionBatch
    lineup : sequence of Strategy
        One per seat.
    to : {"hand", "match"}
        Where to stop.
    seed : int
        The seed named in error messages (the random streams are the positions' keys).
    force : numpy.ndarray, optional
        int64, (B,): a card (or ``PAIR_OF_NINES``) the seat to move plays first, instead of asking
        its strategy (-1: none); it must be legal there (T1, V4-V6).
    consume : bool
        The caller will not read the batch again: the compiled loop may play in its
        arrays (a search's throw-away batches; spares a copy).
    moves : Moves, optional
        The first move of each position, whatever the decision it stands at (a card, a suit, the drawn
        card played or kept; :class:`nines_sim.engine.positions.Moves`), applied by the engine as a
        Python seat's answer; instead of ``force``.

    Returns
    -------
    penalties : numpy.ndarray
        int64, (B, P): the points each seat scores for the hand being played (S1, C2).
    win_share : numpy.ndarray or None
        float64, (B, P): each seat's share of the match win (S2, S3), for ``to="match"``.

    Raises
    ------
    PositionError
        For an unknown ``to``.
    """
    if to not in ("hand", "match"):
        raise PositionError(f"play_out to {to!r}: choose 'hand' or 'match'")
    batch = positions if isinstance(positions, PositionBatch) else PositionBatch.from_positions(positions)
    if moves is None and force is not None:
        moves = Moves(DecisionKind.PLAY, np.asarray(force, dtype=np.int64))
    if compiled_ids(lineup) is not None:
        return play_out_kernel(batch, to, moves, lineup, consume)
    return play_out_engine(batch, lineup, to, moves, seed)
