"""Counter-based random streams (reproducibility; RULES.md D2, D5, T5).

Every random number in a match is a pure function of the run's seed, the
match index and counters inside the match, never of the batch it was played
in or of any global state.  That is what makes match ``k`` of seed ``s`` the
same whether it is played alone, in a batch of 1,000, or on another process.

Two roots, one way
------------------
The seed is turned, once per run, into two independent 64-bit roots by a
one-way function (BLAKE2b, 8-byte digest, read little-endian)::

    card_root     = blake2b(b"nines-sim/cards/"     + str(seed).encode("ascii"))
    decision_root = blake2b(b"nines-sim/decisions/" + str(seed).encode("ascii"))

The cards (first dealer, deal, reshuffles) draw only on keys chained from
``card_root``; the random numbers handed to strategies
(:meth:`nines_sim.strategy.base.Observation.random`) draw only on keys chained from
``decision_root``.  The chain below is a bijection at every link, so a strategy
that inverts its random words gets back its decision keys, and even the
decision root; but no card key can be computed from those without inverting
BLAKE2b.  (Anyone who knows the seed can of course recompute everything: that
is what makes a run reproducible.  Strategies are not told the seed.)

The chain
---------
The generator is the SplitMix64 finaliser (a bijective 64-bit mixer) applied
to a chain of keys, the same for both roots::

    match_key = mix(mix(root + GOLDEN) ^ match)
    hand_key  = mix(match_key ^ (hand_seq + 1) * HAND)        # hand_seq counts every hand dealt
    key(k, purpose, counter) = mix(k ^ purpose * PURPOSE ^ counter * COUNTER)

Each game therefore carries a card hand key (from ``card_root``) and a decision
hand key (from ``decision_root``).  A uniform integer below ``n`` is
``((x >> 32) * n) >> 32`` of a mixed word ``x`` (exact integer arithmetic, so a
plain-Python reimplementation agrees bit for bit).  The first dealer is
``below(key(card match_key, FIRST_DEALER, 0), P)``.  The deal sorts the
physical cards ``0 .. 52*D-1`` by ``key(card hand_key, DEAL, card)``; a
reshuffle of the discard pile sorts its cards, named ``face + 52 * copy``
(``copy`` 1 for a face's second copy in the pile), by
``key(card hand_key, RESHUFFLE, card + 256 * reshuffle_no)``, reshuffle_no
counting from 0 within the hand.  Decisions of strategies use
``key(decision hand_key, DECISION + kind, turn * 64 + salt)`` (see
``nines_sim.strategy.base``).
"""

from __future__ import annotations

import hashlib

import numpy as np

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
HAND = 0xD1B54A32D192ED03
PURPOSE = 0xA0761D6478BD642F
COUNTER = 0xE7037ED1A0B428DB
_C1 = np.uint64(0xBF58476D1CE4E5B9)
_C2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)

# Purposes: one stream family per kind of random event.
FIRST_DEALER = 1
DEAL = 2
RESHUFFLE = 3
DECISION = 100  # + decision kind (see strategy.DecisionKind)

# Purpose labels of the two roots (hashed with the seed).
CARDS_LABEL = b"nines-sim/cards/"
DECISIONS_LABEL = b"nines-sim/decisions/"


def root(label: bytes, seed: int) -> int:
    """A 64-bit root of the key chain: BLAKE2b (8-byte digest, little-endian) of ``label`` + the seed in decimal.

    Parameters
    ----------
    label : bytes
        :data:`CARDS_LABEL` or :data:`DECISIONS_LABEL`.
    seed : int
        The run's seed, 0 <= seed < 2**64.

    Returns
    -------
    int
        0 <= root < 2**64.
    """
    digest = hashlib.blake2b(label + str(int(seed)).encode("ascii"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def roots(seed: int) -> tuple[int, int]:
    """The run's ``(card_root, decision_root)``: independent, and neither computable from the other.

    Parameters
    ----------
    seed : int
        The run's seed, 0 <= seed < 2**64.

    Returns
    -------
    tuple of int
        Two roots, each 0 <= root < 2**64.
    """
    return root(CARDS_LABEL, seed), root(DECISIONS_LABEL, seed)


def mix(x: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, elementwise.

    Parameters
    ----------
    x : numpy.ndarray
        uint64, any shape.

    Returns
    -------
    numpy.ndarray
        uint64, same shape; a bijection of the input.
    """
    x = np.asarray(x, dtype=np.uint64)
    with np.errstate(over="ignore"):
        x = (x ^ (x >> _S30)) * _C1
        x = (x ^ (x >> _S27)) * _C2
    return x ^ (x >> _S31)


def mix_int(x: int) -> int:
    """SplitMix64 finaliser on a Python int (the scalar twin of :func:`mix`)."""
    x &= M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def match_keys(root: int, matches: np.ndarray) -> np.ndarray:
    """Key of each match, chained from one of the run's roots (see :func:`roots`).

    Parameters
    ----------
    root : int
        The card root or the decision root, 0 <= root < 2**64.
    matches : numpy.ndarray
        int64, shape (n,), match indices.

    Returns
    -------
    numpy.ndarray
        uint64, shape (n,).
    """
    base = np.uint64(mix_int((root + GOLDEN) & M64))
    return mix(np.asarray(matches, dtype=np.int64).astype(np.uint64) ^ base)


def hand_keys(match_key: np.ndarray, hand_seq: np.ndarray) -> np.ndarray:
    """Key of a hand: ``hand_seq`` counts the hands dealt in the match so far (tie-breaks too).

    Parameters
    ----------
    match_key : numpy.ndarray
        uint64, shape (n,).
    hand_seq : numpy.ndarray
        integer, shape (n,).

    Returns
    -------
    numpy.ndarray
        uint64, shape (n,).
    """
    with np.errstate(over="ignore"):
        h = (np.asarray(hand_seq).astype(np.uint64) + np.uint64(1)) * np.uint64(HAND)
    return mix(np.asarray(match_key, dtype=np.uint64) ^ h)


def stream(key: np.ndarray, purpose: int, counter: np.ndarray | int) -> np.ndarray:
    """A random word for each of a batch of keys, for one purpose and counter.

    Parameters
    ----------
    key : numpy.ndarray
        uint64, shape (n,) or broadcastable with ``counter``.
    purpose : int
        One of the module's purpose constants (plus an offset where documented).
    counter : numpy.ndarray or int
        Non-negative integers, broadcastable with ``key``.

    Returns
    -------
    numpy.ndarray
        uint64, the broadcast shape.
    """
    p = np.uint64((purpose * PURPOSE) & M64)
    with np.errstate(over="ignore"):
        c = np.asarray(counter).astype(np.uint64) * np.uint64(COUNTER)
    return mix(np.asarray(key, dtype=np.uint64) ^ p ^ c)


def below(x: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """Uniform integers in ``[0, n)`` from random words (multiply-shift, exact).

    Parameters
    ----------
    x : numpy.ndarray
        uint64 random words, shape (m,).
    n : numpy.ndarray or int
        Positive bounds below 2**32, broadcastable with ``x``.

    Returns
    -------
    numpy.ndarray
        int64, shape (m,).
    """
    return (((x >> _S32) * np.asarray(n).astype(np.uint64)) >> _S32).astype(np.int64)


def below_int(x: int, n: int) -> int:
    """Scalar twin of :func:`below`."""
    return ((x >> 32) * n) >> 32
