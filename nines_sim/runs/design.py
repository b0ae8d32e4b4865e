"""Game-design measures of a rule set: skill, seat fairness, length, comebacks and tension.

A person who designs or chooses house rules asks of a variant: is it more a game of skill or of luck?
Is it fair to the player who deals first?  Do matches get longer?  Can a player who falls behind come
back?  Each question is answered by a *measure*: a ratio ``sum(num) / sum(den)`` of per-match integers
played by a *design lineup*:

``heads-up``
    the skilled strategy against the weak one at a 2-seat table (the rule set's other options kept);
``table``
    one skilled strategy among weak ones at the rule set's table size;
``same``
    the same strategy (``fair``, default the skilled one) in every seat: seat fairness, length,
    comebacks and tension.

Measures (``MEASURES``; win shares in 60ths, so every sum is a whole number):

- ``skill_heads_up``, ``skill_table``: the skilled strategy's win rate above the fair share (1/2, 1/P);
- ``seat_k`` (k = 0..5): win rate of the seat ``k`` places to the left of the first dealer (D2, D3;
  ``seat_1`` plays first, D7), identical strategies; ``seat_unfairness`` (derived) is the largest
  deviation of a ``seat_k`` from the fair share 1/P;
- ``hands`` (regular hands per match, S2/S3), ``turns`` (per match, in regular hands), ``turns_per_hand``,
  ``drawn_per_hand`` (cards drawn from the stock, penalty draws included), ``blocked_per_hand`` (T7),
  ``capped_per_hand`` (T8), ``tiebreak_hands`` (per match, S4);
- ``comeback_k`` (k = 1..K): the chance that the player leading after hand k (the one lowest total,
  S2; matches where the lowest total after hand k is shared do not count) does not win the match (one
  minus its win share); ``lead_changes`` per match (times the sole leader differs from the last sole
  leader); ``spread``: the runner-up's final total minus the winner's (points).

Every run of a comparison plays the same seed and match indices under every rule set (common random
numbers), so each measure's difference from the reference rule set is paired match by match.  The sums
kept (:class:`DesignSums`) are counts, sums of squares and cross products of integers: chunks merge by
addition, exactly, at any chunk size and in any order, as :class:`nines_sim.results.tally.Tally` does.  The
interval of a ratio is the delta-method (linearised) t interval over matches; the interval of a paired
difference is the t interval of the difference of the linearised per-match values (``scipy.stats.t``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.game.rules import Rules
from nines_sim.results.records import BLOCKED, CAPPED, MatchResults
from nines_sim.results.stats import holm
from nines_sim.results.tally import SHARE_UNIT, _add_hist, njit

if TYPE_CHECKING:
    import pandas as pd

    from nines_sim.runs.backends import Backend
    from nines_sim.runs.ranges import Range

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
def _tension(row: np.ndarray, penalty: np.ndarray, share60: np.ndarray, k_max: int) -> tuple:
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
    changes, cnum, cden = _tension(
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


# ---------------------------------------------------------------- mergeable sums


@dataclass
class DesignSums:
    """Sums over matches of every rule set's measures, and their cross products with the first rule set's.

    Attributes (``R`` rule sets, ``M = len(MEASURES)``)
    ----------
    matches : numpy.ndarray
        int64, (R, M): matches summed (per lineup: the same for every rule set of a comparison).
    s : numpy.ndarray
        int64, (R, M, 5): sums of ``num``, ``den``, ``num**2``, ``den**2``, ``num*den``.
    x : numpy.ndarray
        int64, (R, M, 4): sums of ``num_r*num_0``, ``num_r*den_0``, ``den_r*num_0``, ``den_r*den_0`` with the
        same match of rule set 0 (the reference).
    hists : dict
        Measure name -> int64 (R, V): counts of each value 0..V-1 (:data:`HISTOGRAMS`).
    """

    rule_sets: int
    matches: np.ndarray = field(default=None)  # type: ignore[assignment]
    s: np.ndarray = field(default=None)  # type: ignore[assignment]
    x: np.ndarray = field(default=None)  # type: ignore[assignment]
    hists: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        R, M = self.rule_sets, len(MEASURES)
        if self.matches is None:
            self.matches = np.zeros((R, M), dtype=np.int64)
        if self.s is None:
            self.s = np.zeros((R, M, 5), dtype=np.int64)
        if self.x is None:
            self.x = np.zeros((R, M, 4), dtype=np.int64)

    def add_lineup(self, kind: str, values: list[tuple[np.ndarray, np.ndarray, dict]]) -> None:
        """Add one design lineup's matches under every rule set (``values[r]``: :func:`match_values` of rule
        set ``r``, the same match indices in the same order)."""
        n0, d0 = values[0][0], values[0][1]
        ours = np.array([LINEUP_OF[m] == kind for m in MEASURES])
        seats = np.array([m.startswith("seat_") for m in MEASURES])
        for r, (num, den, hists) in enumerate(values):
            if num.shape[0] != n0.shape[0]:
                raise ValueError("the rule sets did not play the same matches")
            played = ours & ~(seats & ~(den != 0).any(axis=0))  # a seat the table does not have is not played
            self.matches[r] += np.where(played, num.shape[0], 0)
            self.s[r] += np.stack([num.sum(0), den.sum(0), (num * num).sum(0), (den * den).sum(0),
                                   (num * den).sum(0)], axis=-1)  # fmt: skip
            self.x[r] += np.stack([(num * n0).sum(0), (num * d0).sum(0), (den * n0).sum(0), (den * d0).sum(0)],
                                  axis=-1)  # fmt: skip
            for name, v in hists.items():
                h = np.bincount(v, minlength=1).astype(np.int64)
                counts = np.zeros((self.rule_sets, h.shape[0]), dtype=np.int64)
                counts[r] = h
                self.hists[name] = _add_hist(self.hists[name], counts) if name in self.hists else counts

    def __add__(self, o: DesignSums) -> DesignSums:
        hists = dict(self.hists)
        for k, v in o.hists.items():
            hists[k] = _add_hist(hists[k], v) if k in hists else v
        return DesignSums(self.rule_sets, self.matches + o.matches, self.s + o.s, self.x + o.x, hists)


@dataclass(frozen=True)
class Estimate:
    """A measure's value, 95% interval and standard error (NaN where it was not played)."""

    value: float
    low: float
    high: float
    se: float
    matches: int


