"""The game-design measures (:mod:`nines_sim.experiments.design.work`): their names, the design lineups that play them,
and
each match's values of them (:func:`match_values`, the numerators and denominators the sums add up)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.game.rules import Rules
from nines_sim.results.records import BLOCKED, CAPPED, MatchResults
from nines_sim.results.tally import SHARE_UNIT, njit

if TYPE_CHECKING:
    pass


#: Hands after which the leader's fate is measured (``comeback_1`` .. ``comeback_K``).
COMEBACK_HANDS = 10
MAX_SEATS = 6
LINEUPS = ("heads-up", "table", "same")
MEASURES: tuple[str, ...] = (
    "skill_heads_up", "skill_table", *(f"seat_{k}" for k in range(MAX_SEATS)), "hands", "turns", "turns_per_hand",
    "drawn_per_hand", "blocked_per_hand", "capped_per_hand", "tiebreak_hands", "lead_changes", "spread",
    *(f"comeback_{k}" for k in range(1, COMEBACK_HANDS + 1)),
)  # fmt: skip
INDEX = {m: i for i, m in enumerate(MEASURES)}
#: Which design lineup each measure is played by.
LINEUP_OF = {m: ("heads-up" if m == "skill_heads_up" else "table" if m == "skill_table" else "same") for m in MEASURES}
#: Distributions kept whole (``design_distribution.csv``): name -> what one count is.
HISTOGRAMS = ("hands", "turns_per_hand", "drawn_per_hand", "tiebreak_hands", "lead_changes", "spread")
DESIGN_COLUMNS = [
    "rule_set", "measure", "lineup", "matches", "value", "low", "high", "delta", "delta_low", "delta_high",
    "p_value", "p_holm", "significant",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["rule_set", "measure", "value", "count"]
#: Labels a person reads, and the unit of each measure's value.
WORDS = {
    "skill_heads_up": ("skill heads-up", "points of win rate"),
    "skill_table": ("skill at the table", "points of win rate"),
    "seat_unfairness": ("seat unfairness", "points of win rate"),
    "hands": ("hands per match", "hands"),
    "turns": ("turns per match", "turns"),
    "turns_per_hand": ("turns per hand", "turns"),
    "drawn_per_hand": ("cards drawn per hand", "cards"),
    "blocked_per_hand": ("blocked hands", "per hand"),
    "capped_per_hand": ("capped hands", "per hand"),
    "tiebreak_hands": ("tie-break hands per match", "hands"),
    "lead_changes": ("lead changes per match", "changes"),
    "spread": ("final spread, runner-up minus winner", "points"),
}


class DesignError(ValueError):
    """A design request that cannot be played (an unknown strategy or measure); the message is one line."""


@dataclass(frozen=True)
class DesignSetup:
    """The strategies of the design lineups.

    Attributes
    ----------
    skilled, weak : str
        Strategy specs of the skill lineups (default ``expert`` against ``random``).
    fair : str or None
        The strategy seated everywhere in the ``same`` lineup (None: ``skilled``).
    """

    skilled: str = "expert"
    weak: str = "random"
    fair: str | None = None

    def lineup(self, kind: str, players: int) -> tuple[str, ...]:
        """The seats of design lineup ``kind`` (one of :data:`LINEUPS`) at a table of ``players``."""
        if kind == "heads-up":
            return (self.skilled, self.weak)
        if kind == "table":
            return (self.skilled, *([self.weak] * (players - 1)))
        return (self.fair or self.skilled,) * players

    def rules_for(self, kind: str, rules: Rules) -> Rules:
        """The rule set a design lineup plays: heads-up seats 2 players, the others ``rules`` as given."""
        return rules.replace(players=2) if kind == "heads-up" and rules.players != 2 else rules


def lineups_needed(measures: list[str] | None = None) -> tuple[str, ...]:
    """The design lineups that play ``measures`` (None or ``seat_unfairness`` included: as named)."""
    if measures is None:
        return LINEUPS
    kinds = {LINEUP_OF.get(m, "same") for m in measures}
    return tuple(k for k in LINEUPS if k in kinds)


# ---------------------------------------------------------------- per-match values


@njit(cache=True)
def tension(row: np.ndarray, penalty: np.ndarray, share60: np.ndarray, k_max: int) -> tuple:
    """Lead changes per match and the leader-after-hand-k counts, from hand rows ordered by (match, hand).

    ``row``: int64 (H,), each hand's match position 0..n-1; ``penalty``: int64 (H, P); ``share60``: int64
    (n, P).  Returns ``changes`` int64 (n,), ``num`` and ``den`` int64 (n, k_max): after hand k+1 a sole
    leader (lowest running total) exists -> ``den`` = 60 and ``num`` = 60 minus its win share in 60ths.
    """
    n, P = share60.shape
    changes = np.zeros(n, dtype=np.int64)
    num = np.zeros((n, k_max), dtype=np.int64)
    den = np.zeros((n, k_max), dtype=np.int64)
    run = np.zeros(P, dtype=np.int64)
    cur = -1
    last = -1
    k = 0
    for h in range(row.shape[0]):
        m = row[h]
        if m != cur:
            cur = m
            run[:] = 0
            last = -1
            k = 0
        for a in range(P):
            run[a] += penalty[h, a]
        who = 0
        sole = True
        for a in range(1, P):
            if run[a] < run[who]:
                who = a
                sole = True
            elif run[a] == run[who]:
                sole = False
        if sole:
            if last >= 0 and who != last:
                changes[m] += 1
            last = who
            if k < k_max:
                den[m, k] = SHARE_UNIT
                num[m, k] = SHARE_UNIT - share60[m, who]
        k += 1
    return changes, num, den


def match_values(kind: str, res: MatchResults) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """Per-match numerators and denominators of every measure a design lineup plays, and its histogram data.

    Parameters
    ----------
    kind : str
        The design lineup (:data:`LINEUPS`); seat 0 holds the skilled strategy in ``heads-up`` and ``table``.
    res : MatchResults
        Its matches, ordered by match index.

    Returns
    -------
    num, den : numpy.ndarray
        int64, (n, M) over :data:`MEASURES`; zeros for measures this lineup does not play.
    hists : dict
        Measure name -> int64 values >= 0 whose counts make its distribution (``same`` only).
    """
    n, P = res.totals.shape
    M = len(MEASURES)
    num = np.zeros((n, M), dtype=np.int64)
    den = np.zeros((n, M), dtype=np.int64)
    share60 = np.rint(res.win_share * SHARE_UNIT).astype(np.int64)
    if kind != "same":
        col = INDEX["skill_heads_up" if kind == "heads-up" else "skill_table"]
        num[:, col], den[:, col] = share60[:, 0], SHARE_UNIT
        return num, den, {}
    offset = (np.arange(P)[None, :] - res.first_dealer[:, None]) % P  # seat k places left of the first dealer
    for k in range(P):
        num[:, INDEX[f"seat_{k}"]] = share60[offset == k]
        den[:, INDEX[f"seat_{k}"]] = SHARE_UNIT
    hr = res.hand_records
    row = np.searchsorted(res.match, hr.match).astype(np.int64)
    per_match = {
        "turns": np.bincount(row, weights=hr.turns, minlength=n).astype(np.int64),
        "drawn": np.bincount(row, weights=hr.drawn, minlength=n).astype(np.int64),
        "blocked": np.bincount(row, weights=hr.outcome == BLOCKED, minlength=n).astype(np.int64),
        "capped": np.bincount(row, weights=hr.outcome == CAPPED, minlength=n).astype(np.int64),
    }
    hands = res.hands.astype(np.int64)
    for name, key in (("turns_per_hand", "turns"), ("drawn_per_hand", "drawn"), ("blocked_per_hand", "blocked"),
                      ("capped_per_hand", "capped")):  # fmt: skip
        num[:, INDEX[name]], den[:, INDEX[name]] = per_match[key], hands
    changes, cnum, cden = tension(
        np.ascontiguousarray(row), np.ascontiguousarray(hr.penalty, dtype=np.int64), share60, COMEBACK_HANDS
    )
    totals = np.sort(res.totals, axis=1)
    spread = (totals[:, 1] - totals[:, 0]).astype(np.int64)
    for name, v in (("hands", hands), ("turns", per_match["turns"]), ("lead_changes", changes), ("spread", spread),
                    ("tiebreak_hands", res.tiebreak_hands.astype(np.int64))):  # fmt: skip
        num[:, INDEX[name]], den[:, INDEX[name]] = v, 1
    first = INDEX["comeback_1"]
    num[:, first : first + COMEBACK_HANDS], den[:, first : first + COMEBACK_HANDS] = cnum, cden
    hists = {"hands": hands, "tiebreak_hands": res.tiebreak_hands.astype(np.int64), "lead_changes": changes,
             "spread": spread, "turns_per_hand": hr.turns.astype(np.int64),
             "drawn_per_hand": hr.drawn.astype(np.int64)}  # fmt: skip
    return num, den, hists
