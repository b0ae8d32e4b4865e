"""Stacked-deck scenarios: one game set up card by card, then played step by step."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import N_FACES, SUIT_NAMES, faces_of, parse_card, words_of
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import PAIR_OF_NINES, Observation, Strategy
from tests.numpy_engine import RUNNING, BatchEngine


def cards(text: str) -> list[int]:
    """Faces of a space-separated list of card names ("9S AC 10H")."""
    return [parse_card(t) for t in text.split()]


class Scripted(Strategy):
    """Plays a queue of answers, in order, and records what it saw.

    ``plays`` holds card names or "PAIR"; ``declares`` suit letters; ``drawn``
    booleans for play_drawn.  A queue that runs dry falls back to the lowest
    legal card / clubs / True.
    """

    name = "scripted"
    classifier = {"stochastic": False, "uses_public_history": False, "plays_pair_of_nines": True}

    def __init__(self, plays: str = "", declares: str = "", drawn: list[bool] | None = None):
        self.plays = plays.split()
        self.declares = list(declares.replace(" ", ""))
        self.drawn = list(drawn or [])
        self.seen_legal: list[list[int]] = []
        self.seen_pair: list[bool] = []
        self.log: list[tuple] = []

    def play(self, obs: Observation) -> np.ndarray:
        assert obs.n == 1
        self.seen_legal.append(faces_of(int(obs.legal[0])))
        self.seen_pair.append(bool(obs.pair_legal[0]))
        if self.plays:
            t = self.plays.pop(0)
            move = PAIR_OF_NINES if t == "PAIR" else parse_card(t)
        else:
            move = faces_of(int(obs.legal[0]))[0]
        self.log.append(("play", int(obs.seat[0]), move))
        return np.array([move])

    def declare(self, obs: Observation) -> np.ndarray:
        suit = SUIT_NAMES.index(self.declares.pop(0)) if self.declares else 0
        self.log.append(("declare", int(obs.seat[0]), suit))
        return np.array([suit])

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        yes = self.drawn.pop(0) if self.drawn else True
        self.log.append(("play_drawn", int(obs.seat[0]), int(card[0]), yes))
        return np.array([yes])


def setup(
    rules: Rules,
    lineup: list[Strategy],
    hands: dict[int, str],
    top: str,
    active: str | None = None,
    stock: str = "",
    under: str = "",
    seat: int = 0,
    dealer: int | None = None,
    totals: list[int] | None = None,
    trace: bool = True,
    n_matches: int = 1,
    hands_played: int = 0,
    copies: int = 1,
    seed: int = 0,
) -> BatchEngine:
    """An engine holding one game in the given position (cards not named are nowhere).

    ``hands`` maps seat -> card names; seats not named hold nothing and sit out
    (as in a tie-break hand) unless every seat is named.  ``copies`` > 1 sets
    up that many games (matches 0..copies-1) in the same position, each with
    its own random streams.
    """
    n_matches = max(n_matches, copies)
    e = BatchEngine(rules, lineup, seed=seed, start=0, n_matches=n_matches, batch_size=copies, trace=trace)
    e.start_run()
    P, D = rules.players, rules.decks
    if e.trace is not None:
        e.trace.clear()
    mask = 0
    for p in range(P):
        faces = cards(hands.get(p, ""))
        w = words_of(faces, D)
        for d in range(D):
            e.hands[d][:, p] = w[d]
        e.ncards[:, p] = len(faces)
        if p in hands:
            mask |= 1 << p
    e.seats_mask[:] = mask
    e.n_in[:] = bin(mask).count("1")
    e.in_tb[:] = mask != (1 << P) - 1
    t = parse_card(top)
    e.top[:] = t
    e.active[:] = SUIT_NAMES.index(active) if active else t // 13
    st = cards(stock)
    e.stock[:, :] = 0
    e.stock[:, : len(st)] = st
    e.stock_pos[:] = 0
    e.stock_end[:] = len(st)
    uw = words_of(cards(under), D)
    for d in range(D):
        e.under[d][:] = uw[d]
    e.seat[:] = seat
    e.dealer[:] = (seat - 1) % P if dealer is None else dealer
    e.totals[:] = np.array(totals if totals is not None else [0] * P)
    e.hands_played[:] = hands_played
    for name in ("turn", "streak", "drawn", "reshuffles", "dirbit"):
        getattr(e, name)[:] = 0
    e.played[:] = np.uint64(1 << t)
    return e


def play_out(e: BatchEngine, max_steps: int = 50) -> int:
    """Advance until the current hand ends; return its outcome (seat out, -1 blocked, -2 capped)."""
    for _ in range(max_steps):
        out = e.advance()
        if out[0] != RUNNING:
            return int(out[0])
    raise AssertionError("hand did not end")


def hand_of(e: BatchEngine, seat: int) -> list[int]:
    """Faces (with repeats) in a seat's hand."""
    out: list[int] = []
    for w in e.hands:
        out += faces_of(int(w[0, seat]))
    return sorted(out)


def events(e: BatchEngine, match: int = 0) -> list[tuple]:
    assert e.trace is not None
    return e.trace.get(match, [])


assert N_FACES == 52
