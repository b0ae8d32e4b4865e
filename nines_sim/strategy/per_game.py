"""Strategies in plain Python, one game at a time, through the same batch engine.

Subclass :class:`PerGameStrategy` and implement :meth:`~PerGameStrategy.choose_card`
and :meth:`~PerGameStrategy.choose_suit` over a small read-only :class:`GameView`
with cards as names ("9S", "10H").  The adapter loops over the games of each
batched decision in Python, so it is slower than a batched strategy (the
README gives the measured cost per decision) but needs no numpy.
"""

from __future__ import annotations

import random
from abc import abstractmethod

import numpy as np

from nines_sim.game.cards import SUIT_NAMES, card_name, parse_card
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy

#: What ``choose_card`` returns to play two 9s together (V4).
PAIR = "PAIR"


_NAMES = tuple(card_name(f) for f in range(52))
_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)


def _card_lists(words: np.ndarray) -> list[tuple[str, ...]]:
    """Card names of each of a batch of bitmasks: (n,) uint64 -> n tuples."""
    bits = (words[:, None] & _BITS) != 0
    names = [_NAMES[f] for f in np.nonzero(bits)[1].tolist()]
    ends = np.cumsum(bits.sum(axis=1)).tolist()
    out, start = [], 0
    for end in ends:
        out.append(tuple(names[start:end]))
        start = end
    return out


class _Batch:
    """The batch behind a list of views; each field is converted for all games on first use."""

    def __init__(self, obs: Observation):
        self.obs = obs
        self.cache: dict[str, list] = {}

    def get(self, name: str) -> list:
        if name not in self.cache:
            self.cache[name] = getattr(self, "_" + name)()
        return self.cache[name]

    def _hand(self) -> list:
        lists = [_card_lists(w) for w in self.obs.hand]
        if len(lists) == 1:
            return lists[0]
        return [tuple(sorted(a + b, key=parse_card)) for a, b in zip(*lists)]

    def _legal(self) -> list:
        return _card_lists(self.obs.legal)

    def _played(self) -> list:
        return [frozenset(x) for x in _card_lists(self.obs.played)]

    def _drew_on(self) -> list:
        return [tuple(frozenset(SUIT_NAMES[s] for s in range(4) if (d >> s) & 1) for d in row)
                for row in self.obs.drew_on.tolist()]  # fmt: skip

    def _words(self) -> list:
        return self.obs.random(salt=7).tolist()


