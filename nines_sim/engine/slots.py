"""The state of the compiled turn loop's game slots, declared once: every field, where it lives, who sees it.

A *slot* holds one game in play (:func:`nines_sim.engine.turn_loop.play_slots`).  :data:`STATE` names each
piece of its state once (a :class:`Field`): a named scalar is a column of the int64 array ``st``, a key a
column of the uint64 array ``keys``, the rest are arrays of their own, indexed by slot (``B`` slots, ``P``
seats, ``D`` decks, ``S = 52 D`` cards).  From it come

- the compiled loop's column constants (``S_DIR``, ``K_DHK``, ..., ``NST``, ``NKEY``): module-level ints of
  this module, numbered at import, which numba reads as compile-time constants;
- the arrays of :data:`FIELDS` and :func:`alloc_slots`'s :class:`SlotState`, whose fields are the turn loop's
  first arguments in order (``play(*slots, ...)``);
- the engine's named views (:class:`~nines_sim.engine.batch.CompiledEngine`), the public arrays a strategy
  sees (:data:`PUBLIC`, :class:`~nines_sim.strategy.base.PublicState`) and what a position holds
  (:data:`POSITION`, :mod:`nines_sim.engine.positions`), and the attributes of a
  :class:`~nines_sim.engine.position.Position` that hold them (:data:`POSITION_HELD`).

So a new per-slot field is added here (and read by the loop) and nowhere else; one a position holds also gets its
typed attribute on :class:`~nines_sim.engine.position.Position` (which refuses to import until it has it).

This module imports no compiled code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

#: The draw log (:mod:`nines_sim.engine.draw_log`): ``DRAW_LOG_WORDS`` columns a seat, for at most
#: ``DRAW_LOG_SEATS`` seats, from ``S_DRAW_LOG`` on; the last columns of ``st``.
DRAW_LOG_WORDS = 5
#: The word of a seat's log that holds its last declaration (the others: sets of faces).
DRAW_LOG_DECL = 4
DRAW_LOG_SEATS = 6
DRAW_LOG_COLUMNS = DRAW_LOG_SEATS * DRAW_LOG_WORDS


@dataclass(frozen=True)
class Field:
    """One piece of a slot's state, named once for the compiled loop, the engine, strategies and positions.

    Attributes
    ----------
    name : str
        The name the engine's views, :class:`~nines_sim.strategy.base.PublicState` and positions use.
    array : str
        Where it lives: ``"st"`` (a column of the int64 scalars), ``"keys"`` (a uint64 column), or the name of a
        per-slot array of its own (then ``dtype`` and ``shape`` say which).
    constant : str
        For a column, the compiled loop's constant naming it (``S_*``, ``K_*``; set in this module at import).
    width : int
        Columns it takes (the draw log: ``DRAW_LOG_COLUMNS``).
    public : bool
        Shown to a strategy (:class:`~nines_sim.strategy.base.PublicState`).
    position : bool
        Held by a position (:mod:`nines_sim.engine.positions`): the game's state between turns.  The rest (where a
        slot stands within a turn, the decision it waits on) is set when positions are loaded into slots.
    held : str
        For a field a position holds, the attribute of :class:`~nines_sim.engine.position.Position` that holds
        it (default: ``name``).  Several fields may share one: ``stock`` holds the stock's cards and its ends.
    dtype, shape
        For an array of its own: its dtype and shape (in ``B`` slots, ``P`` seats, ``D`` decks, ``S`` cards).
    doc : str
        What it means.
    """

    name: str
    array: str
    constant: str = ""
    width: int = 1
    public: bool = False
    position: bool = True
    dtype: type = np.int64
    shape: tuple[str, ...] = ()
    doc: str = ""
    held: str = ""

    def __post_init__(self) -> None:
        if self.position and not self.held:
            object.__setattr__(self, "held", self.name)


def _st(
    name: str, constant: str, doc: str, public: bool = False, position: bool = True, width: int = 1, held: str = ""
) -> Field:
    return Field(name, "st", constant, width, public, position, doc=doc, held=held)


def _key(name: str, constant: str, doc: str, public: bool = False, position: bool = True) -> Field:
    return Field(name, "keys", constant, 1, public, position, np.uint64, doc=doc)


def _own(name: str, dtype: type, shape: tuple[str, ...], doc: str, public: bool = False, held: str = "") -> Field:
    return Field(name, name, "", 1, public, True, dtype, shape, doc, held)


#: The slot's state, every field once, in the order of its columns and arrays.  Sets of faces are stored as
#: uint64 (so that Python strategies read them as from the numpy engine); the loop reads them as int64.
STATE: tuple[Field, ...] = (
    # the named scalars of each slot: columns of ``st``
    _st("match", "S_MATCH", "match index (-1: none)"),
    _st("hand_seq", "S_HAND_SEQ", "hands dealt (the hand keys' counter)"),
    _st("hands_played", "S_HANDS", "regular hands played", public=True),
    _st("tb_hands", "S_TB_HANDS", "tie-break hands played", public=True),
    _st("first_dealer", "S_FIRST", "the match's first dealer"),
    _st("in_tb", "S_IN_TB", "in a tie-break hand (S4)", public=True, held="in_tiebreak"),
    _st("seats_mask", "S_MASK", "seats dealt into the hand, a bit each", public=True, held="in_hand"),
    _st("n_in", "S_N_IN", "seats dealt into the hand", held="in_hand"),
    _st("stock_pos", "S_POS", "the stock's next card", public=True, held="stock"),
    _st("stock_end", "S_END", "the stock's end", public=True, held="stock"),
    _st("top", "S_TOP", "top card of the discard pile", public=True),
    _st("active", "S_ACTIVE", "active suit (T1, T3)", public=True),
    _st("seat", "S_SEAT", "seat to move"),
    _st("dealer", "S_DEALER", "the dealer", public=True),
    _st("dirbit", "S_DIR", "direction of play: 0 clockwise, 1 reversed (V3)", public=True, held="direction"),
    _st("turn", "S_TURN", "turns taken this hand (T8)", public=True),
    _st("streak", "S_STREAK", "turns since the last card played (T7)", public=True),
    _st("drawn", "S_DRAWN", "cards drawn this hand", public=True),
    _st("reshuffles", "S_RESH", "reshuffles this hand (T5)", public=True),
    _st("nine_starter", "S_NINE_START", "the starter was a 9 (D6)"),
    _st("phase", "S_PHASE", "where the slot's game stands (PH_*)", position=False),
    _st("move", "S_MOVE", "the move being made", position=False),
    _st("passed", "S_PASSED", "whether the seat passed", position=False),
    _st("card", "S_CARD", "the card drawn", position=False),
    _st("outcome", "S_OUTCOME", "how the hand ended", position=False),
    _st("waiting", "S_WAITING", "waits on a Python seat (1; 2: an illegal answer)", position=False),
    _st("wait_kind", "S_WAIT_KIND", "the decision it waits on", position=False),
    _st("wait_seat", "S_WAIT_SEAT", "the seat it waits on", position=False),
    _st("have_ans", "S_HAVE_ANS", "Python answered", position=False),
    _st("answer", "S_ANSWER", "Python's answer", position=False),
    _st(
        "stop_turn",
        "S_STOP",
        "a play-out stops the hand before this turn (0: never; nines_sim.engine.positions)",
        position=False,
    ),
    _st("draw_log", "S_DRAW_LOG", "the draw log (nines_sim.engine.draw_log)", True, width=DRAW_LOG_COLUMNS),
    # the slot's keys: columns of ``keys``
    _key("mkey", "K_CMK", "card match key (never shown to a strategy)"),
    _key("dmkey", "K_DMK", "decision match key"),
    _key("hkey", "K_CHK", "card hand key (never shown to a strategy)"),
    _key("dkey", "K_DHK", "decision hand key (Observation.random)", public=True),
    _key("legal", "K_LEGAL", "the legal set of a waiting decision", position=False),
    # the per-slot arrays besides
    _own("hands", np.uint64, ("D", "B", "P"), "count-coded hands (nines_sim.game.cards)"),
    _own("ncards", np.int64, ("B", "P"), "cards in each hand", public=True, held="hands"),
    _own("totals", np.int64, ("B", "P"), "the match's penalty totals", public=True),
    _own("drew_on", np.int64, ("B", "P"), "the suits each seat drew on this hand, a bit each", public=True),
    _own("under", np.uint64, ("D", "B"), "count-coded discard pile below the top card", held="pile"),
    _own("stock", np.int8, ("B", "S"), "faces of the stock, in order"),
    _own("played", np.uint64, ("B",), "faces played this hand", public=True),
)


def _number_columns() -> dict[str, int]:
    """The compiled loop's column constants, numbered in :data:`STATE`'s order, and ``NST``, ``NKEY``."""
    out: dict[str, int] = {}
    for array, count in (("st", "NST"), ("keys", "NKEY")):
        col = 0
        for f in STATE:
            if f.array == array:
                out[f.constant] = col
                col += f.width
        out[count] = col
    return out


COLUMNS = _number_columns()
# numba reads module-level ints as compile-time constants: the declaration's columns become this module's names
globals().update(COLUMNS)
#: Every field that is a column of ``st`` or ``keys``, by name.
COLUMN_OF: dict[str, Field] = {f.name: f for f in STATE if f.array in ("st", "keys")}
#: The names a strategy may see (:class:`~nines_sim.strategy.base.PublicState`).
PUBLIC: tuple[str, ...] = tuple(f.name for f in STATE if f.public)
#: The names a position holds (:mod:`nines_sim.engine.positions`).
POSITION: tuple[str, ...] = tuple(f.name for f in STATE if f.position)
#: The attributes of a :class:`~nines_sim.engine.position.Position` (but its rules), in :data:`STATE`'s order, each
#: with the fields it holds (``"stock"``: ``("stock_pos", "stock_end", "stock")``).
POSITION_HELD: dict[str, tuple[str, ...]] = {
    h: tuple(f.name for f in STATE if f.position and f.held == h) for h in dict.fromkeys(f.held for f in STATE)
    if h
}  # fmt: skip

#: Every per-slot array: name, dtype, shape (in ``B`` slots, ``P`` seats, ``D`` decks, ``S`` cards, and the
#: column counts), meaning; ``st`` and ``keys`` hold the columns of :data:`STATE`.
FIELDS: tuple[tuple[str, type, tuple[str, ...], str], ...] = (
    ("st", np.int64, ("B", "NST"), "the named scalars of each slot (the S_* columns)"),
    ("keys", np.uint64, ("B", "NKEY"), "match and hand keys, the legal set asked about (the K_* columns)"),
    *((f.name, f.dtype, f.shape, f.doc) for f in STATE if f.array == f.name),
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
    size = {"B": B, "P": P, "D": D, "S": 52 * D, **COLUMNS}
    out = SlotState(*(np.zeros(tuple(size[d] for d in shape), dtype=dt) for _, dt, shape, _ in FIELDS))
    out.st[:, COLUMNS["S_MATCH"]] = -1
    return out
