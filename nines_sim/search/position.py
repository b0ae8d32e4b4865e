"""Positions: a game stopped at a turn, taken out of the engine, built by hand, and played forward.

A :class:`Position` is one game at the start of a turn (before the seat to move
decides): the rules, every hand, the stock in order, the discard pile, the
active suit, who moves, the dealer, the direction, the seats dealt in, the
totals, the hand's public history and the random streams that the rest of the
match draws on.  :func:`play_out` plays a batch of positions forward with the
same compiled turn loop as every run (:mod:`nines_sim.engine.turn_loop`), to the
end of the hand or of the match.

A position taken from a live game (:func:`positions_from_engine`) keeps that
game's card and decision keys, so playing it forward under the same lineup
gives the same continuation as the run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.engine.slots import DRAW_LOG_COLUMNS, DRAW_LOG_DECL, DRAW_LOG_SEATS, DRAW_LOG_WORDS
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK, SUIT_NAMES, card_name, hand_faces, words_of
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import DecisionKind, Strategy

if TYPE_CHECKING:
    from nines_sim.engine.batch import CompiledEngine
    from nines_sim.engine.positions import Moves


class PositionError(ValueError):
    """A position that cannot occur; the message says what is wrong in one line."""


def _suit_name(suit: int) -> str:
    """A suit by its letter (C, D, H, S), or the number when it is none of them."""
    return SUIT_NAMES[suit] if 0 <= suit < len(SUIT_NAMES) else str(suit)


@dataclass(frozen=True)
class Position:
    """One game at the start of a turn.

    Attributes
    ----------
    rules : Rules
    hands : tuple of tuple of int
        Per seat, the faces held (0..51, a face twice with two decks); empty for a seat out of the hand.
    stock : tuple of int
        The stock, the next card drawn first (T4).
    pile : tuple of int
        The discard pile below the top card (order is irrelevant: a reshuffle sorts it, T5).
    top, active, seat, dealer : int
        Top face of the discard pile, active suit 0..3 (T1, T3), seat to move, dealer.
    direction : int
        +1 clockwise, -1 after a reverse (V3).
    in_hand : tuple of bool
        Seats dealt into this hand (all but in a tie-break hand, S4).
    totals : tuple of int
        Running totals in points (S1).
    played : int
        Public history: bitmask of faces played to the pile this hand, the starter included.
    drew_on : tuple of int
        Public history: per seat, bit ``s`` set when that seat drew while suit ``s`` was active (T1).
    turn, streak, drawn, reshuffles : int
        Turns taken this hand, turns since the last card played (T7), cards drawn, reshuffles (T5).
    nine_starter, in_tiebreak : bool
        Whether the starter was a 9 (D6); whether this hand is a tie-break hand (S4).
    hands_played, tb_hands, first_dealer : int
        Regular hands finished, tie-break hands finished, the match's first dealer.
    match : int
        Match index (names the game in results).
    mkey, hkey, dkey, dmkey : int
        Card match key, card hand key, decision hand key and decision match key
        (:mod:`nines_sim.game.rng`): the reshuffles, later deals and strategies' random
        numbers of the continuation.
    hand_seq : int
        Hands dealt so far in the match (the next deal's key counter).
    draw_log : tuple of int
        Public history: the draw log's words (:mod:`nines_sim.engine.draw_log`), ``DRAW_LOG_WORDS`` per seat
        for ``DRAW_LOG_SEATS`` seats; all 0 (the default): no log, as in a described position.
    """

    rules: Rules
    hands: tuple[tuple[int, ...], ...]
    stock: tuple[int, ...]
    pile: tuple[int, ...]
    top: int
    active: int
    seat: int
    dealer: int
    direction: int = 1
    in_hand: tuple[bool, ...] | None = None
    totals: tuple[int, ...] | None = None
    played: int = 0
    drew_on: tuple[int, ...] | None = None
    turn: int = 0
    streak: int = 0
    drawn: int = 0
    reshuffles: int = 0
    nine_starter: bool = False
    in_tiebreak: bool = False
    hands_played: int = 0
    tb_hands: int = 0
    first_dealer: int = 0
    match: int = 0
    mkey: int = 0
    hkey: int = 0
    dkey: int = 0
    dmkey: int = 0
    hand_seq: int = 1
    draw_log: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        P = self.rules.players
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("hands", tuple(tuple(int(f) for f in h) for h in self.hands))
        set_("stock", tuple(int(f) for f in self.stock))
        set_("pile", tuple(int(f) for f in self.pile))
        if self.in_hand is None:
            set_("in_hand", (True,) * P)
        if self.totals is None:
            set_("totals", (0,) * P)
        if self.drew_on is None:
            set_("drew_on", (0,) * P)
        set_("draw_log", (0,) * DRAW_LOG_COLUMNS if self.draw_log is None else tuple(int(w) for w in self.draw_log))
        if not self.played:
            set_("played", (1 << self.top) | sum(1 << f for f in self.pile) if 0 <= self.top < N_FACES else 0)
        self.validate()

    def validate(self) -> None:
        """Refuse a position that cannot occur.

        Raises
        ------
        PositionError
            One line: a card more often than the decks hold, a wrong number of
            cards, a hand size that disagrees with the seats dealt in, an illegal
            active suit, or a seat, dealer or direction out of range.
        """
        r = self.rules
        P, D = r.players, r.decks
        self._validate_draw_log()
        if len(self.hands) != P or len(self.in_hand) != P or len(self.totals) != P or len(self.drew_on) != P:
            raise PositionError(f"the rules seat {P} players but the position has {len(self.hands)} hands")
        cards = [f for h in self.hands for f in h] + list(self.stock) + list(self.pile) + [self.top]
        bad = [f for f in cards if not 0 <= f < N_FACES]
        if bad:
            raise PositionError(f"not a card: {bad[0]} (faces are 0..51)")
        counts = np.bincount(np.asarray(cards, dtype=np.int64), minlength=N_FACES)
        if counts.max() > D:
            f = int(np.argmax(counts))
            raise PositionError(f"card {card_name(f)} appears {counts[f]} times (the deck has {D} of each)")
        if len(cards) != N_FACES * D:
            missing = [card_name(f) for f in range(N_FACES) if counts[f] < D]
            raise PositionError(
                f"the position holds {len(cards)} cards, not {N_FACES * D}; missing: {' '.join(missing[:8])}"
                + (" ..." if len(missing) > 8 else "")
            )
        for s in range(P):
            if not self.in_hand[s] and self.hands[s]:
                raise PositionError(f"seat {s} is not in this hand but holds {len(self.hands[s])} cards")
            if self.in_hand[s] and not self.hands[s]:
                raise PositionError(f"seat {s} holds no cards: the hand is over (S1)")
        if sum(self.in_hand) < 2:
            raise PositionError("fewer than two seats are in the hand")
        if not (0 <= self.seat < P and self.in_hand[self.seat]):
            raise PositionError(f"seat to move {self.seat} is not a seat in this hand")
        if not 0 <= self.dealer < P:
            raise PositionError(f"dealer {self.dealer} is not a seat 0..{P - 1}")
        if self.direction not in (1, -1):
            raise PositionError(f"direction must be +1 or -1, not {self.direction}")
        if FACE_RANK[self.top] == NINE_RANK:
            if not 0 <= self.active <= 3:
                raise PositionError(f"active suit {self.active} is not a suit 0..3 (C, D, H, S; T3)")
        elif self.active != FACE_SUIT[self.top]:
            raise PositionError(
                f"active suit {_suit_name(self.active)} differs from the suit of the top card {card_name(self.top)} "
                f"though it is not a 9 (T1, T3)"
            )

    def _validate_draw_log(self) -> None:
        """Refuse a draw log of the wrong length or with words no engine writes (:mod:`nines_sim.engine.draw_log`)."""
        log = self.draw_log
        if len(log) != DRAW_LOG_COLUMNS:
            raise PositionError(
                f"draw_log holds {DRAW_LOG_COLUMNS} words ({DRAW_LOG_SEATS} seats x {DRAW_LOG_WORDS}, whatever the "
                f"table), not {len(log)}"
            )
        for i, w in enumerate(log):
            face_set = i % DRAW_LOG_WORDS != DRAW_LOG_DECL
            if not 0 <= w < (1 << 52 if face_set else 1 << 33) or (not face_set and (w & 0xFF) > 4):
                what = "a set of faces (0 .. 2**52-1)" if face_set else "a declaration word (suit + 1 <= 4, bit 32)"
                raise PositionError(f"draw_log word {i} is {w}, not {what}")

    @property
    def sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand."""
        return tuple(len(h) for h in self.hands)

    def with_(self, **changes: object) -> Position:
        """A copy with some fields changed (validated)."""
        return replace(self, **changes)


# ------------------------------------------------------------------ batch form
#: Per-game engine arrays that a batch of positions fills (besides hands, under and stock).
_SCALARS = ("match", "mkey", "hkey", "dkey", "dmkey", "hand_seq", "hands_played", "tb_hands", "first_dealer", "in_tb",
            "seats_mask", "n_in", "stock_pos", "stock_end", "top", "active", "seat", "dealer", "dirbit",
            "turn", "streak", "drawn", "reshuffles", "nine_starter", "played")  # fmt: skip
_ROWS = ("totals", "ncards", "drew_on")


@dataclass
class PositionBatch:
    """Many positions as engine arrays (the engine's state layout, see :mod:`nines_sim.engine.slots`).

    ``arrays`` holds every name of the engine's per-game state: ``hands`` and
    ``under`` as lists of ``D`` uint64 arrays, ``stock`` int8 (B, 52D), the rest
    (B,) or (B, P).  Build one with :meth:`from_positions` or
    :func:`positions_from_engine`; index it with :meth:`take`.
    """

    rules: Rules
    arrays: dict[str, object]

    @property
    def n(self) -> int:
        return int(self.arrays["top"].shape[0])  # type: ignore[union-attr]

    @classmethod
    def from_positions(cls, positions: Sequence[Position]) -> PositionBatch:
        """Stack validated positions (all under the same rules).

        Raises
        ------
        PositionError
            If the positions do not share one set of rules, or there are none.
        """
        if not positions:
            raise PositionError("no positions given")
        rules = positions[0].rules
        if any(p.rules != rules for p in positions):
            raise PositionError("positions under different rules cannot be played in one batch")
        P, D, S = rules.players, rules.decks, N_FACES * rules.decks
        B = len(positions)
        a: dict[str, object] = {}
        for name in _SCALARS:
            a[name] = np.zeros(B, dtype=np.uint64 if name in ("mkey", "hkey", "dkey", "dmkey", "played") else np.int64)
        a["in_tb"] = np.zeros(B, dtype=bool)
        a["nine_starter"] = np.zeros(B, dtype=bool)
        for name in _ROWS:
            a[name] = np.zeros((B, P), dtype=np.int64)
        a["stock"] = np.zeros((B, S), dtype=np.int8)
        a["draw_log"] = np.zeros((B, DRAW_LOG_COLUMNS), dtype=np.int64)
        a["hands"] = [np.zeros((B, P), dtype=np.uint64) for _ in range(D)]
        a["under"] = [np.zeros(B, dtype=np.uint64) for _ in range(D)]
        for b, p in enumerate(positions):
            for s in range(P):
                w = words_of(list(p.hands[s]), D) if p.hands[s] else np.zeros(D, dtype=np.uint64)
                for d in range(D):
                    a["hands"][d][b, s] = w[d]  # type: ignore[index]
            w = words_of(list(p.pile), D) if p.pile else np.zeros(D, dtype=np.uint64)
            for d in range(D):
                a["under"][d][b] = w[d]  # type: ignore[index]
            a["stock"][b, : len(p.stock)] = p.stock  # type: ignore[index]
            a["stock_end"][b] = len(p.stock)  # type: ignore[index]
            for name, val in (("match", p.match), ("mkey", p.mkey), ("hkey", p.hkey), ("dkey", p.dkey),
                              ("dmkey", p.dmkey), ("hand_seq", p.hand_seq), ("hands_played", p.hands_played),
                              ("tb_hands", p.tb_hands),
                              ("first_dealer", p.first_dealer), ("in_tb", p.in_tiebreak), ("top", p.top),
                              ("active", p.active), ("seat", p.seat), ("dealer", p.dealer),
                              ("dirbit", 0 if p.direction == 1 else 1), ("turn", p.turn), ("streak", p.streak),
                              ("drawn", p.drawn), ("reshuffles", p.reshuffles), ("nine_starter", p.nine_starter),
                              ("played", p.played)):  # fmt: skip
                a[name][b] = val  # type: ignore[index]
            a["seats_mask"][b] = sum(1 << s for s in range(P) if p.in_hand[s])  # type: ignore[index]
            a["n_in"][b] = sum(p.in_hand)  # type: ignore[index]
            a["totals"][b] = p.totals  # type: ignore[index]
            a["ncards"][b] = p.sizes  # type: ignore[index]
            a["drew_on"][b] = p.drew_on  # type: ignore[index]
            a["draw_log"][b] = p.draw_log  # type: ignore[index]
        return cls(rules, a)

    def take(self, rows: np.ndarray) -> PositionBatch:
        """The positions at ``rows`` (int64 indices, repeats allowed), as copies."""
        out: dict[str, object] = {}
        for k, v in self.arrays.items():
            out[k] = [w[rows] for w in v] if isinstance(v, list) else v[rows]  # type: ignore[index]
        return PositionBatch(self.rules, out)

    def position(self, b: int) -> Position:
        """Position ``b`` as a :class:`Position` (validated)."""
        a = self.arrays
        P = self.rules.players
        g = lambda name: a[name][b]  # type: ignore[index]  # noqa: E731
        hands = tuple(tuple(hand_faces(np.array([w[b, s] for w in a["hands"]]))) for s in range(P))  # type: ignore[union-attr]
        pile = tuple(hand_faces(np.array([w[b] for w in a["under"]])))  # type: ignore[union-attr]
        stock = tuple(int(f) for f in a["stock"][b, int(g("stock_pos")) : int(g("stock_end"))])  # type: ignore[index]
        mask = int(g("seats_mask"))
        return Position(
            rules=self.rules, hands=hands, stock=stock, pile=pile, top=int(g("top")), active=int(g("active")),
            seat=int(g("seat")), dealer=int(g("dealer")), direction=1 - 2 * int(g("dirbit")),
            in_hand=tuple(bool((mask >> s) & 1) for s in range(P)),
            totals=tuple(int(x) for x in a["totals"][b]), played=int(g("played")),  # type: ignore[index]
            drew_on=tuple(int(x) for x in a["drew_on"][b]), turn=int(g("turn")), streak=int(g("streak")),  # type: ignore[index]
            drawn=int(g("drawn")), reshuffles=int(g("reshuffles")), nine_starter=bool(g("nine_starter")),
            in_tiebreak=bool(g("in_tb")), hands_played=int(g("hands_played")), tb_hands=int(g("tb_hands")),
            first_dealer=int(g("first_dealer")), match=int(g("match")), mkey=int(g("mkey")), hkey=int(g("hkey")),
            dkey=int(g("dkey")), dmkey=int(g("dmkey")), hand_seq=int(g("hand_seq")),
            draw_log=tuple(int(w) for w in a["draw_log"][b]),  # type: ignore[index]
        )  # fmt: skip


def positions_from_engine(engine: CompiledEngine, idx: np.ndarray | None = None) -> PositionBatch:
    """The games of a running engine as positions (copies; the engine is not changed).

    Take them between turns: a traced :class:`~nines_sim.engine.batch.CompiledEngine` paused by
    :meth:`~nines_sim.engine.batch.CompiledEngine.stop_at`.

    Parameters
    ----------
    engine : CompiledEngine
    idx : numpy.ndarray, optional
        int64 slots to take (default all).
    """
    rows = np.arange(engine.B) if idx is None else np.asarray(idx, dtype=np.int64)
    a: dict[str, object] = {}
    for name in (*_SCALARS, *_ROWS, "stock"):
        if name != "dmkey":
            a[name] = getattr(engine, name)[rows].copy()
    for name in ("in_tb", "nine_starter"):  # the compiled engine keeps flags as int64 columns
        a[name] = a[name].astype(bool)  # type: ignore[union-attr]
    a["dmkey"] = engine.dmkey[rows].copy()
    a["draw_log"] = engine.draw_log[rows].copy()
    a["hands"] = [w[rows].copy() for w in engine.hands]
    a["under"] = [w[rows].copy() for w in engine.under]
    return PositionBatch(engine.rules, a)


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
    (:func:`nines_sim.engine.positions.play_out_kernel`); a lineup with a Python seat plays on the
    compiled engine, whose broker asks that seat (:func:`nines_sim.engine.positions.play_out_engine`).

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
        Python seat's answer; instead of ``force``.  Lineups of compiled seats only, unless a card.

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
    from nines_sim.engine.positions import Moves, compiled_ids, play_out_engine, play_out_kernel

    if moves is None and force is not None:
        moves = Moves(DecisionKind.PLAY, np.asarray(force, dtype=np.int64))
    if compiled_ids(lineup) is not None:
        return play_out_kernel(batch, to, moves, lineup, consume)
    return play_out_engine(batch, lineup, to, moves, seed)
