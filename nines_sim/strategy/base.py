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
from typing import Any, ClassVar

import numpy as np

from nines_sim.engine.slots import PUBLIC
from nines_sim.game import rng
from nines_sim.game.cards import FACE_SUIT, NINE_RANK, NINES, SUIT_MASK
from nines_sim.game.codes import PAIR_OF_NINES, DecisionKind  # noqa: F401 - part of the strategy interface
from nines_sim.game.rules import Rules
from nines_sim.strategy.params import Param, check_values, defaults
from nines_sim.strategy.params import label as param_label

U64_NINES = np.uint64(NINES)


class PublicState:
    """Read-only views of a batch's public per-game arrays, from which an :class:`Observation` computes its fields.

    It holds public information only: no seat's hand, no stock order, no card
    key.  The engine builds one for each decision; the views show its state
    during that decision (read an observation's fields within the call that
    received it).

    Parameters
    ----------
    rules : Rules
        The rules of the run.
    legal_tab : numpy.ndarray
        uint64, (52 * 4,): faces playable on each ``top * 4 + active_suit`` (T1, V6).
    **arrays : numpy.ndarray
        The batch's ``top, active, dealer, dirbit, seats_mask, played, turn,
        stock_pos, stock_end`` (shape (B,)), ``ncards, totals, drew_on`` (shape
        (B, P)) and ``dkey`` (uint64, (B,): the decision hand key, see
        :mod:`nines_sim.game.rng`).
    """

    #: The public fields of the slot state's declaration (:data:`nines_sim.engine.slots.STATE`).
    ARRAYS = PUBLIC
    __slots__ = ("rules", "legal_tab", "under", *ARRAYS)

    def __init__(self, rules: Rules, legal_tab: np.ndarray, under: list[np.ndarray] | None = None,
                 **arrays: np.ndarray):  # fmt: skip
        self.rules = rules
        self.legal_tab = read_only(legal_tab)
        # the discard pile below the top card is public: everyone saw each card played onto it
        self.under = None if under is None else [read_only(w) for w in under]
        for name in self.ARRAYS:
            setattr(self, name, read_only(arrays[name]))

    def for_decision(self, dkey: np.ndarray) -> PublicState:
        """A state of one decision's own: these views (not built again), its own ``under`` list and ``dkey``.

        Parameters
        ----------
        dkey : numpy.ndarray
            uint64, (B,): the decision hand keys of this decision, an array no other decision shares.
        """
        own = object.__new__(PublicState)
        for name in self.__slots__:
            setattr(own, name, getattr(self, name))
        own.under = None if self.under is None else list(self.under)
        own.dkey = read_only(dkey)
        return own


def read_only(a: np.ndarray) -> np.ndarray:
    """A read-only view of ``a`` (any shape and dtype): a strategy's reading cannot write into the engine's array."""
    v = a.view()
    v.flags.writeable = False
    return v


def pair_legal(hand: list[np.ndarray], top: np.ndarray, active: np.ndarray, count: np.ndarray, rules: Rules,
               legal_tab: np.ndarray) -> np.ndarray:  # fmt: skip
    """Whether two 9s together are a legal move (V4, V5): bool, (n,), the engine's answer
    (:func:`nines_sim.engine.legality.pair_legal_rows`, the turn loop's own rule; the same parameters)."""
    if not rules.pair_of_nines:  # spares loading the compiled engine under most rules
        return np.zeros(top.shape[0], dtype=bool)
    from nines_sim.engine.legality import pair_legal_rows

    return pair_legal_rows(hand, top, active, count, rules, legal_tab)


