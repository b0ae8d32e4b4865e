"""The strategy interface: batched decisions over a public-information view.

A strategy decides for many games at once.  The engine hands it an
:class:`Observation` of the games where a seat it plays is to decide, and it
returns one answer per game as a numpy array.  The observation exposes the
deciding player's own hand and public information only, never another hand or
the order of the stock.  Each decision comes with its own counter-based random
stream (:meth:`Observation.random`), so a strategy needs no generator of its own
and its choices are reproducible whatever the batch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import IntEnum
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from nines_sim import rng
from nines_sim.cards import FACE_SUIT, NINE_RANK, NINES, SUIT_MASK
from nines_sim.params import Param, check_values, defaults
from nines_sim.params import label as param_label

if TYPE_CHECKING:
    from nines_sim.engine import BatchEngine

#: Move code of "two 9s together" (V4), returned by :meth:`Strategy.play` in place of a face.
PAIR_OF_NINES = 52


class DecisionKind(IntEnum):
    """The kinds of decision; each has its own random stream family."""

    PLAY = 0
    DECLARE = 1
    PLAY_DRAWN = 2
    DEALER_DECLARE = 3


class Observation:
    """What the deciding players may see, for ``n`` games of a batch (lazy views).

    Attributes are computed on first use from the engine's state, so a strategy
    pays only for what it reads.  Every array has a leading axis of length ``n``.

    Attributes
    ----------
    n : int
        Number of games in this decision.
    seat : numpy.ndarray
        int64, (n,): the deciding player's seat, 0..P-1.
    hand : list of numpy.ndarray
        ``D`` uint64 arrays, (n,): the player's own hand, count-coded
        (:mod:`nines_sim.cards`); ``hand[0]`` is the set of faces held.
    held : numpy.ndarray
        uint64, (n,): faces held (``hand[0]``).
    legal : numpy.ndarray
        uint64, (n,): faces the player may play now (T1, V5, V6); set for
        ``play`` decisions, the drawn card's bit for ``play_drawn``, 0 for ``declare``.
    pair_legal : numpy.ndarray
        bool, (n,): whether two 9s together are a legal move now (V4).
    top : numpy.ndarray
        int64, (n,): face on top of the discard pile.
    active_suit : numpy.ndarray
        int64, (n,): suit to follow, 0..3 (the declared suit when a 9 is on top).
    hand_sizes : numpy.ndarray
        int64, (n, P): cards in each seat's hand (0 for a seat out of a tie-break hand).
    totals : numpy.ndarray
        int64, (n, P): running totals in points.
    stock_size : numpy.ndarray
        int64, (n,): cards left in the stock.
    dealer : numpy.ndarray
        int64, (n,): the seat that dealt this hand.
    direction : numpy.ndarray
        int64, (n,): +1 clockwise, -1 after a reverse (V3).
    in_hand : numpy.ndarray
        bool, (n, P): seats dealt into this hand (all, except in a tie-break hand).
    played : numpy.ndarray
        uint64, (n,): faces played to the discard pile so far this hand, the starter included.
    drew_on : numpy.ndarray
        int64, (n, P): per seat, bit ``s`` set when that player had to draw
        while suit ``s`` was active this hand (public: everyone saw it).
    players : int
        Seats at the table, P.
    nine_penalty : int
        Points of a 9 left in hand under these rules.
    """

    def __init__(self, engine: BatchEngine, idx: np.ndarray, seat: np.ndarray, kind: DecisionKind):
        self._e = engine
        self.idx = idx
        self.seat = seat
        self.kind = kind
        self.n = int(idx.shape[0])
        self.players = engine.rules.players
        self.nine_penalty = engine.rules.nine_penalty
        self._cache: dict[str, Any] = {}

    def _get(self, name: str, fn) -> Any:  # noqa: ANN001 - tiny memo helper
        if name not in self._cache:
            self._cache[name] = fn()
        return self._cache[name]

    @property
    def hand(self) -> list[np.ndarray]:
        e = self._e
        return self._get("hand", lambda: [w[self.idx, self.seat] for w in e.hands])

    @property
    def held(self) -> np.ndarray:
        return self.hand[0]

    @property
    def legal(self) -> np.ndarray:
        return self._get("legal", lambda: np.zeros(self.n, dtype=np.uint64))

    @property
    def pair_legal(self) -> np.ndarray:
        return self._get("pair_legal", lambda: self._e.pair_legal(self.idx, self.seat))

    @property
    def top(self) -> np.ndarray:
        return self._get("top", lambda: self._e.top[self.idx])

    @property
    def active_suit(self) -> np.ndarray:
        return self._get("active", lambda: self._e.active[self.idx])

    @property
    def hand_sizes(self) -> np.ndarray:
        return self._get("sizes", lambda: self._e.ncards[self.idx].astype(np.int64))

    @property
    def totals(self) -> np.ndarray:
        return self._get("totals", lambda: self._e.totals[self.idx].astype(np.int64))

    @property
    def stock_size(self) -> np.ndarray:
        e = self._e
        return self._get("stock", lambda: (e.stock_end[self.idx] - e.stock_pos[self.idx]).astype(np.int64))

    @property
    def dealer(self) -> np.ndarray:
        return self._get("dealer", lambda: self._e.dealer[self.idx])

    @property
    def direction(self) -> np.ndarray:
        return self._get("direction", lambda: 1 - 2 * self._e.dirbit[self.idx])

    @property
    def in_hand(self) -> np.ndarray:
        e = self._e
        return self._get("in_hand", lambda: ((e.seats_mask[self.idx, None] >> np.arange(self.players)) & 1) == 1)

    @property
    def played(self) -> np.ndarray:
        return self._get("played", lambda: self._e.played[self.idx])

    @property
    def drew_on(self) -> np.ndarray:
        return self._get("drew_on", lambda: self._e.drew_on[self.idx].astype(np.int64))

    def random(self, salt: int = 0) -> np.ndarray:
        """Random words for this decision, one per game: uint64, shape (n,).

        The stream is keyed by (seed, match, hand, turn, decision kind, ``salt``);
        use a different ``salt`` for each independent draw within one decision.
        """
        e = self._e
        key = e.hkey[self.idx]
        counter = e.turn[self.idx].astype(np.uint64) * np.uint64(64) + np.uint64(salt)
        return rng.stream(key, rng.DECISION + int(self.kind), counter)

    def random_below(self, n: np.ndarray | int, salt: int = 0) -> np.ndarray:
        """Uniform integers in ``[0, n)``: int64, shape (n,)."""
        return rng.below(self.random(salt), n)

    def suit_counts(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Physical cards of each suit in the own hand (restricted to ``mask`` faces).

        Returns
        -------
        numpy.ndarray
            int64, shape (n, 4).
        """
        out = np.zeros((self.n, 4), dtype=np.int64)
        for w in self.hand:
            ww = w if mask is None else w & mask
            for s in range(4):
                out[:, s] += np.bitwise_count(ww & SUIT_MASK[s])
        return out


