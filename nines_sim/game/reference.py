"""The rules of Nines as a program: a deliberately simple, plain-Python player of one match (RULES.md).

This is the executable specification beside the fast engine: a reader learns the rules
from it (each step names the RULES.md clause it implements), and the compiled engine
(:mod:`nines_sim.engine.turn_loop`) is checked against it move for move on every preset, table
size and option (``tests/test_reference_agreement.py``).  One match at a time, one card
at a time, with Python lists and Counters: no numpy, nothing from the engine,
``nines_sim.strategy.choice`` or ``nines_sim.strategy.base``.  Only the rules record and the scalar
random functions are shared with the engine; everything else is written again here
from RULES.md and these conventions:

* faces 0..51, face = 13 * suit + rank, rank 8 is the 9 (wild);
* random words from ``mix_int`` chained as root -> match key -> hand key -> stream,
  where the cards use the root ``blake2b(b"nines-sim/cards/" + seed)`` and the
  strategies' random numbers the root ``blake2b(b"nines-sim/decisions/" + seed)``
  (computed here with ``hashlib`` again, not taken from the engine);
* events are plain tuples (see :func:`play_match`).

The two deterministic strategies mirrored here ("det-lowest", "det-highest-pair")
are plain functions over a small :class:`View` of the deciding player's situation.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass

from nines_sim.game.codes import BLOCKED, CAPPED  # hand outcomes: no seat can move (T7), the turn cap (T8)
from nines_sim.game.codes import NINE_RANK as NINE  # rank index of the 9
from nines_sim.game.codes import PAIR_OF_NINES as PAIR  # move code: two 9s together (V4)
from nines_sim.game.rng import (
    COUNTER,
    DEAL,
    DECISION,
    FIRST_DEALER,
    GOLDEN,
    HAND,
    M64,
    PURPOSE,
    RESHUFFLE,
    below_int,
    mix_int,
)
from nines_sim.game.rules import Rules


# ---------------------------------------------------------------- cards (C1, C2)
def suit(face: int) -> int:
    return face // 13


def rank(face: int) -> int:
    return face % 13


def is_nine(face: int) -> bool:
    return rank(face) == NINE


def penalty(face: int, rules: Rules) -> int:
    """C2 / V1: A=1, 2..8 face value, 10/J/Q/K = 10, 9 = rules.nine_penalty."""
    r = rank(face)
    if r == NINE:
        return rules.nine_penalty
    if r <= 7:
        return r + 1
    return 10


# ---------------------------------------------------------------- random keys
def card_root(seed: int) -> int:
    return int.from_bytes(hashlib.blake2b(b"nines-sim/cards/" + str(seed).encode(), digest_size=8).digest(), "little")


def decision_root(seed: int) -> int:
    digest = hashlib.blake2b(b"nines-sim/decisions/" + str(seed).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def match_key(root: int, match: int) -> int:
    return mix_int(mix_int((root + GOLDEN) & M64) ^ match)


def hand_key(mkey: int, hand_seq: int) -> int:
    return mix_int(mkey ^ (((hand_seq + 1) * HAND) & M64))


def stream(key: int, purpose: int, counter: int) -> int:
    return mix_int(key ^ ((purpose * PURPOSE) & M64) ^ ((counter * COUNTER) & M64))


def decision_word(seed: int, match: int, hand_seq: int, kind: int, turn: int, salt: int = 0) -> int:
    """The random word a strategy gets for a decision of ``kind`` on ``turn`` of a hand (``salt`` 0..63)."""
    dkey = hand_key(match_key(decision_root(seed), match), hand_seq)
    return stream(dkey, DECISION + kind, turn * 64 + salt)


# ---------------------------------------------------------------- strategies
@dataclass
class View:
    """What a deciding player sees (enough for the deterministic strategies)."""

    hand: list  # faces in hand (physical cards; repeats under two decks)
    legal: list  # faces in hand that are legal now (distinct or not, order irrelevant)
    pair_legal: bool
    seat: int = -1  # the deciding seat


def _suit_counts(hand: list) -> list:
    counts = [0, 0, 0, 0]
    for f in hand:
        counts[suit(f)] += 1
    return counts


def lowest_play(view: View) -> int:
    return min(view.legal)


def lowest_declare(view: View) -> int:
    counts = _suit_counts(view.hand)
    best = 0
    for s in range(4):
        if counts[s] > counts[best]:
            best = s
    return best


def lowest_play_drawn(view: View, face: int) -> bool:
    return True


def highest_pair_play(view: View) -> int:
    if view.pair_legal:
        return PAIR
    return max(view.legal)


def highest_pair_declare(view: View) -> int:
    counts = _suit_counts(view.hand)
    best = 0
    for s in range(4):
        if counts[s] < counts[best]:
            best = s
    return best


def highest_pair_play_drawn(view: View, face: int) -> bool:
    return not is_nine(face)


STRATEGIES = {
    "det-lowest": (lowest_play, lowest_declare, lowest_play_drawn),
    "det-highest-pair": (highest_pair_play, highest_pair_declare, highest_pair_play_drawn),
}


# ---------------------------------------------------------------- one hand
class Hand:
    """One hand (regular or tie-break) played to its end."""

    def __init__(
        self, rules: Rules, lineup: list, hkey: int, hand_seq: int, dealer: int, participants: list, events: list
    ):
        self.rules = rules
        self.P = rules.players
        self.lineup = lineup
        self.hkey = hkey
        self.hand_seq = hand_seq
        self.dealer = dealer
        self.parts = set(participants)
        self.k = len(participants)
        self.events = events
        self.hands = [[] for _ in range(self.P)]
        self.pile = []  # discard pile, bottom first; pile[-1] is the top
        self.stock = []  # faces, drawn from the front (index 0)
        self.active = 0
        self.direction = 1  # +1 clockwise
        self.reshuffles = 0
        self.turns = 0
        self.streak = 0
        self.seat = -1  # the seat to move

    # -- seating
    def next_seat(self, seat: int, direction: int) -> int:
        """The next seat dealt into this hand in ``direction`` (D1 clockwise, V3 reversed; S4 leaves seats out)."""
        s = seat
        while True:
            s = (s + direction) % self.P
            if s in self.parts:
                return s

    # -- legality (T1, V5, V6)
    @property
    def top(self) -> int:
        return self.pile[-1]

    def legal_on_top(self, face: int) -> bool:
        """T1 with V6 (nine_on_nine); no V5 here."""
        top = self.top
        if is_nine(top):
            if is_nine(face):
                return self.rules.nine_on_nine
            return suit(face) == self.active
        if is_nine(face):
            return True
        return suit(face) == self.active or rank(face) == rank(top)

    def legal_in_hand(self, seat: int) -> list:
        """The cards of ``seat``'s hand it may play (T1, V6), without a 9 as its last card under V5."""
        hand = self.hands[seat]
        out = []
        for f in hand:
            if not self.legal_on_top(f):
                continue
            if self.rules.no_nine_out and is_nine(f) and len(hand) == 1:
                continue
            out.append(f)
        return out

    def pair_legal(self, seat: int) -> bool:
        """Whether ``seat`` may play two 9s together (V4; not on a 9 under V6, not as its last two cards under V5)."""
        r = self.rules
        hand = self.hands[seat]
        if not r.pair_of_nines:
            return False
        if sum(1 for f in hand if is_nine(f)) < 2:
            return False
        if is_nine(self.top) and not r.nine_on_nine:
            return False
        if r.no_nine_out and len(hand) == 2:
            return False
        return True

    def view(self, seat: int) -> View:
        return View(
            hand=list(self.hands[seat]), legal=self.legal_in_hand(seat), pair_legal=self.pair_legal(seat), seat=seat
        )

    def strategy(self, seat: int) -> tuple:
        """``seat``'s (play, declare, play_drawn) functions: a name from STRATEGIES, or the functions themselves."""
        s = self.lineup[seat]
        return STRATEGIES[s] if isinstance(s, str) else s

    def declare(self, seat: int) -> int:
        """The suit ``seat`` declares (D6 at a 9 starter, T3 after a 9 played)."""
        s = self.strategy(seat)[1](self.view(seat))
        assert 0 <= s <= 3
        return s

    # -- deal (D4-D7)
    def deal(self) -> None:
        """Shuffle (D4), deal clockwise from the dealer's left (D5), turn the starter (D6; a 9 makes the dealer
        declare), the rest is the stock (D7)."""
        r = self.rules
        n_ids = 52 * r.decks
        ids = sorted(range(n_ids), key=lambda i: (stream(self.hkey, DEAL, i), i))
        order = []
        s = self.dealer
        for _ in range(self.k):
            s = self.next_seat(s, 1)
            order.append(s)
        h = r.hand_sizes[self.k - 2]
        for i, seat in enumerate(order):
            self.hands[seat] = [ids[i + self.k * j] % 52 for j in range(h)]
        starter = ids[self.k * h] % 52
        self.pile = [starter]
        self.stock = [i % 52 for i in ids[self.k * h + 1 :]]
        self.active = suit(starter)
        self.events.append(
            ("deal", self.hand_seq, self.dealer, tuple(tuple(sorted(self.hands[p])) for p in range(self.P)), starter)
        )
        if is_nine(starter):
            self.active = self.declare(self.dealer)
            self.events.append(("declare", self.dealer, self.active))

    # -- stock (T5, T6)
    def draw_one(self):
        """Draw a face from the stock, rebuilding it first if needed; None if nothing to draw."""
        if not self.stock:
            under = self.pile[:-1]
            if not under:
                return None
            ids = []
            for f, c in Counter(under).items():
                ids.append(f)
                if c == 2:
                    ids.append(f + 52)
                assert c <= 2
            rr = self.reshuffles
            ids.sort(key=lambda i: (stream(self.hkey, RESHUFFLE, i + 256 * rr), i))
            self.stock = [i % 52 for i in ids]
            self.pile = [self.top]
            self.reshuffles += 1
            self.events.append(("reshuffle", len(ids)))
        return self.stock.pop(0)

    # -- moves
    def play_card(self, seat: int, face: int) -> None:
        """Play one card onto the discard pile (T1, T2); its suit becomes active, a 9 declares one (T3)."""
        self.hands[seat].remove(face)
        self.pile.append(face)
        self.active = suit(face)
        declared = -1
        if is_nine(face):
            declared = self.declare(seat)
            self.active = declared
        self.events.append(("play", seat, face, declared))

    def play_pair(self, seat: int) -> None:
        """Play two 9s as one move (V4): the second 9 removed goes under the first, then a suit is declared."""
        hand = self.hands[seat]
        removed = []
        for _ in range(2):
            c = Counter(f for f in hand if is_nine(f))
            doubles = [f for f, n in c.items() if n >= 2]
            f = max(doubles) if doubles else max(c)
            hand.remove(f)
            removed.append(f)
        first, second = removed
        self.pile.append(second)
        self.pile.append(first)
        s = self.declare(seat)
        self.active = s
        self.events.append(("pair", seat, s))

    def apply_power(self, seat: int, face: int) -> int:
        """V3 after a played card that did not go out; returns the next seat to move."""
        r = rank(face)
        if self.rules.skip_reverse and r == 10:  # J
            skipped = self.next_seat(seat, self.direction)
            self.events.append(("skip", skipped))
            return self.next_seat(skipped, self.direction)
        if self.rules.skip_reverse and r == 11:  # Q
            if self.k == 2:
                other = self.next_seat(seat, self.direction)
                self.events.append(("skip", other))
                return seat
            self.direction = -self.direction
            return self.next_seat(seat, self.direction)
        if self.rules.skip_reverse and r == 0:  # A
            victim = self.next_seat(seat, self.direction)
            for _ in range(2):
                f = self.draw_one()
                if f is None:
                    break
                self.hands[victim].append(f)
                self.events.append(("penalty_draw", victim, f))
            self.events.append(("skip", victim))
            return self.next_seat(victim, self.direction)
        return self.next_seat(seat, self.direction)

    def next_after(self, seat: int, played):
        """The seat to move after ``seat``'s turn, applying what the played card does (V3, V4).

        ``played`` is the face played, ``PAIR``, or None (a draw kept, or a pass).
        """
        if played is None:
            return self.next_seat(seat, self.direction)
        if played == PAIR:
            skipped = self.next_seat(seat, self.direction)
            self.events.append(("skip", skipped))
            return self.next_seat(skipped, self.direction)
        return self.apply_power(seat, played)

    def take_turn(self, seat: int):
        """One turn (T1-T6, V2). Returns (kind, played): kind in 'play', 'draw', 'pass'; played is the
        face played, PAIR, or None."""
        play_fn, _, drawn_fn = self.strategy(seat)
        v = self.view(seat)
        if v.legal:
            move = play_fn(v)
            if move == PAIR:
                assert v.pair_legal
                self.play_pair(seat)
            else:
                assert move in v.legal
                self.play_card(seat, move)
            return "play", move
        if self.rules.draw_rule == "one":
            f = self.draw_one()
            if f is None:
                self.events.append(("pass", seat))
                return "pass", None
            self.hands[seat].append(f)
            self.events.append(("draw", seat, f))
            if self.legal_on_top(f) and drawn_fn(self.view(seat), f):
                self.play_card(seat, f)
                return "play", f
            return "draw", None
        # V2: draw until playable; the legal card is played at once
        while True:
            f = self.draw_one()
            if f is None:
                self.events.append(("pass", seat))
                return "pass", None
            self.hands[seat].append(f)
            self.events.append(("draw", seat, f))
            if self.legal_on_top(f):
                self.play_card(seat, f)
                return "play", f

    def penalties(self, out_seat: int = -100) -> tuple:
        """Each seat's penalty for the cards left in its hand (C2, S1, V1); none for the seat that went out."""
        pen = []
        for p in range(self.P):
            if p not in self.parts or p == out_seat:
                pen.append(0)
            else:
                pen.append(sum(penalty(f, self.rules) for f in self.hands[p]))
        return tuple(pen)

    def play(self):
        """Deal and play to the end: a seat goes out (O1), the hand is blocked (T7) or capped (T8);
        returns (outcome, penalties)."""
        self.deal()
        self.seat = self.next_seat(self.dealer, 1)  # D7: the dealer's left leads
        while True:
            ended = self.step()
            if ended is not None:
                return ended

    def step(self):
        """Play the turn of ``self.seat`` and move on to the next seat; returns None while the hand
        goes on, else (outcome, penalties) with outcome the seat out (O1), BLOCKED (T7) or CAPPED (T8)."""
        seat = self.seat
        kind, played = self.take_turn(seat)
        self.turns += 1
        if not self.hands[seat]:  # O1: out at once, no power, no skip
            pen = self.penalties(seat)
            self.events.append(("end", seat, pen))
            return seat, pen
        if self.rules.block_rule == "pass-circle":
            self.streak = self.streak + 1 if kind == "pass" else 0
        else:
            self.streak = self.streak + 1 if kind != "play" else 0
        outcome = None
        if self.streak >= self.k:
            outcome = BLOCKED
        elif self.turns >= self.rules.turn_cap:
            outcome = CAPPED
        if outcome is not None:
            # A hand stopped by T7/T8 ends with this turn: like a card that goes out, the
            # card just played applies no power (no skip event, no A penalty draws).
            pen = self.penalties()
            self.events.append(("end", outcome, pen))
            return outcome, pen
        self.seat = self.next_after(seat, played)
        return None


# ---------------------------------------------------------------- a match
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
