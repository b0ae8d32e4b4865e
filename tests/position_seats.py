"""Positions laid out as the engine's slots, with the engine's decision broker asking a lineup about them.

For tests that ask a strategy one decision in a hand-built position (what it plays, what it sees), and check
that every card is in exactly one place; playing positions forward is :func:`nines_sim.search.position.play_out`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nines_sim.engine.batch import CompiledEngine
from nines_sim.engine.broker import DecisionBroker
from nines_sim.game.cards import N_FACES
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