class Strategy(ABC):
    """Base class of every strategy: batched decisions.

    Subclasses set ``name`` (the registry name, e.g. ``"hold-nines"``), a
    ``classifier`` dict, and implement :meth:`play` and :meth:`declare`;
    :meth:`play_drawn` defaults to always playing a legal drawn card.

    Classifier keys: ``stochastic`` (uses its random stream),
    ``uses_public_history`` (reads ``played`` or ``drew_on``),
    ``plays_pair_of_nines`` (may return :data:`PAIR_OF_NINES`).
    """

    name: ClassVar[str] = ""
    classifier: ClassVar[dict[str, bool]] = {
        "stochastic": True,
        "uses_public_history": False,
        "plays_pair_of_nines": False,
    }
    #: What a user or ``nines tune`` may change (:class:`nines_sim.params.Param`); each becomes an
    #: instance attribute of the same name, at its default unless given to ``__init__``.
    params: ClassVar[tuple[Param, ...]] = ()
    #: The parameter values given (not the defaults), in declaration order.
    values: dict[str, Any]

    def __init__(self, **values: Any) -> None:
        """Set the declared parameters: ``values`` over the defaults.

        Raises
        ------
        nines_sim.params.ParamError
            For an unknown name, a value of the wrong type or outside the bounds,
            or any value given to a strategy that declares no parameters.
        """
        self.values = check_values(type(self), values, self.name or type(self).__name__)
        for k, v in (defaults(type(self)) | self.values).items():
            setattr(self, k, v)

    @property
    def label(self) -> str:
        """The name shown in tables and charts, with the values given: ``expert(w_follow=2.5)``."""
        return param_label(self.name, getattr(self, "values", {}))

    @abstractmethod
    def play(self, obs: Observation) -> np.ndarray:
        """Choose a move for each game, where at least one is legal (T2).

        Parameters
        ----------
        obs : Observation
            ``obs.legal`` (uint64, (n,)) is non-zero in every game.

        Returns
        -------
        numpy.ndarray
            integer, shape (n,): a face set in ``obs.legal``, or
            :data:`PAIR_OF_NINES` where ``obs.pair_legal`` (V4).
        """

    @abstractmethod
    def declare(self, obs: Observation) -> np.ndarray:
        """Choose the suit to declare with a 9 just played, or at a 9 starter (T3, D6).

        Returns
        -------
        numpy.ndarray
            integer, shape (n,): suits 0..3 (clubs, diamonds, hearts, spades).
        """

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        """Whether to play the card just drawn, which is legal (T4).

        Parameters
        ----------
        obs : Observation
        card : numpy.ndarray
            int64, shape (n,): the drawn face (already in ``obs.hand``).

        Returns
        -------
        numpy.ndarray
            bool, shape (n,).
        """
        return np.ones(obs.n, dtype=bool)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.label!r})"


def is_nine(face: np.ndarray) -> np.ndarray:
    """Whether each face is a 9: bool, same shape."""
    return (np.asarray(face) % 13) == NINE_RANK


def natural_legal(obs: Observation) -> np.ndarray:
    """Legal faces that are not 9s: uint64, shape (n,)."""
    return obs.legal & np.uint64(~NINES & ((1 << 64) - 1))


def uniform_suit(obs: Observation) -> np.ndarray:
    """A uniformly random suit per game: int64, shape (n,)."""
    return obs.random_below(4, salt=1)


__all__ = [
    "PAIR_OF_NINES",
    "DecisionKind",
    "Observation",
    "Strategy",
    "FACE_SUIT",
    "is_nine",
    "natural_legal",
    "uniform_suit",
]
