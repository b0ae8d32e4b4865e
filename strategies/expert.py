"""``expert``: the rule documents' tips played together."""

from __future__ import annotations

import numpy as np

from nines_sim.game.cards import FACE_RANK, FACE_SUIT, NATURALS, NINE_RANK, NINES, RANK_MASK, SUIT_MASK, natural_penalty
from nines_sim.strategy.base import Observation, Strategy
from nines_sim.strategy.choice import pick_bit
from nines_sim.strategy.params import Param

#: Weight of a card's penalty points when choosing what to shed.
#: Tip "shed high cards (K, Q, J at 10 each) early" (seeds 000/003/004, section 10).
W_PENALTY = 1.0
#: Weight of each natural card left in the played card's suit: a suit we can follow next turn.
#: Tip "declare the suit you hold most of, so you can play again next turn" (same section), applied to plays.
W_FOLLOW = 3.0
#: Bonus for leaving an active suit that an opponent about to go out had to draw on.
#: Tip "a player who drew while a suit was active is probably short of it" and "a player with
#: 1-2 cards is one move from going out: play a suit they cannot match" (same section).
W_BLOCK = 4.0
#: Hand size at or below which an opponent counts as about to go out. The tip says "1-2
#: cards"; measured over 20,000 4-seat matches, reacting already at 2 cards cost about one
#: point of win rate (it spends 9s and good plays too early), so the threshold is 1.
DANGER_CARDS = 1
#: The next player matters most: they move first on what we leave.
NEXT_PLAYER_FACTOR = 2.0
#: With this many cards or fewer a 9 is played as soon as it is legal rather than carried to the
#: end of the hand, where it costs 15 (or 25) points. Tip "keep a 9 for the critical moment,
#: but do not still hold it when the hand ends".
SHED_NINE_AT = 2
#: Hand size at or below which the next player makes us spend a 9 to switch to a suit they drew on.
SWITCH_AGAINST = 1

_NATURAL_PENALTY = np.array([0 if r == NINE_RANK else natural_penalty(r) for r in FACE_RANK], dtype=np.float64)
_FACE_BITS = np.uint64(1) << np.arange(52, dtype=np.uint64)


def _bits(mask: np.ndarray) -> np.ndarray:
    """(n,) uint64 -> (n, 52) bool."""
    return (mask[:, None] & _FACE_BITS) != 0