def _t(df: int) -> float:
    from scipy import stats

    return float(stats.t.ppf(0.975, max(df, 1)))


def estimate(sums: DesignSums, r: int, measure: str) -> Estimate:
    """The ratio ``sum(num) / sum(den)`` of rule set ``r``, with its delta-method t interval (95%)."""
    m = INDEX[measure]
    n = int(sums.matches[r, m])
    sn, sd, snn, sdd, snd = (float(v) for v in sums.s[r, m])
    if n == 0 or sd == 0:
        return Estimate(math.nan, math.nan, math.nan, math.nan, n)
    ratio = sn / sd
    dbar = sd / n
    ss = max(snn - 2 * ratio * snd + ratio * ratio * sdd, 0.0) / dbar**2  # sum of squared linearised values
    se = math.sqrt(ss / max(n - 1, 1) / n) if n > 1 else math.nan
    half = _t(n - 1) * se
    return Estimate(ratio, ratio - half, ratio + half, se, n)


def paired_delta(sums: DesignSums, r: int, measure: str) -> tuple[float, float, float, float]:
    """Rule set ``r`` minus the reference (rule set 0) on the same matches: delta, 95% interval, p-value.

    The t interval and two-sided t-test of the per-match difference of the linearised values (delta method).
    A difference of 0 with no spread (the same rule set twice) has the interval (0, 0) and p = 1.
    """
    from scipy import stats

    m = INDEX[measure]
    a, b = estimate(sums, r, measure), estimate(sums, 0, measure)
    n = int(sums.matches[r, m])
    if r == 0 or math.isnan(a.value) or math.isnan(b.value) or n != int(sums.matches[0, m]) or n < 2:
        return math.nan, math.nan, math.nan, math.nan
    sn_r, sd_r, snn_r, sdd_r, snd_r = (float(v) for v in sums.s[r, m])
    sn_0, sd_0, snn_0, sdd_0, snd_0 = (float(v) for v in sums.s[0, m])
    xnn, xnd, xdn, xdd = (float(v) for v in sums.x[r, m])
    Ra, Rb, da, db = a.value, b.value, sd_r / n, sd_0 / n
    saa = (snn_r - 2 * Ra * snd_r + Ra * Ra * sdd_r) / da**2
    sbb = (snn_0 - 2 * Rb * snd_0 + Rb * Rb * sdd_0) / db**2
    sab = (xnn - Rb * xnd - Ra * xdn + Ra * Rb * xdd) / (da * db)
    var = max(saa + sbb - 2 * sab, 0.0) / (n - 1)
    delta = Ra - Rb
    se = math.sqrt(var / n)
    if se < 1e-12 * max(1.0, abs(delta)):
        return delta, delta, delta, 1.0 if abs(delta) < 1e-12 else 0.0
    half = _t(n - 1) * se
    p = float(2 * stats.t.sf(abs(delta) / se, n - 1))
    return delta, delta - half, delta + half, p


