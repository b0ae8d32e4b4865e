"""Per-match and per-hand results of a simulation, and how they merge.

Produced by :mod:`nines_sim.engine.batch` and consumed by aggregation and reports.
Arrays are ordered by match index (and hand number), so results do not depend
on the batch size or the number of worker processes that produced them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

#: Outcome codes of a hand (``HandRecords.outcome``): a seat >= 0 went out (O1), BLOCKED (T7), CAPPED (T8).
from nines_sim.game.codes import BLOCKED, CAPPED  # noqa: F401 - re-exported


def _ascending(major: np.ndarray, minor: np.ndarray | None = None) -> bool:
    """Whether rows are already in sorted order, so that sorting them would change nothing.

    ``major`` non-decreasing (strictly increasing when there is no ``minor``) and
    ``minor`` strictly increasing within equal ``major``.
    """
    if minor is None:
        return bool((major[1:] > major[:-1]).all())
    if not (major[1:] >= major[:-1]).all():
        return False
    return bool(((minor[1:] > minor[:-1]) | (major[1:] != major[:-1])).all())


@dataclass
class HandRecords:
    """One row per regular hand (tie-break hands are not "hands" for statistics, S4).

    Attributes
    ----------
    match : numpy.ndarray
        int64, (H,): match index.
    hand : numpy.ndarray
        int64, (H,): hand number within the match, from 0.
    dealer : numpy.ndarray
        int64, (H,): dealer's seat (D2, D3).
    outcome : numpy.ndarray
        int64, (H,): seat that went out, or ``BLOCKED`` (-1) or ``CAPPED`` (-2).
    penalty : numpy.ndarray
        int64, (H, P): points each seat added this hand (S1).
    turns : numpy.ndarray
        int64, (H,): turns taken (plays, draws, passes; skipped players take none).
    drawn : numpy.ndarray
        int64, (H,): cards drawn from the stock, penalty draws included.
    reshuffles : numpy.ndarray
        int64, (H,): rebuilds of the stock from the discard pile (T5, T6).
    nine_starter : numpy.ndarray
        bool, (H,): whether the starter was a 9 (D6).
    """

    match: np.ndarray
    hand: np.ndarray
    dealer: np.ndarray
    outcome: np.ndarray
    penalty: np.ndarray
    turns: np.ndarray
    drawn: np.ndarray
    reshuffles: np.ndarray
    nine_starter: np.ndarray

    @classmethod
    def concat(cls, parts: list[HandRecords], players: int) -> HandRecords:
        """Concatenate and sort by (match, hand)."""
        if not parts:
            z = np.zeros(0, dtype=np.int64)
            return cls(z, z, z, z, np.zeros((0, players), dtype=np.int64), z, z, z, z.astype(bool))
        if len(parts) == 1 and _ascending(parts[0].match, parts[0].hand):
            return parts[0]
        cols = {f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        match, hand = cols["match"], cols["hand"]
        if _ascending(match, hand):  # the compiled engine and ordered chunks: skip a sort and a copy
            return cls(**cols)
        order = np.lexsort((hand, match))
        return cls(**{k: v[order] for k, v in cols.items()})

    def __len__(self) -> int:
        return int(self.match.shape[0])


@dataclass
class MatchResults:
    """Results of ``n`` matches played under one rule set and lineup.

    Attributes
    ----------
    seed : int
        The run's seed.
    match : numpy.ndarray
        int64, (n,): match indices, ascending.
    totals : numpy.ndarray
        int64, (n, P): final running totals in points (S1, S2).
    win_share : numpy.ndarray
        float64, (n, P): 1 for the winner, 0 otherwise; 1/k each for k tied
        players under ``tie_rule="share"`` (S4).
    hands : numpy.ndarray
        int64, (n,): regular hands played.
    tiebreak_hands : numpy.ndarray
        int64, (n,): tie-break hands played (S4).
    first_dealer : numpy.ndarray
        int64, (n,): seat of the first dealer (D2).
    hand_records : HandRecords
        One row per regular hand.
    """

    seed: int
    match: np.ndarray
    totals: np.ndarray
    win_share: np.ndarray
    hands: np.ndarray
    tiebreak_hands: np.ndarray
    first_dealer: np.ndarray
    hand_records: HandRecords

    @property
    def n_matches(self) -> int:
        return int(self.match.shape[0])

    def select(self, keep: np.ndarray) -> MatchResults:
        """The matches where ``keep`` (bool, (n,)) holds, with their hands (``self`` when it holds for all)."""
        if keep.all():
            return self
        hr = self.hand_records
        rows = np.isin(hr.match, self.match[keep])
        hands = HandRecords(**{f.name: getattr(hr, f.name)[rows] for f in fields(HandRecords)})
        return MatchResults(
            self.seed, self.match[keep], self.totals[keep], self.win_share[keep], self.hands[keep],
            self.tiebreak_hands[keep], self.first_dealer[keep], hands,
        )  # fmt: skip

    @classmethod
    def concat(cls, parts: list[MatchResults]) -> MatchResults:
        """Merge results of disjoint match ranges (same seed, rules and lineup), ordered by match."""
        if not parts:
            raise ValueError("no results to merge")
        if len(parts) == 1 and _ascending(parts[0].match):
            hr = parts[0].hand_records
            if _ascending(hr.match, hr.hand):
                return parts[0]
        players = parts[0].totals.shape[1]
        names = ("match", "totals", "win_share", "hands", "tiebreak_hands", "first_dealer")
        cols = {k: np.concatenate([getattr(p, k) for p in parts]) for k in names}
        if not _ascending(cols["match"]):
            order = np.argsort(cols["match"], kind="stable")
            cols = {k: v[order] for k, v in cols.items()}
        return cls(
            seed=parts[0].seed,
            **cols,
            hand_records=HandRecords.concat([p.hand_records for p in parts], players),
        )
