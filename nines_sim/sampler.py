"""Sample the hidden cards: complete positions consistent with what one player may see.

From an :class:`~nines_sim.strategy.Observation` only (the deciding player's
hand and public information), :func:`sample_positions` deals the unseen cards
(the deck less the own hand, the discard pile and its top card) uniformly into
the other seats' hands, whose sizes are public, and the stock, whose size is
public.  Every sample is a pure function of the decision's random stream, so
the same decision draws the same samples in any batch or process.

Not used (yet): what reshuffles reveal (the cards of a pile reshuffled into the
stock this hand are in the stock or were drawn since) and what draws reveal (a
player who drew while a suit was active held no legal card then, T1).  Both only
sharpen the sampler; ignoring them keeps it consistent with the public sizes.
"""

from __future__ import annotations

import numpy as np

from nines_sim import rng
from nines_sim.cards import N_FACES
from nines_sim.position import PositionBatch
from nines_sim.strategy import Observation

ONE = np.uint64(1)
#: Stream purposes of the sampler, under the decision root (see :mod:`nines_sim.rng`).
SAMPLE_CARDS = 40
SAMPLE_KEYS = 41


def _count_words(words: list[np.ndarray]) -> np.ndarray:
    """Copies of each face in count-coded words of shape (n,): int64, (n, 52)."""
    bits = np.arange(N_FACES, dtype=np.uint64)
    out = np.zeros((words[0].shape[0], N_FACES), dtype=np.int64)
    for w in words:
        out += ((w[:, None] >> bits) & ONE).astype(np.int64)
    return out


def sample_positions(obs: Observation, samples: int, salt: int = 0) -> PositionBatch:
    """``samples`` complete positions per game of an observation, at the deciding seat's turn.

    Parameters
    ----------
    obs : Observation
        Of ``n`` games; it must show the discard pile (:attr:`Observation.pile`).
    samples : int
        Positions per game, K >= 1.
    salt : int
        Picks an independent set of samples for the same decision (0..63).

    Returns
    -------
    PositionBatch
        ``n * K`` positions, game-major (row ``g * K + k``).  The own seat's hand,
        the discard pile, the top card, the sizes, the totals and the public
        history are the observation's; the other hands and the stock are sampled;
        ``seat`` is the deciding seat.  The card and decision keys of sample
        ``k`` of a game are the same for every call with the same ``salt``
        (common random numbers across candidate moves).

    Raises
    ------
    ValueError
        If the unseen cards do not fill the public hand sizes and stock size
        (an observation that no deal could produce).
    """
    if samples < 1:
        raise ValueError(f"samples must be >= 1, not {samples}")
    rules = obs._pub.rules
    n, K, P, D = obs.n, samples, obs.players, rules.decks
    S = N_FACES * D
    R = n * K
    g = np.repeat(np.arange(n), K)
    k = np.tile(np.arange(K, dtype=np.uint64), n)
    pile = obs.pile
    known = _count_words(list(obs.hand)) + _count_words(pile)
    known[np.arange(n), obs.top] += 1
    unseen = D - known  # copies of each face not seen by the player, (n, 52)
    if (unseen < 0).any():
        raise ValueError("the observation shows a card more often than the decks hold")
    ids = np.arange(S)
    is_unseen = (ids[None, :] // N_FACES) < unseen[:, ids % N_FACES]  # (n, S): copy c of face f is unseen
    base = obs.random(salt)
    keys = rng.stream(base[g, None], SAMPLE_CARDS, k[:, None] * np.uint64(S) + ids[None, :].astype(np.uint64))
    keys = np.where(is_unseen[g], keys, np.uint64((1 << 64) - 1))
    order = np.argsort(keys, axis=1, kind="stable")  # unseen cards first, in a random order
    sizes = obs.hand_sizes[g].copy()
    seat = obs.seat[g]
    sizes[np.arange(R), seat] = 0  # the own hand is known
    stock_size = obs.stock_size[g]
    dealt = sizes.sum(axis=1)
    if not np.array_equal(is_unseen.sum(axis=1)[g], dealt + stock_size):
        raise ValueError("the unseen cards do not match the public hand sizes and stock size")
    cum = np.cumsum(sizes, axis=1)  # (R, P)
    owner = (np.arange(S)[None, :, None] >= cum[:, None, :]).sum(axis=2)  # (R, S): seat, or P for the stock
    faces = order % N_FACES
    copy = order // N_FACES
    hands = [np.zeros((R, P), dtype=np.uint64) for _ in range(D)]
    bits = ONE << faces.astype(np.uint64)
    for s in range(P):
        mine = owner == s
        words = [np.bitwise_or.reduce(np.where(mine & (copy == d), bits, np.uint64(0)), axis=1) for d in range(D)]
        if D == 1:
            hands[0][:, s] = words[0]
        else:
            hands[0][:, s] = words[0] | words[1]
            hands[1][:, s] = words[0] & words[1]
    for d in range(D):
        hands[d][np.arange(R), seat] = obs.hand[d][g]
    col = dealt[:, None] + np.arange(S)[None, :]
    stock = np.take_along_axis(faces, np.minimum(col, S - 1), axis=1)
    stock = np.where(np.arange(S)[None, :] < stock_size[:, None], stock, 0).astype(np.int8)

    def pub(name: str) -> np.ndarray:
        return obs.public(name)[g]

    ctr = k * np.uint64(4)
    a: dict[str, object] = {
        "hands": hands,
        "under": [w[g] for w in pile],
        "stock": stock,
        "stock_pos": np.zeros(R, dtype=np.int64),
        "stock_end": stock_size.astype(np.int64),
        "top": obs.top[g],
        "active": obs.active_suit[g],
        "seat": seat,
        "dealer": obs.dealer[g],
        "dirbit": pub("dirbit").astype(np.int64),
        "seats_mask": pub("seats_mask").astype(np.int64),
        "n_in": obs.in_hand[g].sum(axis=1).astype(np.int64),
        "totals": obs.totals[g],
        "ncards": obs.hand_sizes[g],
        "drew_on": obs.drew_on[g],
        "played": obs.played[g],
        "turn": pub("turn"),
        "streak": pub("streak"),
        "drawn": pub("drawn"),
        "reshuffles": pub("reshuffles"),
        "in_tb": pub("in_tb").astype(bool),
        "hands_played": pub("hands_played"),
        "tb_hands": pub("tb_hands"),
        "hand_seq": pub("hands_played") + pub("tb_hands") + 1,
        "nine_starter": np.zeros(R, dtype=bool),
        "first_dealer": obs.dealer[g],
        "match": np.arange(R, dtype=np.int64),
        "hkey": rng.stream(base[g], SAMPLE_KEYS, ctr),
        "dkey": rng.stream(base[g], SAMPLE_KEYS, ctr + np.uint64(1)),
        "mkey": rng.stream(base[g], SAMPLE_KEYS, ctr + np.uint64(2)),
        "dmkey": rng.stream(base[g], SAMPLE_KEYS, ctr + np.uint64(3)),
    }
    return PositionBatch(rules, a)
