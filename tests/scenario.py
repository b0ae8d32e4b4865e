"""Stacked-deck scenarios: one game set up card by card, then played turn by turn on the reference.

The game is the plain-Python reference (:mod:`nines_sim.game.reference`), the executable
specification of RULES.md: :func:`setup` loads a stacked position into a reference hand and
match, :class:`Scenario` plays one turn per :meth:`Scenario.advance` and shows the state as
one-game arrays (``e.seat[0]``, ``e.totals[0]``, ...), and the events are the reference's.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from nines_sim.game import reference as ref
from nines_sim.game.cards import N_FACES, SUIT_NAMES, parse_card, words_of
from nines_sim.game.codes import PAIR_OF_NINES, RUNNING
from nines_sim.game.rules import Rules


def cards(text: str) -> list[int]:
    """Faces of a space-separated list of card names ("9S AC 10H")."""
    return [parse_card(t) for t in text.split()]


class Scripted:
    """Plays a queue of answers, in order, and records what it saw.

    ``plays`` holds card names or "PAIR"; ``declares`` suit letters; ``drawn``
    booleans for play_drawn.  A queue that runs dry falls back to the lowest
    legal card / clubs / True.  It answers the reference's decisions
    (:func:`nines_sim.game.reference.Hand.strategy`: play, declare, play_drawn over a ``View``).
    """

    def __init__(self, plays: str = "", declares: str = "", drawn: list[bool] | None = None):
        self.plays = plays.split()
        self.declares = list(declares.replace(" ", ""))
        self.drawn = list(drawn or [])
        self.seen_legal: list[list[int]] = []
        self.seen_pair: list[bool] = []
        self.log: list[tuple] = []

    def play(self, view: ref.View) -> int:
        self.seen_legal.append(sorted(set(view.legal)))
        self.seen_pair.append(bool(view.pair_legal))
        if self.plays:
            t = self.plays.pop(0)
            move = PAIR_OF_NINES if t == "PAIR" else parse_card(t)
        else:
            move = min(view.legal)
        self.log.append(("play", view.seat, move))
        return move

    def declare(self, view: ref.View) -> int:
        suit = SUIT_NAMES.index(self.declares.pop(0)) if self.declares else 0
        self.log.append(("declare", view.seat, suit))
        return suit

    def play_drawn(self, view: ref.View, face: int) -> bool:
        yes = self.drawn.pop(0) if self.drawn else True
        self.log.append(("play_drawn", view.seat, face, yes))
        return yes

    def answers(self) -> tuple:
        """The (play, declare, play_drawn) functions a reference seat takes."""
        return (self.play, self.declare, self.play_drawn)


class Scenario:
    """One reference match in a stacked position, played a turn at a time.

    The state reads as one-game arrays, refreshed after every turn: ``seat``, ``top``,
    ``active``, ``dealer``, ``turn``, ``streak``, ``drawn`` (cards drawn on the last turn, V3 penalty draws too),
    ``reshuffles``, ``dirbit`` (1 when play runs counter-clockwise, V3), ``stock_pos``,
    ``stock_end``, ``in_tb``, ``seats_mask``, ``tb_hands``, shape (1,); ``ncards`` and
    ``totals``, shape (1, players); ``under``, one (1,) uint64 word per deck.  A test may
    write ``dealer[0]`` or ``in_tb[0]`` before a turn: it is taken into the match.
    """

    def __init__(self, match: ref.Match, hand: ref.Hand):
        self.rules = match.rules
        self.m = match
        self.h = hand
        self.events = match.events
        self.records: list[tuple[int, int]] = []  # (outcome, turns) per regular hand (S1)
        self._stock_end = len(hand.stock)
        self._drawn = 0
        self._refresh()

    # -- state as arrays
    def _refresh(self) -> None:
        h, m, P = self.h, self.m, self.rules.players
        self.seat = np.array([h.seat])
        self.top = np.array([h.top])
        self.active = np.array([h.active])
        self.dealer = np.array([h.dealer])
        self.turn = np.array([h.turns])
        self.streak = np.array([h.streak])
        self.drawn = np.array([self._drawn])
        self.reshuffles = np.array([h.reshuffles])
        self.dirbit = np.array([int(h.direction == -1)])
        self.stock_end = np.array([self._stock_end])
        self.stock_pos = np.array([self._stock_end - len(h.stock)])
        self.in_tb = np.array([m.tied is not None])
        self.seats_mask = np.array([sum(1 << p for p in h.parts)])
        self.tb_hands = np.array([m.tb_hands])
        self.ncards = np.array([[len(h.hands[p]) for p in range(P)]])
        self.totals = np.array([m.totals])
        self.under = [np.array([w], dtype=np.uint64) for w in words_of(h.pile[:-1], self.rules.decks)]

    def _take_writes(self) -> None:
        """A dealer or tie-break flag the test wrote into the arrays (S4 set-ups)."""
        self.h.dealer = self.m.dealer = int(self.dealer[0])
        if bool(self.in_tb[0]) and self.m.tied is None:
            self.m.tied = sorted(self.h.parts)

    # -- play
    def advance(self) -> np.ndarray:
        """One turn; at a hand's end score it (S1-S4) and deal the next hand unless the match is decided.

        Returns int64, shape (1,): RUNNING while the hand goes on, else its outcome
        (the seat out, BLOCKED or CAPPED).
        """
        if self.m.shares is not None:
            return np.array([RUNNING])
        self._take_writes()
        n_events = len(self.events)
        ended = self.h.step()
        self._drawn = sum(1 for x in self.events[n_events:] if x[0] in ("draw", "penalty_draw"))
        self._stock_end = next((x[1] for x in self.events[n_events:] if x[0] == "reshuffle"), self._stock_end)
        outcome = RUNNING
        if ended is not None:
            outcome, pen = ended
            if self.m.tied is None:
                self.records.append((outcome, self.h.turns))
            if not self.m.end_hand(outcome, pen):
                self.h = self.m.new_hand()
                self.h.deal()
                self.h.seat = self.h.next_seat(self.h.dealer, 1)  # D7
                self._stock_end = len(self.h.stock)
        self._refresh()
        return np.array([outcome])

    def card_counts(self) -> np.ndarray:
        """int64, shape (1, 52): where every copy of each face is, counted over hands, discard pile and stock."""
        counts = np.zeros((1, N_FACES), dtype=np.int64)
        for f in [f for hand in self.h.hands for f in hand] + self.h.pile + self.h.stock:
            counts[0, f] += 1
        return counts

    def results(self) -> SimpleNamespace:
        """The decided match (n_matches 1) or nothing yet (n_matches 0), with the regular hands' records."""
        done = self.m.shares is not None
        P = self.rules.players
        return SimpleNamespace(
            n_matches=int(done),
            totals=np.array([self.m.totals] if done else np.zeros((0, P), dtype=np.int64)),
            win_share=np.array([self.m.shares] if done else np.zeros((0, P))),
            hands=np.array([self.m.hands_played] if done else [], dtype=np.int64),
            tiebreak_hands=np.array([self.m.tb_hands] if done else [], dtype=np.int64),
            hand_records=_HandRecords(self.records),
        )


