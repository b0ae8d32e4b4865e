"""Cards, suits, ranks and the hand bitmask layout (RULES.md C1, C2).

Bit layout
----------
A *face* is one of the 52 distinct cards, numbered ``face = 13 * suit + rank``:
suits ``0..3`` are clubs, diamonds, hearts, spades (♣ ♦ ♥ ♠) and ranks ``0..12``
are A 2 3 4 5 6 7 8 9 10 J Q K, so rank 8 is the wild 9.  A set of faces is a
``uint64`` with bit ``face`` set; each suit owns 13 contiguous bits.

A *hand* (or any pile that may hold two copies of a face, as under the double
deck of V4) is ``D`` such words, count-coded ("thermometer" coding): word ``d``
has bit ``face`` set when the pile holds more than ``d`` copies of ``face``.
With one deck ``D == 1`` and this is the plain bitmask.  The coding makes the
copies of a face interchangeable, which is what the rules say they are.
"""

from __future__ import annotations

import numpy as np

from nines_sim.game.codes import NINE_RANK

N_SUITS = 4
N_RANKS = 13
N_FACES = 52
SUIT_NAMES = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")

ONE = np.uint64(1)

#: ``SUIT_MASK[s]``: the 13 faces of suit ``s``; uint64, shape (4,).
SUIT_MASK = np.array([0x1FFF << (13 * s) for s in range(N_SUITS)], dtype=np.uint64)
#: ``RANK_MASK[r]``: the four faces of rank ``r``; uint64, shape (13,).
RANK_MASK = np.array([sum(1 << (13 * s + r) for s in range(N_SUITS)) for r in range(N_RANKS)], dtype=np.uint64)
#: The four wild 9s (C1).
NINES = int(RANK_MASK[NINE_RANK])
NATURALS = (1 << N_FACES) - 1 - NINES
FULL_DECK = (1 << N_FACES) - 1

#: Rank of each face, suit of each face; int8, shape (52,).
FACE_RANK = np.tile(np.arange(N_RANKS, dtype=np.int8), N_SUITS)
FACE_SUIT = np.repeat(np.arange(N_SUITS, dtype=np.int8), N_RANKS)


def natural_penalty(rank: int) -> int:
    """Penalty points of a natural card of ``rank`` left in hand (C2).

    A = 1, 2-8 and 10 at face value, J Q K = 10.  The 9 is wild and priced by
    the rules (``Rules.nine_penalty``), so asking for it raises ``ValueError``.
    """
    if rank == NINE_RANK:
        raise ValueError("the 9's penalty is a rules option (nine_penalty), not a card value")
    if rank >= 9:
        return 10
    return rank + 1


#: Penalty groups for scoring a bitmask by popcounts: (points, mask of natural faces).
PENALTY_GROUPS: tuple[tuple[int, int], ...] = tuple(
    (pts, int(sum(int(RANK_MASK[r]) for r in range(N_RANKS) if r != NINE_RANK and natural_penalty(r) == pts)))
    for pts in sorted({natural_penalty(r) for r in range(N_RANKS) if r != NINE_RANK})
)


def face_penalties(nine_penalty: int) -> np.ndarray:
    """Penalty of every face under a given 9 penalty (C2, V1).

    Returns
    -------
    numpy.ndarray
        int16, shape (52,), points.
    """
    return np.array([nine_penalty if r == NINE_RANK else natural_penalty(r) for r in FACE_RANK], dtype=np.int16)


def face(rank: int, suit: int) -> int:
    """Face number of a card: ``13 * suit + rank``."""
    return 13 * suit + rank


def card_name(f: int) -> str:
    """Short name of a face, e.g. ``"9S"``, ``"10H"``, ``"AC"``."""
    return RANK_NAMES[f % 13] + SUIT_NAMES[f // 13]


def parse_card(text: str) -> int:
    """Face number of a card name such as ``"9S"``, ``"10h"``, ``"Q♥"``.

    Raises
    ------
    ValueError
        If the text is not a rank followed by a suit letter or symbol.
    """
    t = text.strip().upper()
    for i, sym in enumerate(SUIT_SYMBOLS):
        t = t.replace(sym, SUIT_NAMES[i])
    rank_txt, suit_txt = t[:-1], t[-1:]
    if rank_txt not in RANK_NAMES or suit_txt not in SUIT_NAMES:
        raise ValueError(f"not a card: {text!r} (write a rank A,2..10,J,Q,K then a suit C,D,H,S)")
    return face(RANK_NAMES.index(rank_txt), SUIT_NAMES.index(suit_txt))


def mask_of(cards: list[str] | list[int]) -> int:
    """Bitmask (int) of a list of faces or card names; duplicates are not counted."""
    m = 0
    for c in cards:
        m |= 1 << (parse_card(c) if isinstance(c, str) else int(c))
    return m


def faces_of(mask: int) -> list[int]:
    """Faces set in a bitmask, ascending (bits from face 52 up are not faces and are left out)."""
    mask &= (1 << N_FACES) - 1
    out = []
    while mask:  # one step per card held, not per face of the deck
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def hand_faces(words: np.ndarray) -> list[int]:
    """Faces (with repeats) of a count-coded pile; ``words`` has shape (D,)."""
    out: list[int] = []
    for w in np.asarray(words, dtype=np.uint64).reshape(-1):
        out.extend(faces_of(int(w)))
    return sorted(out)


def words_of(faces: list[int], decks: int) -> np.ndarray:
    """Count-coded words of a multiset of faces.

    Returns
    -------
    numpy.ndarray
        uint64, shape (decks,).

    Raises
    ------
    ValueError
        If a face occurs more than ``decks`` times.
    """
    counts = np.bincount(np.asarray(faces, dtype=np.int64), minlength=N_FACES)
    if counts.max(initial=0) > decks:
        raise ValueError(f"a face occurs more than {decks} time(s)")
    return np.array([sum(1 << f for f in range(N_FACES) if counts[f] > d) for d in range(decks)], dtype=np.uint64)


# Asserted against their definitions, so that a typo in a literal cannot hide.
assert int(SUIT_MASK[3]) == sum(1 << face(r, 3) for r in range(13))
assert NINES == sum(1 << face(NINE_RANK, s) for s in range(4))
assert sum(natural_penalty(r) for r in range(13) if r != NINE_RANK) * 4 + 4 * 15 == 364