class Expert(Strategy):
    """Sheds the dearest legal natural card, preferring suits it can follow and suits that an
    opponent about to go out has drawn on; keeps its 9s while a natural will do, unless an
    opponent is about to go out (then a 9 switches to a suit that opponent drew on) or its
    own hand is nearly empty; declares the suit it holds most of, or a suit the threatening
    opponent drew on.  Parameters that are off at their defaults add more of the tips: following
    on rank (``w_rank``), leaving suits the next player drew on (``w_short``, ``declare_short``)
    or whose cards are already played (``w_scarce``, counting cards), and shedding dear cards and
    9s once an opponent is about to go out (``end_cards``, ``w_penalty_end``, ``nine_at_end``);
    ``nines tune`` sets them (docs/tuned/).  Source: the tips of the classic rule text (seeds
    000/003/004, section 10)."""

    name = "expert"
    classifier = {"stochastic": True, "uses_public_history": True, "plays_pair_of_nines": False}
    kernel_id = 5  # its compiled twin: expert_compiled.py
    # The named constants above, as parameters with today's values as defaults; the bounds are
    # the tuner's search range (`nines tune expert`), wide enough to switch each tip off or overdo it.
    params = (
        Param(
            "w_penalty",
            "float",
            W_PENALTY,
            0.0,
            5.0,
            help="weight of a card's penalty points when shedding (tip: shed K, Q, J early)",
        ),
        Param(
            "w_follow",
            "float",
            W_FOLLOW,
            0.0,
            10.0,
            help="weight of each natural left in the played suit (tip: keep a suit you can follow)",
        ),
        Param(
            "w_block",
            "float",
            W_BLOCK,
            0.0,
            12.0,
            help="bonus for leaving a suit a nearly-out opponent drew on (tip: play a suit they cannot match)",
        ),
        Param(
            "danger_cards",
            "int",
            DANGER_CARDS,
            0,
            4,
            help="hand size at or below which an opponent counts as about to go out (tip: 1-2 cards)",
        ),
        Param(
            "next_player_factor",
            "float",
            NEXT_PLAYER_FACTOR,
            0.0,
            6.0,
            help="how much more the next player's threat counts (they move first on what we leave)",
        ),
        Param(
            "shed_nine_at",
            "int",
            SHED_NINE_AT,
            0,
            8,
            help="own hand size at or below which a 9 is played at once (tip: do not hold a 9 at the end)",
        ),
        Param(
            "switch_against",
            "int",
            SWITCH_AGAINST,
            0,
            4,
            help="next player's hand size at or below which a 9 switches to a suit they drew on",
        ),
        Param(
            "spare_nines",
            "int",
            8,
            0,
            8,
            help="9s held beyond this many are played like naturals (tip: keep one or two 9s for the end)",
        ),
        Param(
            "declare_points",
            "float",
            1.0,
            0.0,
            200.0,
            help="weight of penalty points held in a suit against 100 per card when declaring (tip: shed K, Q, J)",
        ),
        Param(
            "w_rank",
            "float",
            0.0,
            0.0,
            10.0,
            help="weight of each other natural of the played card's rank held (tip: be able to play again next turn)",
        ),
        Param(
            "w_short",
            "float",
            0.0,
            0.0,
            12.0,
            help="bonus for leaving a suit the next player drew on, at any hand size (tip: they are short of it)",
        ),
        Param(
            "end_cards",
            "int",
            0,
            0,
            6,
            help="an opponent with this many cards or fewer makes the hand's end near (0: never; tip: 1-2 cards)",
        ),
        Param(
            "w_penalty_end",
            "float",
            0.0,
            0.0,
            10.0,
            help="extra weight of penalty points while the end is near (tip: do not hold faces at the end)",
        ),
        Param(
            "nine_at_end",
            "int",
            0,
            0,
            1,
            help="1: play a legal 9 while the end is near (tip: the 9's 15 points are the dearest at the end)",
        ),
        Param(
            "w_scarce",
            "float",
            0.0,
            0.0,
            5.0,
            help="weight of each card of the played suit already played this hand (tip: watch the suits played)",
        ),
        Param(
            "declare_short",
            "float",
            0.0,
            0.0,
            10.0,
            help="bonus, against 1 per card held, for declaring a suit the next player drew on (tip: make them draw)",
        ),
    )

    def _threat(self, obs: Observation) -> np.ndarray:
        """Per game and suit, how much leaving that suit active hinders opponents about to go out.

        Returns float64, shape (n, 4).
        """
        P, n = obs.players, obs.n
        sizes, drew = obs.hand_sizes, obs.drew_on
        step = obs.direction
        nxt = (obs.seat + step) % P
        threat = np.zeros((n, 4))
        for p in range(P):
            close = (sizes[:, p] > 0) & (sizes[:, p] <= self.danger_cards) & (p != obs.seat)
            weight = np.where(nxt == p, self.next_player_factor, 1.0) * close
            for s in range(4):
                threat[:, s] += weight * ((drew[:, p] >> s) & 1)
        return threat

    def _next_drew_on(self, obs: Observation) -> np.ndarray:
        """Per game and suit, 1 where the next player drew while that suit was active this hand: int64 (n, 4)."""
        nxt = (obs.seat + obs.direction) % obs.players
        return (obs.drew_on[np.arange(obs.n), nxt][:, None] >> np.arange(4)) & 1

    def _suit_played(self, obs: Observation) -> np.ndarray:
        """Natural faces of each suit played this hand (public), float64 (n, 4)."""
        return np.stack(
            [np.bitwise_count(obs.played & SUIT_MASK[s] & np.uint64(NATURALS)).astype(np.float64) for s in range(4)],
            axis=1,
        )

    def _near_end(self, obs: Observation) -> np.ndarray:
        """Per game, whether an opponent holds ``end_cards`` cards or fewer: bool (n,)."""
        near = np.zeros(obs.n, dtype=bool)
        for p in range(obs.players):
            size = obs.hand_sizes[:, p]
            near |= (size > 0) & (size <= self.end_cards) & (p != obs.seat)
        return near

    def _next_size(self, obs: Observation) -> np.ndarray:
        nxt = (obs.seat + obs.direction) % obs.players
        return obs.hand_sizes[np.arange(obs.n), nxt]

    def _suit_holdings(self, obs: Observation) -> np.ndarray:
        return obs.suit_counts(np.uint64(NATURALS)).astype(np.float64)

    def _rank_holdings(self, obs: Observation) -> np.ndarray:
        """Cards held per rank (both decks), float64 (n, 13)."""
        return np.stack(
            [sum(np.bitwise_count(w & RANK_MASK[r]).astype(np.float64) for w in obs.hand) for r in range(13)], axis=1
        )

    def play(self, obs: Observation) -> np.ndarray:
        n = obs.n
        legal = _bits(obs.legal)
        natural = legal & ~_bits(np.full(n, NINES, dtype=np.uint64))
        held = self._suit_holdings(obs)
        threat = self._threat(obs)
        danger = threat.sum(axis=1) > 0
        # score of each natural legal card: its penalty, what we can follow with (by suit and by rank),
        # what it blocks, and whether the next player drew on its suit
        suit_of = FACE_SUIT.astype(np.int64)
        rank_of = FACE_RANK.astype(np.int64)
        follow = held[:, suit_of] - 1.0  # the card itself leaves the suit
        same_rank = self._rank_holdings(obs)[:, rank_of] - 1.0
        short = self._next_drew_on(obs)
        near_end = self._near_end(obs)
        w_pen = self.w_penalty + self.w_penalty_end * near_end.astype(np.float64)
        score = (
            w_pen[:, None] * _NATURAL_PENALTY[None, :]
            + self.w_follow * follow
            + self.w_block * threat[:, suit_of]
            + self.w_rank * same_rank
            + self.w_short * short[:, suit_of]
            + self.w_scarce * self._suit_played(obs)[:, suit_of]
        )
        score = np.where(natural, score, -np.inf)
        best = score.max(axis=1)
        # ties broken uniformly at random among the best naturals
        top = natural & (score >= best[:, None] - 1e-9)
        top_mask = (top.astype(np.uint64) * _FACE_BITS).sum(axis=1, dtype=np.uint64)
        choice = pick_bit(top_mask, obs.random())
        # a 9: when no natural is legal; when an opponent about to go out is not already
        # blocked by the natural we would play; or to avoid carrying it to the end
        nines = obs.legal & np.uint64(NINES)
        has_nine = nines != 0
        has_natural = natural.any(axis=1)
        best_suit = np.where(has_natural, suit_of[np.maximum(choice, 0)], 0)
        natural_blocks = threat[np.arange(n), best_suit] > 0
        can_block_with_nine = (threat.max(axis=1) > 0) & (self._next_size(obs) <= self.switch_against)
        own_cards = obs.hand_sizes[np.arange(n), obs.seat]
        # more 9s than the ones worth keeping: the spare ones go like any card
        nines_held = sum(np.bitwise_count(w & np.uint64(NINES)).astype(np.int64) for w in obs.hand)
        use_nine = has_nine & (
            ~has_natural
            | (danger & can_block_with_nine & ~natural_blocks)
            | (own_cards <= self.shed_nine_at)
            | (nines_held > self.spare_nines)
            | (near_end & (self.nine_at_end > 0))
        )
        nine = pick_bit(nines, obs.random(salt=2))
        return np.where(use_nine, nine, choice)

    def declare(self, obs: Observation) -> np.ndarray:
        held = self._suit_holdings(obs)
        # points held per suit break ties towards the suit whose dear cards we want to shed
        pts = np.zeros_like(held)
        for s in range(4):
            for w in obs.hand:
                m = w & SUIT_MASK[s] & np.uint64(NATURALS)
                pts[:, s] += (_bits(m) * _NATURAL_PENALTY[None, :]).sum(axis=1)
        score = (
            held * 100.0
            + self.declare_points * pts
            + self.w_block * 100.0 * self._threat(obs)
            + self.declare_short * 100.0 * self._next_drew_on(obs)
        )
        best = score == score.max(axis=1, keepdims=True)
        tied = (best * (1 << np.arange(4))).sum(axis=1).astype(np.uint64)
        return pick_bit(tied, obs.random(salt=1))

    def play_drawn(self, obs: Observation, card: np.ndarray) -> np.ndarray:
        # a drawn 9 is kept for the critical moment unless the hand is nearly empty
        own_cards = obs.hand_sizes[np.arange(obs.n), obs.seat]
        return (FACE_RANK[card] != NINE_RANK) | (own_cards - 1 <= self.shed_nine_at)