def fair_share(measure: str, players: int) -> float:
    """What a measure would be if skill or seat made no difference (0 for others)."""
    if measure == "skill_heads_up":
        return 0.5
    if measure == "skill_table" or measure.startswith("seat_"):
        return 1 / players
    return 0.0


# ---------------------------------------------------------------- playing


@dataclass(frozen=True)
class DesignSet:
    """One rule set of a design run: its label and rules."""

    label: str
    rules: Rules


@dataclass(frozen=True)
class DesignJob:
    """What every chunk of a design run plays: the rule sets, the design lineups ``kinds``, the seed and the
    engines' batch size (pickled once per chunk to a worker)."""

    sets: list[DesignSet]
    setup: DesignSetup
    kinds: tuple[str, ...]
    seed: int
    batch_size: int


def design_range(
    job: DesignJob,
    start: int,
    n: int,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> DesignSums | None:
    """Play matches ``start .. start+n-1`` of each design lineup in ``kinds`` under every rule set.

    The unit of work of :func:`run_design` (whole or nothing: None when ``should_stop`` held before the
    chunk's last run finished).  Every rule set plays the same seed and match indices.
    """
    from nines_sim.engine.batch import make_engine
    from nines_sim.strategy.registry import make_lineup

    out = DesignSums(len(job.sets))
    for kind in job.kinds:
        values = []
        for ds in job.sets:
            if should_stop and should_stop():
                return None
            rules = job.setup.rules_for(kind, ds.rules)
            lineup = job.setup.lineup(kind, rules.players)
            res = make_engine(rules, make_lineup(list(lineup)), job.seed, start, n, min(job.batch_size, n)).run()
            values.append(match_values(kind, res))
            if on_matches:
                on_matches(n, 0)
        out.add_lineup(kind, values)
    if on_matches:
        on_matches(0, n * len(job.sets) * len(job.kinds))
    return out


def design_units(job: DesignJob, ranges: list[Range], size: int) -> Iterator[tuple[tuple[int, int], tuple]]:
    """The units of :func:`design_range`, lazily: ``((start, n), args)`` per chunk of ``ranges``."""
    from nines_sim.runs.ranges import cut

    for s, n in cut(ranges, size):
        yield (s, n), (job, s, n)


@dataclass
class DesignOutcome:
    """Merged sums of a design run, the match ranges kept, and whether Ctrl-C cut it short."""

    sets: list[DesignSet]
    sums: DesignSums
    kept: list[tuple[int, int]]
    partial: bool


def run_design(
    sets: list[DesignSet],
    setup: DesignSetup,
    n_matches: int,
    seed: int,
    workers: int = 1,
    batch_size: int = 32768,
    kinds: tuple[str, ...] = LINEUPS,
    start: int = 0,
    chunk_size: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> DesignOutcome:
    """Play ``n_matches`` matches (from ``start``) of each design lineup under every rule set; merge the sums.

    Parameters
    ----------
    sets : list of DesignSet
        The first is the reference of the paired differences.
    kinds : tuple of str
        The design lineups to play (:func:`lineups_needed`).
    backend : Backend, optional
        Where the units run (:mod:`nines_sim.runs.backends`; a Dask cluster's gives the same sums, whatever
        its workers or the chunk size); default ``workers`` local processes.

    Raises
    ------
    DesignError
        For an unknown strategy spec.
    """
    from nines_sim.runs.backends import Job, choose
    from nines_sim.runs.chunks import Keeps, Shape
    from nines_sim.runs.chunks import chunk_size as policy
    from nines_sim.runs.ranges import merge
    from nines_sim.strategy.registry import StrategyNotFound, make_lineup

    try:
        for kind in kinds:
            make_lineup(list(setup.lineup(kind, 2)))
    except StrategyNotFound as exc:
        raise DesignError(str(exc)) from None
    backend = backend or choose(workers)
    # strategy files named as the backend's workers read them (absolute paths on a cluster)
    portable = DesignSetup(*backend.portable((setup.skilled, setup.weak)),
                           fair=setup.fair and backend.portable((setup.fair,))[0])  # fmt: skip
    ranges = [(start, start + n_matches)]
    size = chunk_size or policy(n_matches, backend.workers, Shape(Keeps.WHOLE), backend.live_progress)
    total = [DesignSums(len(sets))]
    kept: list[tuple[int, int]] = []

    def take(tag: tuple[int, int], got: DesignSums | None) -> int:
        if got is None:
            return 0
        total[0] = total[0] + got
        kept.append((tag[0], tag[0] + tag[1]))
        return tag[1] * len(sets) * len(kinds)

    warm = [(setup.rules_for(k, ds.rules), setup.lineup(k, setup.rules_for(k, ds.rules).players))
            for k in kinds for ds in sets]  # fmt: skip
    units = design_units(DesignJob(sets, portable, kinds, seed, batch_size), ranges, size)
    partial = backend.run(Job(design_range, units, take, on_progress, warm))
    return DesignOutcome(sets, total[0], merge(kept), partial)


# ---------------------------------------------------------------- tables


def seat_unfairness(sums: DesignSums, r: int, players: int) -> tuple[Estimate, float]:
    """The largest deviation of a seat's win rate from 1/P (identical strategies), and the chi-square p-value
    of "every seat wins equally often" (``scipy.stats.chisquare`` on the win counts).

    The interval is that of the most deviating seat's deviation (absolute value; 0 when it straddles 0).
    """
    from scipy import stats

    ests = [estimate(sums, r, f"seat_{k}") for k in range(players)]
    if any(math.isnan(e.value) for e in ests):
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0), math.nan
    fair = 1 / players
    worst = max(ests, key=lambda e: abs(e.value - fair))
    lo, hi = worst.low - fair, worst.high - fair
    low = 0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))
    wins = np.array([float(sums.s[r, INDEX[f"seat_{k}"], 0]) / SHARE_UNIT for k in range(players)])
    p = float(stats.chisquare(wins).pvalue) if wins.sum() > 0 else math.nan
    return Estimate(abs(worst.value - fair), low, max(abs(lo), abs(hi)), worst.se, worst.matches), p


