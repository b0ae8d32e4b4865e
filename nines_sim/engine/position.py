"""Positions: a game stopped at a turn, taken out of the engine, built by hand, and played forward.

A :class:`Position` is one game at the start of a turn (before the seat to move
decides): the rules, every hand, the stock in order, the discard pile, the
active suit, who moves, the dealer, the direction, the seats dealt in, the
totals, the hand's public history and the random streams that the rest of the
match draws on.  A :class:`PositionBatch` holds many in the engine's own state
layout; :func:`nines_sim.engine.positions.play_out` plays them forward with the
same compiled turn loop as every run (:mod:`nines_sim.engine.turn_loop`), to the
end of the hand or of the match.

A position taken from a live game (:func:`positions_from_engine`) keeps that
game's card and decision keys, so playing it forward under the same lineup
gives the same continuation as the run.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, get_type_hints

import numpy as np

from nines_sim.engine.position_fields import HOLDING, PLAIN_READ, held_mismatch, ints
from nines_sim.engine.slots import (
    COLUMNS,
    DRAW_LOG_COLUMNS,
    DRAW_LOG_DECL,
    DRAW_LOG_SEATS,
    DRAW_LOG_WORDS,
    POSITION,
    POSITION_HELD,
    STATE,
    Field,
    SlotState,
    alloc_slots,
)
from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK, SUIT_NAMES, card_name
from nines_sim.game.rules import Rules

if TYPE_CHECKING:
    from nines_sim.engine.batch import CompiledEngine


class PositionError(ValueError):
    """A position that cannot occur; the message says what is wrong in one line."""


def _suit_name(suit: int) -> str:
    """A suit by its letter (C, D, H, S), or the number when it is none of them."""
    return SUIT_NAMES[suit] if 0 <= suit < len(SUIT_NAMES) else str(suit)


@dataclass(frozen=True)
class Position:
    """One game at the start of a turn.

    Its attributes (but ``rules``) are those the slot state's declaration names as what a position holds
    (:data:`nines_sim.engine.slots.POSITION_HELD`, each field's ``held``): listed here for their types, defaults
    and order, and checked against the declaration when this module is imported, so that a field the
    declaration adds, renames or drops fails at once until a position holds it.  How each is written into a
    batch's slots and read back is derived from the declaration too
    (:data:`nines_sim.engine.position_fields.HOLDING`).

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
class PositionBatch:
    """Many positions in the engine's own state layout: the arrays of the slot state's declaration
    (:data:`nines_sim.engine.slots.STATE`), one row per position, and its rules.

    A field is read (and written, in place) by its declared name: :meth:`column` or :attr:`arrays`, e.g.
    ``batch.column("seat")``: int64 (B,); ``hands`` and ``under`` are uint64 (D, B, P) and (D, B),
    ``stock`` int8 (B, 52D), the rest (B,) or (B, P).  The columns of what a slot does within a turn (its
    phase, the decision it waits on) are zero: a position stands at the start of a turn, or at the
    decision a :class:`~nines_sim.engine.moves.Moves` names.

    Build one with :meth:`from_positions`, :func:`positions_from_engine`, or from arrays by name
    (``PositionBatch(rules, arrays)``, every name of :data:`nines_sim.engine.slots.POSITION`); index it
    with :meth:`take`.

    Parameters
    ----------
    rules : Rules
    arrays : mapping of str to numpy.ndarray, optional
        Each field of :data:`~nines_sim.engine.slots.POSITION` by name (``hands`` and ``under`` as ``D``
        arrays or one stacked array).
    state : SlotState, optional
        The arrays themselves (instead of ``arrays``; kept, not copied).
    """

    def __init__(self, rules: Rules, arrays: Mapping[str, Any] | None = None, state: SlotState | None = None):
        self.rules = rules
        if state is None:
            if arrays is None:
                raise PositionError("a batch of positions needs its arrays")
            state = _state_of(rules, arrays)
        #: The slot state's arrays (:data:`nines_sim.engine.slots.FIELDS`), one row per position.
        self.state = state
        #: Every field by its declared name: views into :attr:`state`, written in place.
        self.arrays = _Fields(state)

    @property
    def n(self) -> int:
        """Positions in the batch."""
        return int(self.state.st.shape[0])

    def column(self, name: str) -> np.ndarray:
        """Field ``name`` of every position (a view: writing it writes the batch)."""
        return self.arrays[name]

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
        B = len(positions)
        batch = cls(rules, state=alloc_slots(B, rules.players, rules.decks))
        for b, p in enumerate(positions):
            for attribute, names in POSITION_HELD.items():
                holding = HOLDING.get(attribute)
                if holding is not None:
                    holding.write(p, batch.arrays, b)
                else:  # a plain copy of one field
                    batch.arrays[names[0]][b] = getattr(p, attribute)
        return batch

    def take(self, rows: np.ndarray) -> PositionBatch:
        """The positions at ``rows`` (int64 indices, repeats allowed; a bool mask is taken as its true rows), as
        copies (C-contiguous, as the compiled loop takes them)."""
        rows = np.asarray(rows)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        # np.take, not fancy indexing: several times faster on these narrow rows (a search takes a batch a decision)
        state = SlotState(*(np.take(x, rows, axis=_AXIS[name]) for name, x in zip(SlotState._fields, self.state)))
        return PositionBatch(self.rules, state=state)

    def position(self, b: int) -> Position:
        """Position ``b`` as a :class:`Position` (validated)."""
        values: dict[str, Any] = {}
        for attribute, names in POSITION_HELD.items():
            holding = HOLDING.get(attribute)
            if holding is not None:
                values[attribute] = holding.read(self.arrays, b, self.rules)
            else:  # a plain copy of one field, as the attribute's type
                values[attribute] = PLAIN_READ.get(_TYPES[attribute], ints)(self.arrays[names[0]][b])
        return Position(rules=self.rules, **values)


_ATTRIBUTES = tuple(f.name for f in fields(Position) if f.name != "rules")
_why = held_mismatch(_ATTRIBUTES, POSITION_HELD, HOLDING)
if _why:
    raise TypeError(f"nines_sim.engine.position: {_why} (nines_sim.engine.slots.STATE)")
#: Each attribute's type (for a plain copy read back from the slots).
_TYPES: dict[str, Any] = {a: get_type_hints(Position)[a] for a in _ATTRIBUTES}


#: The arrays of the slot state whose first axis is the deck (``D``), not the slot.
_DECKED = frozenset(f.name for f in STATE if f.shape[:1] == ("D",))
#: The axis of the slots in each array of a slot state (:data:`_DECKED`: 1, after the deck).
_AXIS = {name: 1 if name in _DECKED else 0 for name in SlotState._fields}


def _place(f: Field) -> tuple[int, int | slice | None]:
    """Where field ``f`` lives in a slot state: its array's index, and its column (or columns) there, if any."""
    if f.array == f.name:
        return SlotState._fields.index(f.name), None
    col = COLUMNS[f.constant]
    return SlotState._fields.index(f.array), col if f.width == 1 else slice(col, col + f.width)


#: Each field by name (:data:`nines_sim.engine.slots.STATE`): where it lives (:func:`_place`), looked up per read.
_PLACE: dict[str, tuple[int, int | slice | None]] = {f.name: _place(f) for f in STATE}


class _Fields(Mapping[str, np.ndarray]):
    """The fields of a slot state by their declared names: views of its arrays and columns (writable)."""

    def __init__(self, state: SlotState):
        self._state = state

    def __getitem__(self, name: str) -> np.ndarray:
        i, cols = _PLACE[name]
        x = self._state[i]
        return x if cols is None else x[:, cols]

    def __setitem__(self, name: str, value: Any) -> None:
        """Write field ``name`` of every position (in place; ``hands`` and ``under`` also as ``D`` arrays)."""
        self[name][...] = np.stack(value) if isinstance(value, list) else value

    def __iter__(self) -> Iterator[str]:
        return iter(POSITION)

    def __len__(self) -> int:
        return len(POSITION)


def _state_of(rules: Rules, arrays: Mapping[str, Any]) -> SlotState:
    """A slot state holding the positions given as arrays by name (every name of ``POSITION``)."""
    B = int(np.shape(arrays["top"])[0])
    state = alloc_slots(B, rules.players, rules.decks)
    fields = _Fields(state)
    for name in POSITION:
        fields[name] = arrays[name]
    return state


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
    src = _Fields(engine.slots)
    batch = PositionBatch(engine.rules, state=alloc_slots(rows.size, engine.P, engine.D))
    for name in POSITION:  # what a position holds; where the slot stands within its turn is left out
        x = src[name]
        batch.arrays[name] = x[:, rows] if name in _DECKED else x[rows]
    return batch
