"""Uniform choices among the cards of count-coded piles, for a batch at once.

Used by strategies ("a legal card uniformly at random", ties broken uniformly)
and nowhere else: the engine itself never chooses.  A pile is a list of ``D``
uint64 words in the coding of :mod:`nines_sim.game.cards`; each physical card is one
choice, so two copies of a face are two choices (RULES.md V4).
"""

from __future__ import annotations

import functools
import sys

import numpy as np

from nines_sim.game.rng import below

assert sys.byteorder == "little", "the 16-bit chunk views below assume a little-endian machine"


@functools.cache
def _tables() -> tuple[np.ndarray, np.ndarray]:
    """``POP16`` and ``SEL16``, built on first use (a tenth of a second or more: a command that plays no
    Python strategy should not pay it at start-up).

    ``POP16[v]``: number of set bits of the 16-bit value ``v``; uint8, shape (65536,).
    ``SEL16[v, j]``: position of the j-th set bit of v (j < POP16[v]); int64, shape (65536, 16).
    """
    pop16 = np.bitwise_count(np.arange(1 << 16, dtype=np.uint16)).astype(np.uint8)
    bits = (np.arange(1 << 16, dtype=np.uint32)[:, None] >> np.arange(16, dtype=np.uint32)) & 1
    sel16 = np.argsort(1 - bits.astype(np.int8), axis=1, kind="stable").astype(np.int64)
    return pop16, sel16


def count_cards(words: list[np.ndarray]) -> np.ndarray:
    """Number of physical cards in count-coded piles.

    Parameters
    ----------
    words : list of numpy.ndarray
        ``D`` arrays, uint64, shape (n,).

    Returns
    -------
    numpy.ndarray
        int64, shape (n,).
    """
    total = np.bitwise_count(words[0]).astype(np.int64)
    for w in words[1:]:
        total += np.bitwise_count(w)
    return total


def nth_card(words: list[np.ndarray], r: np.ndarray) -> np.ndarray:
    """The face of the ``r``-th physical card of each pile, counting faces upward, word 0 first.

    Parameters
    ----------
    words : list of numpy.ndarray
        ``D`` arrays, uint64, shape (n,): count-coded piles.
    r : numpy.ndarray
        int64, shape (n,): 0 <= r < cards in the pile.

    Returns
    -------
    numpy.ndarray
        int64, shape (n,): faces 0..51; -1 where ``r`` is out of range.
    """
    POP16, SEL16 = _tables()  # noqa: N806 - the tables' names
    n = words[0].shape[0]
    stacked = np.stack(words, axis=1) if len(words) > 1 else words[0][:, None]
    chunks = np.ascontiguousarray(stacked).view(np.uint16).reshape(n, 4 * len(words))
    pc = POP16[chunks]
    cs = np.cumsum(pc, axis=1, dtype=np.int64)
    k = np.minimum((cs <= r[:, None]).sum(axis=1), chunks.shape[1] - 1)
    ar = np.arange(n)
    before = cs[ar, k] - pc[ar, k]
    ok = (r >= 0) & (r < cs[:, -1])
    # the bit's rank within its chunk, held to 0..15 for the games out of range (np.clip's wrapper costs more)
    face = SEL16[chunks[ar, k], np.minimum(np.maximum(r - before, 0), 15)] + 16 * (k % 4)
    return np.where(ok, face, -1)


def pick_card(words: list[np.ndarray], x: np.ndarray) -> np.ndarray:
    """The face of a uniformly chosen physical card of each pile.

    Parameters
    ----------
    words : list of numpy.ndarray
        ``D`` arrays, uint64, shape (n,): count-coded piles.
    x : numpy.ndarray
        uint64, shape (n,): random words (e.g. ``Observation.random()``).

    Returns
    -------
    numpy.ndarray
        int64, shape (n,): faces 0..51; -1 where a pile is empty.
    """
    total = count_cards(words)
    return nth_card(words, np.where(total > 0, below(x, np.maximum(total, 1)), -1))


def pick_bit(mask: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A uniformly chosen set bit of each of a batch of uint64 masks (-1 for an empty mask).

    Parameters
    ----------
    mask : numpy.ndarray
        uint64, shape (n,).
    x : numpy.ndarray
        uint64, shape (n,), random words.

    Returns
    -------
    numpy.ndarray
        int64, shape (n,).
    """
    return pick_card([mask], x)
