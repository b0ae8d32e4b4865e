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
difference is the t interval of the difference of the linearised per-match values (``scipy.stats.t``'s
numbers, from ``scipy.special``).

The measures and their per-match values are :mod:`nines_sim.experiments.design.measures`, the sums and estimates
:mod:`nines_sim.experiments.design.sums` (their names also read from here); this module plays the design lineups
(:func:`run_design`) and makes the tables.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from nines_sim.game.rules import Rules
from nines_sim.results.stats import holm
from nines_sim.results.tally import SHARE_UNIT

if TYPE_CHECKING:
    import pandas as pd

    from nines_sim.runs.backends import Backend
    from nines_sim.runs.chunks import Shape
    from nines_sim.runs.ranges import Range

from nines_sim.experiments.design.measures import (  # noqa: F401 - the measures, also read from here
    COMEBACK_HANDS,
    DESIGN_COLUMNS,
    DISTRIBUTION_COLUMNS,
    HISTOGRAMS,
    INDEX,
    LINEUP_OF,
    LINEUPS,
    MAX_SEATS,
    MEASURES,
    WORDS,
    DesignError,
    DesignSetup,
    lineups_needed,
    match_values,
    tension,
)
from nines_sim.experiments.design.sums import (  # noqa: F401
    DesignSums,
    Estimate,
    chisquare_p,
    estimate,
    fair_share,
    paired_delta,
    seat_covariance,
    t_quantile,
)

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


class DesignWork:
    """The design lineups ``kinds`` under every rule set for matches ``start .. start+n_matches-1``, as an
    experiment of :func:`nines_sim.runs.driver.run`: each unit a chunk (:func:`design_range`, kept whole or
    not at all), the sums merged by addition into a :class:`DesignOutcome`."""

    def __init__(self, sets: list[DesignSet], setup: DesignSetup, n_matches: int, seed: int, batch_size: int,
                 kinds: tuple[str, ...], start: int) -> None:  # fmt: skip
        self.play = design_range
        self.sets, self.setup, self.seed, self.batch_size, self.kinds = sets, setup, seed, batch_size, kinds
        self.ranges = [(start, start + n_matches)]
        self.matches = n_matches
        self.warm = [(setup.rules_for(k, ds.rules), setup.lineup(k, setup.rules_for(k, ds.rules).players))
                     for k in kinds for ds in sets]  # fmt: skip
        self.total = DesignSums(len(sets))
        self.kept: list[tuple[int, int]] = []

    def shape(self) -> Shape:
        from nines_sim.runs.chunks import Keeps, Shape

        return Shape(Keeps.WHOLE)

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Iterator:
        # strategy files named as the backend's workers read them (absolute paths on a cluster)
        s = self.setup
        named = DesignSetup(*portable((s.skilled, s.weak)), fair=s.fair and portable((s.fair,))[0])
        return design_units(DesignJob(self.sets, named, self.kinds, self.seed, self.batch_size), self.ranges, size)

    def take(self, tag: tuple[int, int], got: DesignSums | None) -> int:
        if got is None:
            return 0
        self.total = self.total + got
        self.kept.append((tag[0], tag[0] + tag[1]))
        return tag[1] * len(self.sets) * len(self.kinds)

    def outcome(self, partial: bool) -> DesignOutcome:
        from nines_sim.runs.ranges import merge

        return DesignOutcome(self.sets, self.total, merge(self.kept), partial)


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
    """Play ``n_matches`` matches (from ``start``) of each design lineup under every rule set; merge the sums
    (:class:`DesignWork` through :func:`nines_sim.runs.driver.run`).

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
    from nines_sim.runs import driver
    from nines_sim.runs.backends import choose
    from nines_sim.strategy.registry import StrategyNotFound, make_lineup

    try:
        for kind in kinds:
            make_lineup(list(setup.lineup(kind, 2)))
    except StrategyNotFound as exc:
        raise DesignError(str(exc)) from None
    work = DesignWork(sets, setup, n_matches, seed, batch_size, kinds, start)
    return driver.run(work, backend or choose(workers), on_progress, chunk=chunk_size)


# ---------------------------------------------------------------- tables


def seat_unfairness(sums: DesignSums, r: int, players: int) -> tuple[Estimate, float]:
    """The largest deviation of a seat's win rate from 1/P (identical strategies), and the chi-square p-value
    of "every seat wins equally often" (``scipy.stats.chisquare`` on the win counts, :func:`chisquare_p`).

    The interval is that of the maximum (:func:`nines_sim.results.max_interval.largest_deviation`): it
    allows for the seat's having been picked as the one that deviates most, from the joint distribution of
    the seats' deviations, so that with fair seats it excludes 0 in 5% of runs (the picked seat's own
    interval did in 16%, at 4 seats).  Its ``se`` is the picked seat's standard error.
    """
    from nines_sim.results.max_interval import largest_deviation

    ests = [estimate(sums, r, f"seat_{k}") for k in range(players)]
    if any(math.isnan(e.value) for e in ests):
        return Estimate(math.nan, math.nan, math.nan, math.nan, 0), math.nan
    fair = 1 / players
    worst = max(ests, key=lambda e: abs(e.value - fair))
    rates, cov, n = seat_covariance(sums, r, players)
    value, low, high = largest_deviation(rates - fair, cov, n - 1)
    wins = np.array([float(sums.s[r, INDEX[f"seat_{k}"], 0]) / SHARE_UNIT for k in range(players)])
    p = chisquare_p(wins) if wins.sum() > 0 else math.nan
    return Estimate(value, low, high, worst.se, worst.matches), p


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