def design_frame(outcome: DesignOutcome, alpha: float = 0.05, measures: list[str] | None = None) -> pd.DataFrame:
    """``design.csv``: one row per rule set and measure played (skill and seat rows above the fair share).

    ``delta*`` and ``p_value`` compare each rule set with the first on the same matches (empty for the
    first); ``seat_unfairness`` rows carry the chi-square p-value of equal seats instead, and no delta.
    ``p_holm``: the p-values of the frame adjusted together (Holm, :func:`nines_sim.results.stats.holm`);
    ``significant``: ``p_holm < alpha``.  ``measures``: only these (``seat_unfairness`` included), all by default.
    """
    import pandas as pd

    sums = outcome.sums
    rows = []
    for r, ds in enumerate(outcome.sets):
        P = ds.rules.players
        for measure in MEASURES:
            e = estimate(sums, r, measure)
            if e.matches == 0 or math.isnan(e.value):
                continue
            if measures is not None and measure not in measures and measure != "seat_0":
                continue
            if measure == "seat_0" and (measures is None or "seat_unfairness" in measures):
                u, p = seat_unfairness(sums, r, P)
                rows.append([ds.label, "seat_unfairness", "same", u.matches, u.value, u.low, u.high,
                             math.nan, math.nan, math.nan, p])  # fmt: skip
            if measures is not None and measure not in measures:
                continue
            f = fair_share(measure, 2 if measure == "skill_heads_up" else P)
            d, dlo, dhi, p = paired_delta(sums, r, measure)
            rows.append([ds.label, measure, LINEUP_OF[measure], e.matches, e.value - f, e.low - f, e.high - f,
                         d, dlo, dhi, p])  # fmt: skip
    frame = pd.DataFrame(rows, columns=DESIGN_COLUMNS[:-2])
    tested = frame["p_value"].notna()
    frame["p_holm"] = math.nan
    if tested.any():
        frame.loc[tested, "p_holm"] = holm(frame.loc[tested, "p_value"].tolist())
    frame["significant"] = frame["p_holm"] < alpha
    return frame


def distribution_frame(outcome: DesignOutcome) -> pd.DataFrame:
    """``design_distribution.csv``: the count of each value of every distribution kept, per rule set."""
    import pandas as pd

    rows = []
    for name in HISTOGRAMS:
        h = outcome.sums.hists.get(name)
        if h is None:
            continue
        for r, ds in enumerate(outcome.sets):
            for v in np.flatnonzero(h[r]):
                rows.append((ds.label, name, int(v), int(h[r, v])))
    return pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)


def value_of(frame: pd.DataFrame, rule_set: str, measure: str) -> float:
    """One measure's value in a :func:`design_frame` (NaN when absent)."""
    got = frame[(frame["rule_set"] == rule_set) & (frame["measure"] == measure)]["value"]
    return float(got.iloc[0]) if len(got) else math.nan
