"""One hand by the rules (RULES.md D4-D7, T1-T8, O1, V1-V6): the deal, each turn's play, draw or pass, the
cards' powers, and how a hand ends.

:class:`Hand` holds one hand's state in Python lists (each seat's cards, the discard pile with its top last,
the stock drawn from the front) and appends what happens to the match's event list as plain tuples.  Each
method names the clauses it implements; read :meth:`Hand.play` and :meth:`Hand.step` first.
"""

from __future__ import annotations

from collections import Counter

from nines_sim.game.codes import BLOCKED, CAPPED  # hand outcomes: no seat can move (T7), the turn cap (T8)
from nines_sim.game.codes import PAIR_OF_NINES as PAIR  # move code: two 9s together (V4)
from nines_sim.game.reference.cards import is_nine, penalty, rank, suit
from nines_sim.game.reference.det_strategies import STRATEGIES, View
from nines_sim.game.reference.random_keys import stream
from nines_sim.game.rng import DEAL, RESHUFFLE
from nines_sim.game.rules import Rules


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
