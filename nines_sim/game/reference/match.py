"""A match by the rules (RULES.md D1-D3, S1-S4): hands until a total reaches the target or the fixed number is
played, the lowest total wins, ties shared or played off; :func:`play_match` plays one.
"""

from __future__ import annotations

from nines_sim.game.reference.det_strategies import STRATEGIES
from nines_sim.game.reference.hand import Hand
from nines_sim.game.reference.random_keys import card_root, hand_key, match_key, stream
from nines_sim.game.rng import FIRST_DEALER, below_int
from nines_sim.game.rules import Rules


class Match:
    """One match's running score (S1-S4): which hand comes next, and when the match is decided."""

    def __init__(self, rules: Rules, lineup: list, seed: int, match: int):
        P = rules.players
        assert len(lineup) == P
        for name in lineup:
            if isinstance(name, str) and name not in STRATEGIES:
                raise ValueError(f"unknown reference strategy {name!r}")
        self.rules = rules
        self.lineup = lineup
        self.mkey = match_key(card_root(seed), match)
        self.dealer = below_int(stream(self.mkey, FIRST_DEALER, 0), P)  # D2
        self.events: list = []
        self.totals = [0] * P
        self.hand_seq = 0
        self.hands_played = 0
        self.tb_hands = 0
        self.tied: list | None = None  # the seats in the S4 playoff, None before it
        self.shares: list | None = None  # set when the match is decided

    def new_hand(self) -> Hand:
        """The next hand, not yet dealt: a regular hand, or (S4) a tie-break hand among the tied seats."""
        parts = list(range(self.rules.players)) if self.tied is None else self.tied
        h = Hand(
            self.rules, self.lineup, hand_key(self.mkey, self.hand_seq), self.hand_seq, self.dealer, parts, self.events
        )
        self.hand_seq += 1
        return h

    def end_hand(self, outcome: int, pen: tuple) -> bool:
        """Score a finished hand (S1-S4); returns whether the match is decided (then ``shares`` is set)."""
        P = self.rules.players
        if self.tied is not None:  # S4: a tie-break hand scores nothing, it only narrows the tie
            self.tb_hands += 1
            if outcome >= 0:
                return self._decide([outcome])
            best = min(pen[p] for p in self.tied)
            self.tied = [p for p in self.tied if pen[p] == best]
            if len(self.tied) == 1:
                return self._decide(self.tied)
            nxt = (self.dealer + 1) % P
            while nxt not in self.tied:
                nxt = (nxt + 1) % P
            self.dealer = nxt
            return False
        for p in range(P):
            self.totals[p] += pen[p]
        self.hands_played += 1
        self.dealer = (self.dealer + 1) % P  # D3
        if self.rules.fixed_hands > 0:  # S3
            over = self.hands_played >= self.rules.fixed_hands
        else:  # S2
            over = max(self.totals) >= self.rules.target
        if not over:
            return False
        low = min(self.totals)
        tied = [p for p in range(P) if self.totals[p] == low]
        if len(tied) == 1 or self.rules.tie_rule == "share":
            return self._decide(tied)
        # S4 playoff: the first tied seat from the next dealer on deals
        while self.dealer not in tied:
            self.dealer = (self.dealer + 1) % P
        self.tied = tied
        return False

    def _decide(self, winners: list) -> bool:
        self.shares = [0.0] * self.rules.players
        for p in winners:
            self.shares[p] = 1.0 / len(winners)
        self.events.append(("match_end", tuple(self.totals), tuple(self.shares)))
        return True


def play_match(rules: Rules, lineup: list, seed: int, match: int) -> dict:
    """Play match ``match`` of ``seed`` with one strategy name per seat: regular hands until a total reaches
    the target (S2) or the fixed number is played (S3), then the lowest total wins, ties shared or played off (S4).

    Returns a dict: events (list of tuples), totals (tuple), shares (tuple of
    floats), hands (regular hands played), tiebreak_hands.
    """
    m = Match(rules, lineup, seed, match)
    while True:
        outcome, pen = m.new_hand().play()
        if m.end_hand(outcome, pen):
            break
    return {
        "events": m.events,
        "totals": tuple(m.totals),
        "shares": tuple(m.shares),
        "hands": m.hands_played,
        "tiebreak_hands": m.tb_hands,
    }
