"""Positions laid out as the engine's slots, with the engine's decision broker asking a lineup about them.

For tests that ask a strategy one decision in a hand-built position (what it plays, what it sees), and check
that every card is in exactly one place; playing positions forward is :func:`nines_sim.search.position.play_out`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.broker import DecisionBroker
from nines_sim.game.cards import N_FACES, SUIT_NAMES, parse_card
from nines_sim.game.codes import NINE_RANK, PAIR_OF_NINES
from nines_sim.game.rules import Rules
from nines_sim.game.tables import legal_table
from nines_sim.search.position import Position, PositionBatch, positions_from_engine
from nines_sim.strategy.base import DecisionKind, Observation, Strategy


class PositionSeats:
    """The positions of ``batch`` as slot arrays (copies, by the engine's names), and a broker asking ``lineup``."""

    def __init__(self, batch: PositionBatch, lineup: Sequence[Strategy], seed: int = 0):
        self.rules = batch.rules
        self.B, self.P, self.D = batch.n, batch.rules.players, batch.rules.decks
        self._names = list(batch.arrays)
        for k, v in batch.arrays.items():
            setattr(self, k, [w.copy() for w in v] if isinstance(v, list) else v.copy())  # type: ignore[union-attr]
        self.match = np.arange(self.B, dtype=np.int64)
        self.legal_tab = legal_table(batch.rules)
        self.broker = DecisionBroker(batch.rules, list(lineup), seed, self, self.legal_tab)  # type: ignore[arg-type]

    def position(self, b: int) -> Position:
        """Game ``b`` as a :class:`~nines_sim.search.position.Position` (as its arrays stand now)."""
        a = {k: getattr(self, k) for k in self._names}
        return PositionBatch(self.rules, a).position(b)  # type: ignore[arg-type]

    def observe(
        self, idx: np.ndarray, seats: np.ndarray, kind: DecisionKind, legal: np.ndarray | None = None
    ) -> Observation:
        """What the players at ``seats`` of positions ``idx`` see (:meth:`DecisionBroker.observe`)."""
        return self.broker.observe(idx, seats, kind, legal)

    def decide(
        self,
        kind: DecisionKind,
        idx: np.ndarray,
        seats: np.ndarray,
        legal: np.ndarray | None = None,
        card: np.ndarray | None = None,
    ) -> np.ndarray:
        """The seats' strategies' answers, validated (:meth:`DecisionBroker.decide`)."""
        return self.broker.decide(kind, idx, seats, legal=legal, card=card)

    def card_counts(self) -> np.ndarray:
        """Copies of each face in every place: int64 (B, 52) (:func:`card_counts`)."""
        return card_counts(self)


def card_counts(s: PositionSeats | CompiledEngine) -> np.ndarray:
    """Copies of each face in every place (hands, discard pile, top card, stock) of each slot, for checks.

    Returns
    -------
    numpy.ndarray
        int64, shape (B, 52): ``rules.decks`` everywhere in a game whose cards are all in one place each.
    """
    B, P, D = s.hands[0].shape[0], s.hands[0].shape[1], len(s.hands)
    bits = np.arange(N_FACES, dtype=np.uint64)
    one = np.uint64(1)
    counts = np.zeros((B, N_FACES), dtype=np.int64)
    for d in range(D):
        for p in range(P):
            counts += ((s.hands[d][:, p, None] >> bits) & one).astype(np.int64)
        counts += ((s.under[d][:, None] >> bits) & one).astype(np.int64)
    counts[np.arange(B), s.top] += 1
    col = np.arange(s.stock.shape[1])
    in_stock = (col >= s.stock_pos[:, None]) & (col < s.stock_end[:, None])
    flat = (np.arange(B)[:, None] * N_FACES + s.stock.astype(np.int64))[in_stock]
    counts += np.bincount(flat, minlength=B * N_FACES).reshape(B, N_FACES)
    return counts


def dealt(
    rules: Rules, lineup: Sequence[Strategy], seed: int, n: int, start: int = 0, turn: int = 0
) -> tuple[PositionSeats, dict[int, list[tuple]]]:
    """Matches ``start .. start + n - 1`` of ``seed`` stopped at turn ``turn`` of their first hand (D4-D7: at
    ``turn=0``, as dealt), played on the traced compiled engine, and each match's events up to there.

    Raises
    ------
    AssertionError
        If a match's first hand ends before that turn.
    """
    positions, traces = [], {}
    for m in range(start, start + n):
        eng = CompiledEngine(rules, lineup, seed, m, 1, trace=True)
        eng.stop_at(0, turn)
        while eng.B and not eng.paused:
            eng.advance()
        assert eng.paused, f"match {m}'s first hand ends before turn {turn}"
        positions.append(positions_from_engine(eng).position(0))
        assert eng.trace is not None
        traces[m] = eng.trace.get(m, [])
    return PositionSeats(PositionBatch.from_positions(positions), lineup, seed), traces


def stacked(
    rules: Rules,
    lineup: Sequence[Strategy],
    hands: dict[int, str],
    top: str,
    active: str | None = None,
    stock: str = "",
    copies: int = 1,
    drew_on: dict[int, str] | None = None,
) -> PositionSeats:
    """``copies`` games of one hand-built position, seat 0 to move, each game with its own decision stream.

    ``hands`` maps every seat to card names, ``stock`` is drawn from its first card on, ``drew_on`` maps a
    seat to the suits it drew on (T1 public history).  The cards named nowhere lie under the top card of the
    discard pile, unseen: the public history of played cards is the top card alone.
    """
    P, D = rules.players, rules.decks
    held = [parse_card(t) for p in range(P) for t in hands[p].split()] + [parse_card(t) for t in stock.split()]
    t = parse_card(top)
    left = Counter({f: D for f in range(N_FACES)})
    left.subtract(held + [t])
    pile = [f for f, k in sorted(left.items()) for _ in range(k)]
    pos = Position(
        rules,
        tuple(tuple(parse_card(x) for x in hands[p].split()) for p in range(P)),
        tuple(parse_card(x) for x in stock.split()),
        tuple(pile),
        t,
        SUIT_NAMES.index(active) if active else t // 13,
        seat=0,
        dealer=P - 1,
        played=1 << t,
        drew_on=tuple(sum(1 << SUIT_NAMES.index(s) for s in (drew_on or {}).get(p, "")) for p in range(P)),
    )
    batch = PositionBatch.from_positions([pos] * copies)
    batch.arrays["dkey"] = np.arange(1, copies + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    return PositionSeats(batch, lineup)


def first_decisions(seats: PositionSeats) -> tuple[np.ndarray, np.ndarray | None]:
    """Seat 0's play in every game (T1, T2, V4) and, where it played a 9 or two, its declaration (T3).

    Returns int64 (copies,) plays and int64 declarations (one per game that played a 9), or None.
    """
    idx = np.arange(seats.B)
    held = np.zeros(seats.B, dtype=np.uint64)
    for w in seats.hands:
        held |= w[:, 0]
    legal = held & seats.legal_tab[seats.top * 4 + seats.active]
    plays = seats.decide(DecisionKind.PLAY, idx, np.zeros(seats.B, dtype=np.int64), legal=legal)
    nine = (plays == PAIR_OF_NINES) | ((plays < N_FACES) & (plays % 13 == NINE_RANK))
    if not nine.any():
        return plays, None
    ni = idx[nine]
    for b in ni:  # the 9 (or the pair) leaves the hand before the declaration
        out = [int(plays[b])] if plays[b] != PAIR_OF_NINES else []
        if not out:
            nines = [f for f in range(N_FACES) for w in seats.hands if (int(w[b, 0]) >> f) & 1 and f % 13 == NINE_RANK]
            out = nines[-2:] if len(nines) >= 2 else nines
        for f in out:
            for w in seats.hands:
                if (int(w[b, 0]) >> f) & 1:
                    w[b, 0] &= ~np.uint64(1 << f)
                    break
        seats.ncards[b, 0] -= len(out)
    declares = seats.decide(DecisionKind.DECLARE, ni, np.zeros(ni.size, dtype=np.int64))
    return plays, declares