class Observation:
    """What the deciding players may see, for ``n`` games of a batch.

    The own hand and the legal moves are given; the other fields are computed
    on first use from a :class:`PublicState`, so a strategy pays only for what
    it reads.  An observation offers these fields only: it holds no reference to
    the engine, to another seat's hand, to the stock or to a card key.  Every
    array has a leading axis of length ``n``.

    Attributes
    ----------
    n : int
        Number of games in this decision.
    seat : numpy.ndarray
        int64, (n,): the deciding player's seat, 0..P-1.
    kind : DecisionKind
        What is being decided.
    hand : list of numpy.ndarray
        ``D`` uint64 arrays, (n,): the player's own hand, count-coded
        (:mod:`nines_sim.game.cards`); ``hand[0]`` is the set of faces held.
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
    rules : Rules
        The rule set these games are played under (public: every player knows it).
    """

    __slots__ = ("n", "seat", "kind", "hand", "legal", "players", "nine_penalty", "_pub", "_idx", "_cache")

    def __init__(
        self,
        public: PublicState,
        idx: np.ndarray,
        seat: np.ndarray,
        kind: DecisionKind,
        hand: list[np.ndarray],
        legal: np.ndarray | None = None,
    ):
        self._pub = public
        self._idx = idx
        self._cache: dict[str, Any] = {}
        self.seat = seat
        self.kind = kind
        self.n = int(idx.shape[0])
        self.hand = hand
        self.legal = legal if legal is not None else np.zeros(self.n, dtype=np.uint64)
        self.players = public.rules.players
        self.nine_penalty = public.rules.nine_penalty

    def _get(self, name: str, fn) -> Any:  # noqa: ANN001 - tiny memo helper
        if name not in self._cache:
            self._cache[name] = fn()
        return self._cache[name]

    def _col(self, name: str) -> np.ndarray:
        """This decision's rows of one public array (a copy)."""
        return self._get(name, lambda: getattr(self._pub, name)[self._idx])

    @property
    def rules(self) -> Rules:
        """The rule set of these games (:class:`nines_sim.game.rules.Rules`): public, every player knows it."""
        return self._pub.rules

    def subset(self, rows: np.ndarray) -> Observation:
        """An observation of some of these games, e.g. to decide a part of them another way.

        Parameters
        ----------
        rows : numpy.ndarray
            int64, (m,): positions in ``0..n-1`` of the games to keep, in the order wanted.

        Returns
        -------
        Observation
            The same decision for those ``m`` games: own hand, legal moves and public fields
            of the chosen rows; its random stream is the one those games have here.
        """
        return Observation(self._pub, self._idx[rows], self.seat[rows], self.kind, [w[rows] for w in self.hand],
                           self.legal[rows])  # fmt: skip

    @property
    def held(self) -> np.ndarray:
        return self.hand[0]

    @property
    def pair_legal(self) -> np.ndarray:
        p = self._pub
        if not p.rules.pair_of_nines:  # spare the gathers below under most rules
            return self._get("pair_legal", lambda: np.zeros(self.n, dtype=bool))
        own_count = self.hand_sizes[np.arange(self.n), self.seat]
        return self._get(
            "pair_legal", lambda: pair_legal(self.hand, self.top, self.active_suit, own_count, p.rules, p.legal_tab)
        )

    @property
    def top(self) -> np.ndarray:
        return self._col("top")

    @property
    def active_suit(self) -> np.ndarray:
        return self._col("active")

    @property
    def hand_sizes(self) -> np.ndarray:
        return self._col("ncards")

    @property
    def totals(self) -> np.ndarray:
        return self._col("totals")

    @property
    def stock_size(self) -> np.ndarray:
        return self._get("stock", lambda: self._col("stock_end") - self._col("stock_pos"))

    @property
    def dealer(self) -> np.ndarray:
        return self._col("dealer")

    @property
    def direction(self) -> np.ndarray:
        return self._get("direction", lambda: 1 - 2 * self._col("dirbit"))

    @property
    def in_hand(self) -> np.ndarray:
        return self._get("in_hand", lambda: ((self._col("seats_mask")[:, None] >> np.arange(self.players)) & 1) == 1)

    @property
    def played(self) -> np.ndarray:
        return self._col("played")

    @property
    def drew_on(self) -> np.ndarray:
        return self._col("drew_on")

    @property
    def pile(self) -> list[np.ndarray]:
        """The discard pile below the top card, count-coded: ``D`` uint64 arrays, (n,).

        Public: every card in it was played face up.

        Raises
        ------
        AttributeError
            If the engine that built this observation does not show the pile.
        """
        if self._pub.under is None:
            raise AttributeError("this observation does not show the discard pile")
        return self._get("pile", lambda: [w[self._idx] for w in self._pub.under])

    def public(self, name: str) -> np.ndarray:
        """This decision's rows of any public array of :class:`PublicState` (e.g. ``"streak"``, ``"in_tb"``): a copy."""
        if name not in PublicState.ARRAYS:
            raise AttributeError(f"no public array {name!r}; public arrays: {', '.join(PublicState.ARRAYS)}")
        return self._col(name)

    def random(self, salt: int = 0) -> np.ndarray:
        """Random words for this decision, one per game: uint64, shape (n,).

        The stream is keyed by (match, hand, turn, decision kind, ``salt``) under
        the run's decision root, which is independent of the cards (see
        :mod:`nines_sim.game.rng`); use a different ``salt`` (0..63) for each
        independent draw within one decision.
        """
        counter = self._col("turn").astype(np.uint64) * np.uint64(64) + np.uint64(salt)
        return rng.stream(self._col("dkey"), rng.DECISION + int(self.kind), counter)

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
        for w in self.hand:  # each word's four suits at once: (n, 1) & (4,)
            ww = w if mask is None else w & mask
            out += np.bitwise_count(ww[:, None] & SUIT_MASK)
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
    #: The turn loop's id of this exact class's compiled twin (``nines_sim.strategies.*_compiled``), or None:
    #: its seats decide in Python.  Read from the class that declares it only (a subclass may decide otherwise).
    kernel_id: ClassVar[int | None] = None
    #: What a user or ``nines tune`` may change (:class:`nines_sim.strategy.params.Param`); each becomes an
    #: instance attribute of the same name, at its default unless given to ``__init__``.
    params: ClassVar[tuple[Param, ...]] = ()
    #: The parameter values given (not the defaults), in declaration order.
    values: dict[str, Any]

    def __init__(self, **values: Any) -> None:
        """Set the declared parameters: ``values`` over the defaults.

        Raises
        ------
        nines_sim.strategy.params.ParamError
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
