"""How a :class:`~nines_sim.engine.position.Position` holds the slot state's declared fields.

Each field a position holds names the attribute that holds it (:data:`nines_sim.engine.slots.POSITION_HELD`).
Most attributes are a plain copy of one field (a number, a flag, a row of numbers); :data:`HOLDING` says how the
others are written into a batch's slots and read back; :func:`held_mismatch` says what keeps
:class:`~nines_sim.engine.position.Position`'s attributes from matching the declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.game.cards import hand_faces, words_of
from nines_sim.game.rules import Rules

if TYPE_CHECKING:
    from nines_sim.engine.position import Position


@dataclass(frozen=True)
class Holding:
    """How a :class:`Position` attribute that is not a plain copy of one slot field is written and read back.

    Attributes
    ----------
    write : callable
        ``write(position, arrays, b)``: the fields it holds (:data:`nines_sim.engine.slots.POSITION_HELD`), into
        row ``b`` of a batch's arrays by name.
    read : callable
        ``read(arrays, b, rules)``: the attribute's value from row ``b``.
    """

    write: Callable[[Position, Mapping[str, np.ndarray], int], None]
    read: Callable[[Mapping[str, np.ndarray], int, Rules], Any]


def _write_hands(p: Position, a: Mapping[str, np.ndarray], b: int) -> None:
    for s, hand in enumerate(p.hands):
        if hand:
            a["hands"][:, b, s] = words_of(list(hand), p.rules.decks)
    a["ncards"][b] = p.sizes


def _write_pile(p: Position, a: Mapping[str, np.ndarray], b: int) -> None:
    if p.pile:
        a["under"][:, b] = words_of(list(p.pile), p.rules.decks)


def _write_stock(p: Position, a: Mapping[str, np.ndarray], b: int) -> None:
    a["stock"][b, : len(p.stock)] = p.stock
    a["stock_pos"][b], a["stock_end"][b] = 0, len(p.stock)


def _write_in_hand(p: Position, a: Mapping[str, np.ndarray], b: int) -> None:
    a["seats_mask"][b] = sum(1 << s for s, dealt in enumerate(p.in_hand) if dealt)
    a["n_in"][b] = sum(p.in_hand)


def _write_direction(p: Position, a: Mapping[str, np.ndarray], b: int) -> None:
    a["dirbit"][b] = 0 if p.direction == 1 else 1


#: The attributes of a :class:`Position` held otherwise than as a plain copy of one slot field: the hands and
#: the pile as faces (the slots: count-coded words, and the hands' sizes), the stock as its cards left (the slots:
#: the cards and its ends), the seats dealt in as flags (a bit mask and a count), the direction as +1 or -1.
HOLDING: dict[str, Holding] = {
    "hands": Holding(
        _write_hands, lambda a, b, r: tuple(tuple(hand_faces(a["hands"][:, b, s])) for s in range(r.players))
    ),
    "pile": Holding(_write_pile, lambda a, b, r: tuple(hand_faces(a["under"][:, b]))),
    "stock": Holding(
        _write_stock, lambda a, b, r: tuple(int(f) for f in a["stock"][b, a["stock_pos"][b] : a["stock_end"][b]])
    ),
    "in_hand": Holding(
        _write_in_hand, lambda a, b, r: tuple(bool((int(a["seats_mask"][b]) >> s) & 1) for s in range(r.players))
    ),
    "direction": Holding(_write_direction, lambda a, b, r: 1 - 2 * int(a["dirbit"][b])),
}


def ints(x: np.ndarray) -> tuple[int, ...]:
    """A row of a field as a tuple of Python ints (a seat's totals, the draw log's words)."""
    return tuple(int(v) for v in x)


#: A plain copy's value by the attribute's type (a flag, a number; otherwise a tuple of numbers).
PLAIN_READ: dict[type, Callable[[Any], Any]] = {bool: lambda x: bool(int(x)), int: int}


def held_mismatch(attributes: Sequence[str], held: Mapping[str, Sequence[str]], holding: Mapping[str, Any]) -> str:
    """What keeps a position's attributes from holding the declared slot state, in one line ("" when nothing).

    Parameters
    ----------
    attributes : sequence of str
        The attributes of :class:`Position` but ``rules``.
    held : mapping of str to sequence of str
        :data:`nines_sim.engine.slots.POSITION_HELD`: each attribute the declaration names, with its fields.
    holding : mapping
        :data:`HOLDING`: the attributes held otherwise than as a plain copy of one field.
    """
    missing = [h for h in held if h not in attributes]
    extra = [a for a in attributes if a not in held]
    shared = [h for h, names in held.items() if len(names) > 1 and h not in holding]
    out = []
    if missing:
        out.append(f"the slot state declares {', '.join(missing)} held by a position, which Position lacks")
    if extra:
        out.append(f"Position has {', '.join(extra)}, which no field of the slot state declares held")
    if shared:
        out.append(f"{', '.join(shared)} holds several fields but has no HOLDING entry")
    return "; ".join(out)
