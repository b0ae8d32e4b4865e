"""One match's events walked in the omniscient view: at each chance event and known random decision, the
features after it minus their exact mean given the state before.

The events are those of the trace form (:mod:`nines_sim.engine.events`).  The parts, each a sum over the match of
``features(after) - E[features(after) | before]`` per seat (:mod:`nines_sim.luck.features`):

- **deal** (D2, D4-D7): each hand's deal with its starter, the hands uniform over the deck; the first hand of a
  match also over the first dealer (D2: a seat uniformly at random).  Exact: the starter is enumerated, and given
  it each seat's hand is uniform over the rest of the deck, the features being linear in the hands;
- **draw** (T4, V2, V3's penalty draws): the card uniform over the cards then in the stock, enumerated.  A
  reshuffle (T5, T6) is no event of its own: the new stock's cards are the discard pile's but the top card,
  known before it, and its order is drawn one card at a time by the draws after it;
- **choice**: a decision of a seat whose policy is known and random, over its distribution: ``random`` (a legal
  card uniformly, each physical card one choice, V4's pair one more; a suit uniformly), ``hold-nines`` (a legal
  natural uniformly, else a 9), ``dump-faces`` (uniformly among the legal naturals of the highest penalty), both
  declaring uniformly, ``suit-majority`` (a legal card uniformly; a suit uniformly among those it holds the most
  naturals of), ``expert`` (uniformly among its tied best naturals, a 9 instead for some of their suits, then
  uniformly among its legal 9s; uniformly among its tied best suits: the sets its trace's ``choice`` events
  give, :func:`~nines_sim.engine.events.decode`).  Python strategies are not corrected (a correction left out
  keeps the estimate unbiased).  A drawn card the heuristics always play (T4), and whether ``expert`` plays it
  (no random choice), is none.

A value ``V = weights . features`` then has the match's correction ``weights . (deal + draw + choice)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from nines_sim.game.cards import FACE_RANK, FACE_SUIT, N_FACES, NINE_RANK
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table
from nines_sim.luck.features import (
    COL_ACTIVE,
    COL_TOP,
    N_FEATURES,
    NB,
    NJ,
    NJ0,
    card_blocks,
    card_matrix,
    match_weights,
    phase,
)
from nines_sim.strategies.dump_faces import DumpFaces
from nines_sim.strategies.expert import Expert
from nines_sim.strategies.hold_nines import HoldNines
from nines_sim.strategies.random_play import RandomPlay
from nines_sim.strategies.suit_majority import SuitMajority

#: The parts of a match's luck, in the order of :attr:`MatchLuck.parts`.
PARTS = ("deal", "draw", "choice")
#: Kernel ids of the built-in heuristics, whose decisions :mod:`strategies.heuristics_compiled` makes.
SID_RANDOM, SID_HOLD_NINES = RandomPlay.kernel_id, HoldNines.kernel_id
SID_DUMP_FACES, SID_SUIT_MAJORITY = DumpFaces.kernel_id, SuitMajority.kernel_id
HEURISTICS = (SID_RANDOM, SID_HOLD_NINES, SID_DUMP_FACES, SID_SUIT_MAJORITY)
#: Kernel id of ``expert``, whose tie-breaks are corrected over the sets its trace logs (``choice`` events).
SID_EXPERT = Expert.kernel_id
NINE_FACES = np.flatnonzero(FACE_RANK == NINE_RANK)
NATURAL = FACE_RANK != NINE_RANK
#: Penalty of each natural face (C2): 9s are never compared (dump-faces plays a 9 only with no natural legal).
NATURAL_PENALTY = np.where(FACE_RANK >= 9, 10, FACE_RANK + 1)


class LuckError(RuntimeError):
    """A match's events disagree with the rules as the luck measure reads them (a move outside the policy's
    choices, totals that do not add up): a bug to report, never a number to use."""


@dataclass(frozen=True)
class MatchLuck:
    """One match's luck in features, and its result.

    Attributes
    ----------
    parts : numpy.ndarray
        float64, shape (3, P, N_FEATURES): per part of :data:`PARTS`, the sum over the match of each seat's
        features after an event minus their mean given the state before.
    shares : numpy.ndarray
        float64, shape (P,): each seat's win share (S2, S4).
    totals : numpy.ndarray
        int64, shape (P,): the final totals.
    hand_blocks : numpy.ndarray
        float64, shape (hands, 3, P, NJ): each hand's card block differences per part, unweighted.
    hand_penalties : numpy.ndarray
        int64, shape (hands, P): each hand's penalties (S1; a tie-break hand's too, which no total adds).
    """

    parts: np.ndarray
    shares: np.ndarray
    totals: np.ndarray
    hand_blocks: np.ndarray
    hand_penalties: np.ndarray


def _mean(rows: list[np.ndarray], probs: np.ndarray) -> np.ndarray:
    return np.tensordot(probs, np.stack(rows), axes=1)


@cache
def _matrices() -> np.ndarray:
    """Every (top, active suit)'s card matrix: float64, shape (52 * 4, 52, NB), indexed by ``top * 4 + active``."""
    return np.stack([card_matrix(a, t) for t in range(N_FACES) for a in range(4)])


