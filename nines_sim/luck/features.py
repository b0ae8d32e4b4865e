"""The features a value function of the luck measure is linear in: per card and per seat, from the omniscient view.

A state's features, for each seat ``p``, are the outer product of a few *match weights* (constant within a hand's
chance events: 1, the match's progress, the seat's lead) with a *card block*: the seat's cards in hand by rank,
its naturals of the active suit and of the top card's rank, the same summed over the other seats, the legal
count of the seat to move (for that seat and for the others), and whether the seat moved first in the hand,
each column also scaled by the hand's *phase* (functions of the seat's hand size and the smallest other hand:
:func:`phase`).  The match weights are :func:`match_weights`.

Every feature is linear in the hands (a ``(P, 52)`` array of copies held) once the top card, the active suit,
the seat to move, the hands' sizes and the totals are fixed.  The sizes after any event are known before it, so
at a draw, which changes only the drawer's hand, the mean of the features over the cards of the stock is the
features of the mean hand (exact), and a deal's mean is exact by enumerating the starter (the hands are then
uniform over the rest of the deck).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, N_RANKS, NINE_RANK

#: Columns of the card matrix :func:`card_matrix`: 13 ranks, the active suit's naturals, the top rank's naturals.
NB = N_RANKS + 2
COL_ACTIVE, COL_TOP = N_RANKS, N_RANKS + 1
#: The card block of one seat before the hand's phase: own (NB), the others' sum (NB), the mover's legal count
#: (mover, not mover), first.
NJ0 = 2 * NB + 3
#: The hand's phase: each card block column scaled by each of these functions of the seat's hand size and the
#: smallest other hand (:func:`phase`).
NQ = 3
#: The card block of one seat: the NJ0 columns times each phase function (phase-major).
NJ = NQ * NJ0
#: Match weights per seat: the monomials of degree 0 to 3 in the match's progress and the seat's lead.
NC = 10
#: Features per seat.
N_FEATURES = NC * NJ
NATURAL = FACE_RANK != NINE_RANK


@cache
def card_matrix(active: int, top: int) -> np.ndarray:
    """The card block's matrix for a top card and active suit: ``hands @ card_matrix(...)`` gives the blocks.

    Returns
    -------
    numpy.ndarray
        float64, shape (52, NB): column ``r < 13`` counts rank ``r``; ``COL_ACTIVE`` the naturals of the active
        suit; ``COL_TOP`` the naturals of the top card's rank (none when a 9 is on top).
    """
    m = np.zeros((N_FACES, NB))
    m[np.arange(N_FACES), FACE_RANK] = 1.0
    m[:, COL_ACTIVE] = (FACE_SUIT == active) & NATURAL
    if FACE_RANK[top] != NINE_RANK:
        m[:, COL_TOP] = (FACE_RANK == FACE_RANK[top]) & NATURAL
    m.setflags(write=False)
    return m


def match_weights(totals: np.ndarray, progress: float, target: int) -> np.ndarray:
    """Each seat's match weights: the monomials of degree 0 to 3 in the match's progress (0 to 1) and the seat's
    lead over the lowest other total (as a share of the target): 1, x, y, x², y², xy, x³, y³, x²y, xy².

    A hand's cards weigh on the match by where it stands (near the target, a point decides more), so the value
    of a hand's cards is scaled by a cubic surface in these two numbers; both are fixed within a hand.

    Parameters
    ----------
    totals : numpy.ndarray
        int or float, shape (P,): running totals (S1).
    progress : float
        How far the match has gone: the highest total over the target (S2), or the hands played over the fixed
        number (S3).
    target : int
        The target, the scale of the lead.

    Returns
    -------
    numpy.ndarray
        float64, shape (P, NC).
    """
    t = np.asarray(totals, dtype=np.float64)
    P = t.shape[0]
    others = np.array([np.min(np.delete(t, p)) for p in range(P)])
    x = np.full(P, float(progress))
    y = (t - others) / target
    return np.stack([np.ones(P), x, y, x * x, y * y, x * y, x**3, y**3, x * x * y, x * y * y], axis=1)


def phase(sizes: np.ndarray) -> np.ndarray:
    """Each seat's phase functions of the hand sizes: 1, and the reciprocals of one more than its own size and
    than the smallest other size.

    A card's weight on the hand's result depends on how soon the hand ends (the smallest other hand) and how
    many cards its holder has left to shed.  The sizes after any event are known before it (a draw adds one
    card to the drawer's hand, a play takes one or two, a deal gives each seat the rules' size), so a card block
    scaled by them stays linear in the hands where the expectations need it.

    Parameters
    ----------
    sizes : numpy.ndarray
        float64, shape (P,): cards in each seat's hand.

    Returns
    -------
    numpy.ndarray
        float64, shape (P, NQ).
    """
    P = sizes.shape[0]
    others = np.array([np.min(np.delete(sizes, p)) for p in range(P)])
    a, b = 1.0 / (1.0 + sizes), 1.0 / (1.0 + others)
    return np.stack([np.ones(P), a, b], axis=1)


def card_blocks(blocks: np.ndarray, mover: int, first: int) -> np.ndarray:
    """Each seat's card block from the seats' ``hands @ card_matrix`` rows.

    Parameters
    ----------
    blocks : numpy.ndarray
        float64, shape (P, NB).
    mover : int
        The seat to move (whose legal count is a feature).
    first : int
        The seat that moved first in the hand (-1: none yet).

    Returns
    -------
    numpy.ndarray
        float64, shape (P, NJ).
    """
    P = blocks.shape[0]
    out = np.empty((P, NJ0))
    out[:, :NB] = blocks
    out[:, NB : 2 * NB] = blocks.sum(axis=0) - blocks
    legal = blocks[mover, COL_ACTIVE] + blocks[mover, COL_TOP] + blocks[mover, NINE_RANK]
    is_mover = np.arange(P) == mover
    out[:, 2 * NB] = np.where(is_mover, legal, 0.0)
    out[:, 2 * NB + 1] = np.where(is_mover, 0.0, legal)
    out[:, 2 * NB + 2] = np.arange(P) == first
    phi = phase(blocks[:, :N_RANKS].sum(axis=1))  # a hand's size is the sum of its rank counts
    return (phi[:, :, None] * out[:, None, :]).reshape(P, NJ)


def features(hands: np.ndarray, active: int, top: int, mover: int, first: int, weights: np.ndarray) -> np.ndarray:
    """A state's features, per seat.

    Parameters
    ----------
    hands : numpy.ndarray
        float64, shape (P, 52): copies of each face in each seat's hand (a mean hand may be fractional).
    active, top : int
        The active suit (0-3) and the top card's face.
    mover, first : int
        The seat to move; the seat that moved first in the hand.
    weights : numpy.ndarray
        float64, shape (P, NC): :func:`match_weights`.

    Returns
    -------
    numpy.ndarray
        float64, shape (P, N_FEATURES).
    """
    d = card_blocks(hands @ card_matrix(active, top), mover, first)
    return (weights[:, :, None] * d[:, None, :]).reshape(d.shape[0], N_FEATURES)