class GameView:
    """One game as the deciding player sees it: own hand and public information only.

    Read-only; each field is computed on first use.

    Attributes
    ----------
    seat : int
        The deciding player's seat, 0..P-1 (seats run clockwise).
    hand : tuple of str
        Own cards, e.g. ``("2C", "9S", "KH")`` (a card twice under a double deck).
    legal : tuple of str
        Cards that may be played now (for ``play_drawn_card``: the drawn card; empty for ``choose_suit``).
    pair_legal : bool
        Whether two 9s together are a legal move (V4).
    top : str
        Top card of the discard pile.
    active_suit : str
        Suit to follow: ``"C"``, ``"D"``, ``"H"`` or ``"S"`` (the declared suit on a 9).
    hand_sizes, totals : tuple of int
        Cards in each seat's hand; each seat's running total in points.
    stock_size, dealer, direction, players : int
        Cards in the stock; the dealer's seat; +1 clockwise, -1 reversed (V3); seats.
    played : frozenset of str
        Cards played to the discard pile so far this hand (the starter included).
    drew_on : tuple of frozenset of str
        Per seat, the active suits on which that player had to draw this hand.
    nine_penalty : int
        Points of a 9 left in hand.
    rng : random.Random
        A generator seeded from this decision's own counter-based stream (reproducible).
    """

    __slots__ = ("_b", "_j")

    def __init__(self, batch: _Batch, j: int):
        self._b, self._j = batch, j

    def __setattr__(self, name: str, value: object) -> None:
        if name in GameView.__slots__ and not hasattr(self, name):
            object.__setattr__(self, name, value)
        else:
            raise AttributeError("a GameView is read-only")

    @property
    def seat(self) -> int:
        return int(self._b.obs.seat[self._j])

    @property
    def hand(self) -> tuple[str, ...]:
        return self._b.get("hand")[self._j]

    @property
    def legal(self) -> tuple[str, ...]:
        return self._b.get("legal")[self._j]

    @property
    def pair_legal(self) -> bool:
        return bool(self._b.obs.pair_legal[self._j])

    @property
    def top(self) -> str:
        return _NAMES[int(self._b.obs.top[self._j])]

    @property
    def active_suit(self) -> str:
        return SUIT_NAMES[int(self._b.obs.active_suit[self._j])]

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(self._b.obs.hand_sizes[self._j].tolist())

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(self._b.obs.totals[self._j].tolist())

    @property
    def stock_size(self) -> int:
        return int(self._b.obs.stock_size[self._j])

    @property
    def dealer(self) -> int:
        return int(self._b.obs.dealer[self._j])

    @property
    def direction(self) -> int:
        return int(self._b.obs.direction[self._j])

    @property
    def players(self) -> int:
        return self._b.obs.players

    @property
    def played(self) -> frozenset[str]:
        return self._b.get("played")[self._j]

    @property
    def drew_on(self) -> tuple[frozenset[str], ...]:
        return self._b.get("drew_on")[self._j]

    @property
    def nine_penalty(self) -> int:
        return self._b.obs.nine_penalty

    @property
    def rng(self) -> random.Random:
        return random.Random(self._b.get("words")[self._j])

    def __repr__(self) -> str:
        return f"GameView(seat={self.seat}, hand={self.hand}, legal={self.legal}, top={self.top!r})"


def views(obs: Observation) -> list[GameView]:
    """One :class:`GameView` per game of a batched observation."""
    batch = _Batch(obs)
    return [GameView(batch, j) for j in range(obs.n)]


class PerGameStrategy(Strategy):
    """Base class of a plain-Python strategy deciding one game at a time.

    Implement :meth:`choose_card` and :meth:`choose_suit`; override
    :meth:`play_drawn_card` to keep a legal drawn card (default: play it).
    Set ``name`` and ``classifier`` as for any strategy.
    """

    @abstractmethod
    def choose_card(self, view: GameView) -> str:
        """A card name from ``view.legal`` (or :data:`PAIR` where ``view.pair_legal``)."""

    @abstractmethod
    def choose_suit(self, view: GameView) -> str:
        """The suit to declare with a 9: ``"C"``, ``"D"``, ``"H"`` or ``"S"``."""

    def play_drawn_card(self, view: GameView, card: str) -> bool:
        """Whether to play the legal card just drawn (T4)."""
        return True

    def play(self, obs: Observation) -> np.ndarray:
        out = []
        for v in views(obs):
            answer = self.choose_card(v)
            if not (answer in v.legal or (answer == PAIR and v.pair_legal)):
                raise ValueError(f"choose_card returned {answer!r}, not one of the legal cards {list(v.legal)}")
            out.append(_move(answer))
        return np.array(out, dtype=np.int64)

    def declare(self, obs: Observation) -> np.ndarray:
        out = []
        for v in views(obs):
            answer = self.choose_suit(v)
            if _suit(answer) < 0:
                raise ValueError(f"choose_suit returned {answer!r}, not one of 'C', 'D', 'H', 'S'")
            out.append(_suit(answer))
        return np.array(out, dtype=np.int64)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        out = []
        for v, c in zip(views(obs), card):
            answer = self.play_drawn_card(v, card_name(int(c)))
            if not isinstance(answer, bool | np.bool_):
                raise ValueError(f"play_drawn_card returned {answer!r}, not True or False")
            out.append(bool(answer))
        return np.array(out, dtype=bool)


def _move(answer: str) -> int:
    return PAIR_OF_NINES if answer == PAIR else parse_card(answer)


def _suit(answer: str) -> int:
    a = str(answer).strip().upper()
    return SUIT_NAMES.index(a) if a in SUIT_NAMES else -1