class Walker:
    """Walks matches of one table and rule set (:meth:`walk`).

    Within a hand the match weights are fixed (:func:`~nines_sim.luck.features.match_weights`), so the card
    blocks' differences are summed per hand, then weighted into features when the hand ends.

    Parameters
    ----------
    rules : Rules
    seat_ids : sequence of int
        Each seat's kernel strategy id (:func:`nines_sim.engine.seats.seat_ids`): the heuristics' decisions are
        corrected, any other seat's are not.
    choices : bool
        Correct the known random decisions (False: chance events only).
    """

    def __init__(self, rules: Rules, seat_ids: Sequence[int], choices: bool = True):
        self.rules, self.P, self.D = rules, rules.players, rules.decks
        self.sids = [int(s) if choices else -1 for s in seat_ids]
        #: Each hand's features, when a caller keeps them (a list: :func:`nines_sim.luck.review.match_luck`).
        self.per_hand: list[np.ndarray] | None = None
        self.deck = np.full(N_FACES, float(self.D))
        table = legal_table(rules)
        self.legal = np.array([[(int(m) >> f) & 1 for f in range(N_FACES)] for m in table], dtype=bool)
        self.M = _matrices()
        # a deal's mean card block per card dealt: the starter enumerated (its suit active: a 9's printed suit
        # until the dealer declares, D6), each card of a hand then uniform over the rest of the deck
        n = self.deck.sum()
        self.deal_mean = np.zeros(NB)
        for f in np.flatnonzero(self.deck):
            M = self.M[f * 4 + FACE_SUIT[f]]
            self.deal_mean += self.deck[f] / n * (self.deck @ M - M[f]) / (n - 1)

    # -- one match
    def walk(self, events: Iterable[tuple]) -> MatchLuck:
        """The luck of one match from its events (all of them, from its first deal to its end).

        Raises
        ------
        LuckError
            If a move is not one of its policy's choices, or the totals disagree with the events.
        """
        P = self.P
        self.parts = np.zeros((3, P, N_FEATURES))
        self.acc = np.zeros((3, P, NJ))  # this hand's card block differences, per part
        self.totals = np.zeros(P, dtype=np.int64)
        self.regular, self.tiebreak = 0, False
        self.hand_blocks, self.hand_penalties = [], []
        self.pending: dict[str, tuple] = {}  # expert's logged choice sets, by "play" and "declare", until its move
        shares = None
        for ev in events:
            kind = ev[0]
            if kind == "choice":
                if self.sids[ev[1]] == SID_EXPERT:
                    self.pending["play" if ev[2] else "declare"] = tuple(ev[1:2]) + tuple(ev[3:6])
            elif kind == "turn":
                self.after_draw = False
            elif kind == "draw" or kind == "penalty_draw":
                self._draw(ev[1], ev[2])
                self.after_draw = kind == "draw"
            elif kind == "play":
                self._play(ev[1], ev[2], ev[3])
            elif kind == "pair":
                self._pair(ev[1], ev[2])
            elif kind == "declare":
                self._declare(ev[1], ev[2], self.first)
                self.active = ev[2]
            elif kind == "reshuffle":
                self.stock += self.pile
                self.pile[:] = 0
                if int(self.stock.sum()) != ev[1]:
                    raise LuckError(f"a reshuffle of {ev[1]} cards, but the discard pile held {int(self.stock.sum())}")
            elif kind == "deal":
                self._deal(ev[1], ev[2], ev[3], ev[4])
            elif kind == "end":
                self.hand_blocks.append(self.acc.copy())
                self.hand_penalties.append(ev[2])
                self._flush()
                self._end(ev[2])
            elif kind == "match_end":
                if tuple(int(t) for t in self.totals) != tuple(ev[1]):
                    raise LuckError(f"totals {tuple(self.totals)} walked, {ev[1]} played")
                shares = np.array(ev[2], dtype=np.float64)
        if shares is None:
            raise LuckError("the events hold no match's end")
        hands = np.array(self.hand_blocks).reshape(-1, 3, P, NJ)
        return MatchLuck(self.parts, shares, self.totals.copy(), hands, np.array(self.hand_penalties, dtype=np.int64))

    # -- the state's pieces
    def _weights(self) -> np.ndarray:
        r = self.rules
        progress = self.regular / r.fixed_hands if r.fixed_hands else float(self.totals.max()) / r.target
        return match_weights(self.totals, progress, r.target)

    def _flush(self) -> None:
        """The hand's card block differences into features, with the hand's match weights."""
        W = self._weights()
        hand = (W[None, :, :, None] * self.acc[:, :, None, :]).reshape(self.parts.shape)
        self.parts += hand
        if self.per_hand is not None:
            self.per_hand.append(hand)
        self.acc[:] = 0.0

    def _blocks(self, H: np.ndarray, top: int, active: int) -> np.ndarray:
        return H @ self.M[top * 4 + active]

    def _next_dealt(self, seat: int, dealt: np.ndarray) -> int:
        for k in range(1, self.P + 1):  # D7: clockwise (V3: every hand starts clockwise)
            q = (seat + k) % self.P
            if dealt[q]:
                return q
        raise LuckError("a hand dealt to no seat")

    def _deal(self, seq: int, dealer: int, hands: tuple, starter: int) -> None:
        P = self.P
        H = np.zeros((P, N_FACES))
        for p, faces in enumerate(hands):
            np.add.at(H[p], list(faces), 1.0)
        sizes = H.sum(axis=1)
        dealt = sizes > 0
        first = self._next_dealt(dealer, dealt)
        after = card_blocks(self._blocks(H, starter, int(FACE_SUIT[starter])), first, first)
        mean_blocks = np.outer(sizes, self.deal_mean)  # exact: linear in the hands, the starter enumerated
        dealers = range(P) if seq == 0 else [dealer]  # D2: the first dealer uniformly at random
        movers = [self._next_dealt(d, dealt) for d in dealers]
        mean = np.mean([card_blocks(mean_blocks, m, m) for m in movers], axis=0)
        self.acc[0] += after - mean
        self.H, self.first, self.top, self.active = H, first, int(starter), int(FACE_SUIT[starter])
        self.stock = self.deck - H.sum(axis=0)
        self.stock[starter] -= 1
        self.pile = np.zeros(N_FACES)
        self.after_draw = False

    def _end(self, penalties: tuple) -> None:
        r = self.rules
        if self.tiebreak:
            return  # S4: tie-break hands add nothing to the running totals
        self.totals += np.asarray(penalties, dtype=np.int64)
        self.regular += 1
        over = self.regular >= r.fixed_hands if r.fixed_hands else self.totals.max() >= r.target
        self.tiebreak = bool(over)  # any hand after the match's regular end is a tie-break hand

    def _draw(self, seat: int, face: int) -> None:
        """A card drawn, uniform over the stock (T4): the drawer's block gains the card minus the stock's mean
        card; the others' sums and the mover's legal count follow (the drawer is the seat to move)."""
        if self.stock[face] <= 0:
            raise LuckError(f"drew face {face}, which the stock does not hold")
        M = self.M[self.top * 4 + self.active]
        delta = M[face] - (self.stock @ M) / self.stock.sum()
        base = np.zeros((self.P, NJ0))
        base[seat, :NB] += delta
        base[:, NB : 2 * NB] += delta
        base[seat, NB : 2 * NB] -= delta
        legal = delta[COL_ACTIVE] + delta[COL_TOP] + delta[NINE_RANK]
        base[:, 2 * NB + 1] += legal
        base[seat, 2 * NB + 1] -= legal
        base[seat, 2 * NB] += legal
        sizes = self.H.sum(axis=1)
        sizes[seat] += 1  # the drawer's hand after the draw: the phase is known before the card
        self.acc[1] += (phase(sizes)[:, :, None] * base[:, None, :]).reshape(self.P, NJ)
        self.H[seat, face] += 1
        self.stock[face] -= 1

    # -- decisions
    def _play_choices(self, seat: int) -> tuple[list[int], np.ndarray]:
        """The moves ``seat``'s policy chooses among and their probabilities (faces; -2 for V4's pair)."""
        r, sid, hand = self.rules, self.sids[seat], self.H[seat]
        legal = self.legal[self.top * 4 + self.active] & (hand > 0)
        if r.no_nine_out and hand.sum() == 1:
            legal &= NATURAL  # V5
        pair = (sid == SID_RANDOM and r.pair_of_nines and hand[NINE_FACES].sum() >= 2
                and (FACE_RANK[self.top] != NINE_RANK or r.nine_on_nine)
                and not (r.no_nine_out and hand.sum() == 2))  # fmt: skip
        choose = legal
        nat = legal & NATURAL
        if sid == SID_HOLD_NINES and nat.any():
            choose = nat
        elif sid == SID_DUMP_FACES and nat.any():
            choose = nat & (NATURAL_PENALTY == NATURAL_PENALTY[nat].max())
        faces = [int(f) for f in np.flatnonzero(choose)]
        w = np.array([hand[f] for f in faces] + ([1.0] if pair else []), dtype=np.float64)
        return faces + ([-2] if pair else []), w / w.sum()

    def _after_play(self, seat: int, mv: int) -> tuple[np.ndarray, int, int]:
        """The hands after ``seat`` plays ``mv`` (a face, or -2: the pair), the new top card, and the second 9
        of a pair, which goes under it (-1 for a card)."""
        H = self.H.copy()
        if mv != -2:
            H[seat, mv] -= 1
            return H, mv, -1
        played = []
        for _ in range(2):  # the engine's pair: the highest 9 held, second copies first; the first ends on top
            nines = NINE_FACES[H[seat, NINE_FACES] > 0]
            two = NINE_FACES[H[seat, NINE_FACES] > 1]
            f = int((two if len(two) else nines).max())
            H[seat, f] -= 1
            played.append(f)
        return H, played[0], played[1]

    def _expert_choices(self, seat: int) -> tuple[list[int], np.ndarray]:
        """The moves ``expert``'s play chooses among, and their probabilities, from its logged sets: uniformly one of
        the tied naturals, played unless its suit is one a 9 replaces; then, for those, uniformly one of the 9s
        (each face one choice: ``pick_card`` over a set of faces)."""
        who, tied, nines, nine_suits = self._pending(seat, "play")
        faces = [f for f in range(N_FACES) if (tied >> f) & 1]
        nine_faces = [f for f in range(N_FACES) if (nines >> f) & 1]
        if not faces:
            return nine_faces, np.full(len(nine_faces), 1.0 / max(len(nine_faces), 1))  # none: no move is a choice
        kept = [f for f in faces if not (nine_suits >> int(FACE_SUIT[f])) & 1]
        to_nine = (len(faces) - len(kept)) / len(faces)
        moves = kept + (nine_faces if to_nine else [])
        probs = [1.0 / len(faces)] * len(kept) + ([to_nine / len(nine_faces)] * len(nine_faces) if to_nine else [])
        return moves, np.array(probs)

    def _pending(self, seat: int, what: str) -> tuple:
        sets = self.pending.pop(what, None)
        if sets is None or sets[0] != seat:
            raise LuckError(f"seat {seat} (expert) moved with no {what} choice logged before it")
        return sets

    def _play(self, seat: int, face: int, suit: int) -> None:
        if not self.after_draw and self.sids[seat] in HEURISTICS:
            self._choose(seat, face)
        elif not self.after_draw and self.sids[seat] == SID_EXPERT:
            self._choose(seat, face, self._expert_choices(seat))
        H, top, _ = self._after_play(seat, face)
        self.pile[self.top] += 1
        self.H, self.top, self.active = H, top, int(FACE_SUIT[top])
        if suit >= 0:
            self._declare(seat, suit, seat)
            self.active = suit

    def _pair(self, seat: int, suit: int) -> None:
        if self.sids[seat] in HEURISTICS:
            self._choose(seat, -2)
        H, top, under = self._after_play(seat, -2)
        self.pile[self.top] += 1
        self.pile[under] += 1
        self.H, self.top = H, top
        self._declare(seat, suit, seat)
        self.active = suit

    def _choose(self, seat: int, mv: int, choices: tuple[list[int], np.ndarray] | None = None) -> None:
        moves, probs = choices or self._play_choices(seat)
        if mv not in moves:
            raise LuckError(f"seat {seat} played {mv}, not one of its policy's choices {moves}")
        if len(moves) == 1:
            return
        rows = []
        for m in moves:
            H, top, _ = self._after_play(seat, m)
            rows.append(card_blocks(self._blocks(H, top, int(FACE_SUIT[top])), seat, self.first))
        self.acc[2] += rows[moves.index(mv)] - _mean(rows, probs)

    def _declare(self, seat: int, suit: int, mover: int) -> None:
        """A declared suit (T3, D6): corrected when ``seat``'s policy declares at random."""
        sid = self.sids[seat]
        if sid not in HEURISTICS and sid != SID_EXPERT:
            return
        suits = list(range(4))
        if sid == SID_EXPERT:
            tied = self._pending(seat, "declare")[1]
            suits = [s for s in range(4) if (tied >> s) & 1]
        elif sid == SID_SUIT_MAJORITY:
            counts = [float(self.H[seat][(FACE_SUIT == s) & NATURAL].sum()) for s in range(4)]
            suits = [s for s in range(4) if counts[s] == max(counts)]
        if suit not in suits:
            raise LuckError(f"seat {seat} declared suit {suit}, not one of its policy's choices {suits}")
        if len(suits) == 1:
            return
        rows = [card_blocks(self._blocks(self.H, self.top, s), mover, self.first) for s in suits]
        self.acc[2] += rows[suits.index(suit)] - np.mean(rows, axis=0)