class _HandRecords:
    def __init__(self, records: list[tuple[int, int]]):
        self.outcome = np.array([o for o, _ in records], dtype=np.int64)
        self.turns = np.array([t for _, t in records], dtype=np.int64)

    def __len__(self) -> int:
        return len(self.outcome)


def setup(
    rules: Rules,
    lineup: list,
    hands: dict[int, str],
    top: str,
    active: str | None = None,
    stock: str = "",
    under: str = "",
    seat: int = 0,
    dealer: int | None = None,
    totals: list[int] | None = None,
    hands_played: int = 0,
    seed: int = 0,
) -> Scenario:
    """A reference match holding one hand in the given position (cards not named are nowhere).

    ``lineup`` holds :class:`Scripted` seats (or reference strategy names); ``hands`` maps
    seat -> card names; seats not named hold nothing and sit out (as in a tie-break hand,
    S4) unless every seat is named.  ``stock`` is drawn from its first card on, ``under``
    lies below ``top`` on the discard pile.  ``seat`` moves first (the next seat in the hand
    if it sits out).
    """
    P = rules.players
    seats = [s.answers() if isinstance(s, Scripted) else s for s in lineup]
    m = ref.Match(rules, seats, seed, 0)
    parts = sorted(hands) if len(hands) < P else list(range(P))
    d = (seat - 1) % P if dealer is None else dealer
    m.dealer = d
    m.totals = list(totals if totals is not None else [0] * P)
    m.hands_played = m.hand_seq = hands_played
    if len(parts) < P:
        m.tied = parts  # S4: only the tied seats play
    h = m.new_hand()
    for p in range(P):
        h.hands[p] = cards(hands.get(p, ""))
    t = parse_card(top)
    h.pile = cards(under) + [t]
    h.active = SUIT_NAMES.index(active) if active else ref.suit(t)
    h.stock = cards(stock)
    h.seat = seat if seat in parts else h.next_seat(seat, 1)  # a seat out of the hand does not move (S4)
    return Scenario(m, h)


def play_out(e: Scenario, max_steps: int = 50) -> int:
    """Advance until the current hand ends; return its outcome (seat out, -1 blocked, -2 capped)."""
    for _ in range(max_steps):
        out = e.advance()
        if out[0] != RUNNING:
            return int(out[0])
    raise AssertionError("hand did not end")


def hand_of(e: Scenario, seat: int) -> list[int]:
    """Faces (with repeats) in a seat's hand."""
    return sorted(e.h.hands[seat])


def events(e: Scenario, match: int = 0) -> list[tuple]:
    """The reference's events since the set-up (plain tuples, see :func:`nines_sim.game.reference.play_match`)."""
    assert match == 0
    return e.events
