"""The person's seat: a strategy whose decisions come from a callback, seeing what any seat sees.

:class:`PersonSeat` is one more :class:`~nines_sim.strategy.base.Strategy` at the
table: the engine asks it through the same :class:`~nines_sim.strategy.base.Observation`
as every other seat, so the person sees their own hand and public information
only, and the opponents see the person only through theirs.  Each decision is
turned into a :class:`Request` (plain values, card faces as ints) and answered
by the saved decisions first, then by a callback (the terminal program, or a
test's script).  :func:`refusal` says which rule forbids an answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.game.cards import (
    FACE_RANK,
    FACE_SUIT,
    NINE_RANK,
    NINES,
    RANK_NAMES,
    SUIT_SYMBOLS,
    card_name,
    hand_faces,
)
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table
from nines_sim.play.saved import PERSON, Key
from nines_sim.strategy.base import PAIR_OF_NINES, DecisionKind, Observation, Strategy

if TYPE_CHECKING:
    from nines_sim.play.tutor import TutorWarning

#: What a callback answers to ask for the search's ranking of the moves (``?``) instead of a move.
HINT = -100


class Stop(BaseException):  # noqa: N818 - a signal, like KeyboardInterrupt, not an error
    """Raised by a callback to stop the match where it is (``q``, Ctrl-C); the engine lets it through."""


@dataclass(frozen=True)
class Request:
    """One decision of the person, as plain values.

    Attributes
    ----------
    kind : DecisionKind
    hand, turn : int
        Hand of the match (every hand dealt, from 0) and turn of the hand (from 0): the decision's key.
    seat : int
        The person's seat.
    cards : tuple of int
        Faces in hand, sorted by suit then rank (a face twice under two decks).
    legal : tuple of int
        Faces that may be played (``play``), the drawn face (``play_drawn``), none (declarations).
    pair_legal : bool
        Whether two 9s together may be played (V4).
    drawn : int
        The face just drawn (``play_drawn``), else -1.
    top, active : int
        Top face of the discard pile; active suit 0..3 (T1).
    sizes, totals : tuple of int
        Cards in each seat's hand; running totals (S1).
    stock, dealer, players : int
    events : tuple of tuple
        The match's public events so far (:func:`public_events`).
    hint : list of tuple, optional
        The search's ranking after a ``?``: (move, mean, low, high), best first.
    warning : nines_sim.play.tutor.TutorWarning, optional
        The tutor's warning (``--tutor``): the move chosen loses more than the person's threshold; choosing it
        again plays it.
    """

    kind: DecisionKind
    hand: int
    turn: int
    seat: int
    cards: tuple[int, ...]
    legal: tuple[int, ...]
    pair_legal: bool
    drawn: int
    top: int
    active: int
    sizes: tuple[int, ...]
    totals: tuple[int, ...]
    stock: int
    dealer: int
    players: int
    events: tuple[tuple, ...] = ()
    hint: list[tuple[int, float, float, float]] | None = field(default=None, compare=False)
    warning: TutorWarning | None = field(default=None, compare=False)

    @property
    def key(self) -> Key:
        return (self.hand, self.turn, self.kind)


def sort_key(face: int) -> tuple[int, int]:
    """Order of cards in a hand on screen: by suit (♣ ♦ ♥ ♠), then rank (A low)."""
    return int(FACE_SUIT[face]), int(FACE_RANK[face])


def decision_key(obs: Observation) -> Key:
    """(hand, turn, kind) of a one-game decision (hand counts every hand dealt, tie-break hands too)."""
    hand = int(obs.public("hands_played")[0] + obs.public("tb_hands")[0])
    return hand, int(obs.public("turn")[0]), DecisionKind(obs.kind)


def request_of(obs: Observation, card: np.ndarray | None, events: tuple[tuple, ...]) -> Request:
    """The :class:`Request` of a one-game decision."""
    hand, turn, kind = decision_key(obs)
    cards = tuple(sorted(hand_faces(np.array([w[0] for w in obs.hand])), key=sort_key))
    legal = tuple(f for f in cards if (int(obs.legal[0]) >> f) & 1) if kind != DecisionKind.PLAY_DRAWN else ()
    drawn = -1 if card is None else int(card[0])
    if drawn >= 0:
        legal = (drawn,)
    return Request(
        kind=kind, hand=hand, turn=turn, seat=int(obs.seat[0]), cards=cards, legal=tuple(dict.fromkeys(legal)),
        pair_legal=bool(obs.pair_legal[0]), drawn=drawn, top=int(obs.top[0]), active=int(obs.active_suit[0]),
        sizes=tuple(obs.hand_sizes[0].tolist()), totals=tuple(obs.totals[0].tolist()),
        stock=int(obs.stock_size[0]), dealer=int(obs.dealer[0]), players=obs.players, events=events,
    )  # fmt: skip


def refusal(req: Request, move: int, rules: Rules, name: Callable[[int], str] = card_name) -> str | None:
    """Why ``move`` may not answer ``req``, naming the RULES.md clause; None if it may.

    ``move`` is a face or :data:`PAIR_OF_NINES` for a play, a suit 0..3 for a
    declaration, 1 (play it) or 0 (keep it) for a drawn card.  ``name`` writes a card: ``7H`` as the saved
    file does (default), or ``7♥`` as the screen of ``nines play`` does.
    """
    if req.kind in (DecisionKind.DECLARE, DecisionKind.DEALER_DECLARE):
        clause = "T3" if req.kind == DecisionKind.DECLARE else "D6"
        return None if move in (0, 1, 2, 3) else f"{clause}: declare a suit first (c, d, h or s)"
    if req.kind == DecisionKind.PLAY_DRAWN:
        return None if move in (0, 1) else "T4: after a draw only the card drawn may be played (or kept)"
    # the engine's answer (req.legal, req.pair_legal) says whether; its table of plays on the top card says
    # which clause: a 9 the table allows on the top card but the legal set leaves out is a last 9 (V5)
    nine_on_top = bool(legal_table(rules)[req.top * 4 + req.active] & NINES)
    if move == PAIR_OF_NINES:
        if req.pair_legal:
            return None
        if not rules.pair_of_nines:
            return "V4: two 9s together are a move only under Double Nines (pair_of_nines)"
        if sum(FACE_RANK[f] == NINE_RANK for f in req.cards) < 2:
            return "V4: two 9s together need two 9s in hand"
        if nine_on_top:
            return "V5: a 9 may not be your last card"
        return V6_REFUSAL
    if move not in req.cards:
        return f"{name(move)} is not in your hand"
    if move in req.legal:
        return None
    top_nine = FACE_RANK[req.top] == NINE_RANK
    if FACE_RANK[move] == NINE_RANK:
        return "V5: a 9 may not be your last card" if nine_on_top else V6_REFUSAL
    suit = SUIT_SYMBOLS[req.active]
    if top_nine:
        why = f"a card of the declared suit {suit} or a 9 (the 9's printed suit does not count)"
    else:
        why = f"a card of the active suit {suit}, of the top card's rank ({RANK_NAMES[FACE_RANK[req.top]]}), or a 9"
    if rules.no_nine_out and len(req.cards) == 1:
        why += "; a 9 may not be the last card (V5)"
    return f"T1: {name(move)} does not follow {name(req.top)}: play {why}"


#: Why a 9 may not be played on a 9 (the engine's table has no 9 on the top card, V6).
V6_REFUSAL = "V6: a 9 may not answer a 9 under these rules (nine_on_nine=false)"

#: A callback: answers a request with a move, :data:`HINT`, or raises :class:`Stop`.
Ask = Callable[[Request], int]


class PersonSeat(Strategy):
    """The person at the table: each decision is answered from the saved decisions, else by ``answer``.

    Parameters
    ----------
    answer : callable
        ``answer(obs, card, pair) -> int``: the move of a one-game decision (the
        driver's, which looks up the saved decisions and asks the person).
    """

    name = PERSON
    classifier = {"stochastic": False, "uses_public_history": True, "plays_pair_of_nines": True,
                  "sees_hidden_cards": False}  # fmt: skip

    def __init__(self, answer: Callable[[Observation, np.ndarray | None, bool], int]):
        super().__init__()
        self._answer = answer
        self._pair_turn: Key | None = None  # the (hand, turn) where two 9s were just played together (V4)

    def _one(self, obs: Observation, card: np.ndarray | None = None) -> int:
        if obs.n != 1:
            raise ValueError(f"the person's seat decides one game at a time, not {obs.n}")
        key = decision_key(obs)
        pair = obs.kind == DecisionKind.DECLARE and self._pair_turn == key[:2]
        move = self._answer(obs, card, pair)
        if obs.kind == DecisionKind.PLAY:
            self._pair_turn = key[:2] if move == PAIR_OF_NINES else None
        return move

    def play(self, obs: Observation) -> np.ndarray:
        return np.array([self._one(obs)], dtype=np.int64)

    def declare(self, obs: Observation) -> np.ndarray:
        return np.array([self._one(obs)], dtype=np.int64)

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        return np.array([self._one(obs, card) == 1], dtype=bool)


def with_hint(req: Request, hint: list[tuple[int, float, float, float]]) -> Request:
    """The same request with the search's ranking attached."""
    return replace(req, hint=hint)
