"""Shorthands of the stacked-deck tests of the rule variants (``test_variants*.py``): cards by name, suits by
letter, scripted players, a hand's acting events, and a player that records what it was shown."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import SUIT_NAMES, parse_card
from nines_sim.game.rules import Rules
from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.registry import make_lineup
from tests.scenario import Scenario, Scripted, cards, events


def c(name: str) -> int:
    return parse_card(name)


def sorted_faces(text: str) -> list[int]:
    return sorted(cards(text))


def suit(letter: str) -> int:
    return SUIT_NAMES.index(letter)


def scripted(n: int, **plays: str) -> list[Scripted]:
    """``n`` separate Scripted players; ``plays`` maps "s0".."s5" to their play queues."""
    return [Scripted(plays.get(f"s{i}", "")) for i in range(n)]


def acting_events(e: Scenario) -> list[tuple]:
    """Events of the current hand, without deal/declare bookkeeping."""
    return [ev for ev in events(e) if ev[0] not in ("deal", "declare")]


class Recorder(Strategy):
    """Random play that records, at each play decision, what the observation shows:
    (top, active, legal, pair_legal, direction, seat, dealer, first turn of the hand, all seats in the hand)."""

    name = "recorder"
    classifier = {"stochastic": True, "uses_public_history": False, "plays_pair_of_nines": True}

    def __init__(self, rules: Rules):
        self.inner = make_lineup(["random"])[0]
        self.rows: list[np.ndarray] = []
        self.rules = rules

    def play(self, obs: Observation) -> np.ndarray:
        # nothing played on the starter yet and every hand still as dealt: the hand's first turn
        dealt = obs.hand_sizes == self.rules.hand_size(self.rules.players)
        first = (np.bitwise_count(obs.played) == 1) & dealt.all(axis=1)
        self.rows.append(
            np.stack(
                [
                    obs.top.astype(np.int64),
                    obs.active_suit.astype(np.int64),
                    obs.legal.astype(np.int64),
                    obs.pair_legal.astype(np.int64),
                    obs.direction,
                    obs.seat.astype(np.int64),
                    obs.dealer,
                    first.astype(np.int64),
                    obs.in_hand.all(axis=1).astype(np.int64),
                ],
                axis=1,
            )
        )
        return self.inner.play(obs)

    def declare(self, obs: Observation) -> np.ndarray:
        return self.inner.declare(obs)

    def table(self) -> np.ndarray:
        return np.concatenate(self.rows)
