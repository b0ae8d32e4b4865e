"""Rule comparisons: one lineup under several rule sets, with common random numbers.

Every rule set plays the same seed and match indices.  Deals depend only on
(seed, match, hand number) and the deck, so wherever two rule sets have the
same deck, players and hand sizes, their matches start from the same deals and
stay coupled as long as play allows; the per-match win shares are then paired
and a shift in win rate is measured with the variance of the paired
difference, which is much smaller than that of two independent runs.

Work is cut into chunks of match indices; a chunk plays every rule set at once
(one engine each, in lockstep), so a run stopped by Ctrl-C keeps, of each
chunk, the block of matches that every rule set finished: the same matches for
all rule sets, still paired.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.game.rules import Rules, RulesError, parse_rule_set, parse_value, resolve_rule_set
from nines_sim.game.text_lists import EmptyItem, items_of
from nines_sim.results.records import MatchResults
from nines_sim.results.rounding import decimal_text
from nines_sim.results.stats import MIN_MATCHES_TO_RANK, describe_test, holm, paired_test, too_small_to_rank, wilson
from nines_sim.results.tally import SHARE_UNIT, SeatStats, Tally
from nines_sim.runs import driver
from nines_sim.runs.backends import choose
from nines_sim.runs.chunks import Keeps, Shape
from nines_sim.runs.ranges import KeptBlocks, Range, cut
from nines_sim.runs.ranges import total as ranges_total
from nines_sim.strategy.registry import make_lineup

if TYPE_CHECKING:
    import pandas as pd

COMPARISON_COLUMNS = [
    "rule_set", "sweep_value", "position", "strategy", "matches", "win_rate", "win_rate_low", "win_rate_high",
    "mean_total", "mean_hands_per_match", "mean_turns_per_hand", "delta_win_rate", "delta_low", "delta_high",
    "test", "delta_p_value", "delta_p_holm", "significant",
]  # fmt: skip
DISTRIBUTION_COLUMNS = ["rule_set", "strategy", "kind", "points", "count"]


@dataclass(frozen=True)
class RuleSet:
    """A labelled rule set of a comparison (``value``: the swept value, if any)."""

    label: str
    rules: Rules
    value: object = None


def rule_sets_from(
    specs: list[str], sweep: str | None, players: int | None, overrides: dict | None = None
) -> tuple[list[RuleSet], dict | None]:
    """Rule sets from ``--rules`` specs and an optional ``--sweep option=v1,v2,...``.

    Parameters
    ----------
    specs : list of str
        Rule sets written ``preset[+preset][:key=value,...]`` (see :func:`nines_sim.game.rules.parse_rule_set`);
        a ``@FILE`` is labelled with the rule set it holds.
    sweep : str or None
        ``option=v1,v2,...``: one rule set per value, on top of the one spec (default classic).
    players : int or None
        The lineup's table size, given to every rule set.
    overrides : dict, optional
        Options applied to every rule set (``--rule key=value``, parsed).

    Raises
    ------
    nines_sim.game.rules.RulesError
        For fewer than two rule sets, an unknown preset or option, a value of the
        wrong type or out of range, a sweep of an option that does not exist or
        that ``overrides`` sets, or an option set both in a spec and in ``overrides``.
    """

    def build(spec: str, **over: object) -> Rules:
        base = parse_rule_set(spec, overrides, players)
        return base.replace(**over) if over else base

    if sweep is None:
        if len(specs) < 2:
            raise RulesError("compare at least two rule sets: --rules A --rules B (or --sweep option=v1,v2)")
        if len(set(specs)) != len(specs):
            raise RulesError("a rule set is given twice; each --rules must differ")
        built = [build(s) for s in specs]  # an error in a @FILE names the file
        labels = [resolve_rule_set(s) for s in specs]  # what a @FILE plays, as the CSVs and the command say it
        if len(set(labels)) != len(labels):
            raise RulesError("a rule set is given twice (a @FILE holds another's); each --rules must differ")
        return [RuleSet(label, r) for label, r in zip(labels, built)], None
    if len(specs) > 1:
        raise RulesError("--sweep varies one base rule set: give at most one --rules with it")
    if "=" not in sweep:
        raise RulesError(f"a sweep is written option=v1,v2,..., not {sweep!r}")
    option, _, values_text = sweep.partition("=")
    option = option.strip()
    if option in (overrides or {}):
        raise RulesError(f"{option} is both swept and set by --rule; give it once")
    base_spec = specs[0] if specs else "classic"
    if option == "hand_sizes":
        raise RulesError("hand_sizes cannot be swept (its values hold commas); compare --rules sets instead")
    if option == "players":
        raise RulesError("players cannot be swept: the lineup fixes the table size (compare lineups with tournaments)")
    try:
        texts = items_of(values_text, f"--sweep {sweep!r}")
    except EmptyItem as exc:
        raise RulesError(str(exc)) from None
    values = [parse_value(option, v) for v in texts]
    if len(values) < 2:
        raise RulesError("a sweep needs at least two values: option=v1,v2")
    if len(set(values)) != len(values):
        raise RulesError(f"a value is swept twice in {sweep!r}")
    sets = [RuleSet(f"{option}={t}", build(base_spec, **{option: v}), v) for t, v in zip(texts, values)]
    return sets, {"option": option, "values": values, "base": resolve_rule_set(base_spec)}


def deals_coupled(a: Rules, b: Rules) -> bool:
    """Whether two rule sets deal identical hands for the same seed and match.

    Same deck and table, and the same hand size at this table and at every
    smaller one a tie-break hand may be dealt for.
    """
    if (a.decks, a.players) != (b.decks, b.players):
        return False
    return all(a.hand_size(p) == b.hand_size(p) for p in range(2, a.players + 1))


@dataclass
class CompareChunk:
    """Tallies of one chunk under every rule set, and the paired counts against the first.

    ``cross[r]``: (P,) int64, sum over matches of ``s_r * s_0`` in 3600ths; ``gain[r]`` and ``loss[r]``:
    (P,) int64, matches in which a seat's win share under rule set ``r`` was larger / smaller than under
    the first (the discordant matches of the paired exact test).
    """

    tallies: list[Tally]
    cross: list[np.ndarray]
    gain: list[np.ndarray]
    loss: list[np.ndarray]


def compare_range(
    rule_sets: list[RuleSet],
    lineup: tuple[str, ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    every: int = 25,
) -> CompareChunk | None:
    """Play matches ``start .. start+n-1`` under every rule set, the rule sets' engines in lockstep.

    One engine per rule set, each advanced in turn.  ``should_stop`` is asked
    before the engines start and after every engine's step; every ``every``
    rounds (and when stopping) the matches below the lowest unfinished index of
    *every* engine are tallied under each rule set.  A stopped chunk therefore
    keeps the block ``start .. start+k-1`` common to all rule sets (``k`` may
    be below ``n``): the rule sets hold the same matches, still paired, and a
    whole block of match indices, not a sample biased towards short matches.
    The counts do not depend on how the chunk was cut into blocks.

    Parameters
    ----------
    on_matches : callable, optional
        ``on_matches(played, kept)``: matches finished since the last call (over
        all rule sets), and how many more are now kept (the block's growth
        times the number of rule sets).
    every : int
        Rounds of steps between tallies of the finished block (a numpy engine).

    Returns
    -------
    CompareChunk or None
        The tallies and paired counts of the kept block; None if stopped before any match was kept.
    """
    from nines_sim.engine.batch import make_engine

    R = len(rule_sets)
    P = rule_sets[0].rules.players
    if should_stop and should_stop():
        return None
    engines = [
        make_engine(rs.rules, make_lineup(list(lineup)), seed, start, n, min(batch_size, n), specs=lineup,
                    harvested=True)
        for rs in rule_sets
    ]  # fmt: skip
    tallies = [Tally(P) for _ in range(R)]
    cross = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    gain = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    loss = [np.zeros(P, dtype=np.int64) for _ in range(R)]
    waiting: list[list[MatchResults]] = [[] for _ in range(R)]
    kept_to = start  # the matches start .. kept_to-1 are tallied under every rule set
    reported = 0

    def take() -> None:
        nonlocal kept_to, reported
        end = min(e.lowest_unfinished() for e in engines)
        for i, e in enumerate(engines):
            got = e.harvest()
            if got.n_matches:
                waiting[i].append(got)
        grown = end - kept_to
        if grown > 0:
            shares = []
            for i in range(R):
                pool = MatchResults.concat(waiting[i])  # ordered by match: the rule sets' rows align
                below = pool.match < end
                waiting[i] = [pool.select(~below)] if (~below).any() else []
                done = pool.select(below)
                tallies[i] = tallies[i] + Tally.from_results(done)
                shares.append(np.rint(done.win_share * SHARE_UNIT).astype(np.int64))
            for i, (c, g, lo) in enumerate(zip(*paired_counts(shares))):
                cross[i], gain[i], loss[i] = cross[i] + c, gain[i] + g, loss[i] + lo
            kept_to = end
        played = sum(e.matches_done for e in engines)
        if on_matches and (played > reported or grown > 0):
            on_matches(played - reported, max(grown, 0) * R)
            reported = played

    for e in engines:
        e.start_run()
    rounds = 0
    stopped = False
    while not stopped and any(e.B for e in engines):
        for e in engines:
            if e.B:
                e.advance()
                if should_stop and should_stop():
                    stopped = True
                    break
        rounds += 1
        if not stopped and rounds % min(every, *(e.check_every for e in engines)) == 0:
            take()
    take()
    if kept_to == start:
        return None
    return CompareChunk(tallies, cross, gain, loss)


def paired_counts(shares: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """The paired sums of :class:`CompareChunk` from each rule set's per-match win shares.

    Parameters
    ----------
    shares : list of numpy.ndarray
        int64, (n, P) each, in 60ths, the same match indices in the same order; the first is the reference.

    Returns
    -------
    cross, gain, loss : list of numpy.ndarray
        int64, (P,) per rule set (see :class:`CompareChunk`).
    """
    cross = [(s * shares[0]).sum(axis=0) for s in shares]
    gain = [(s > shares[0]).sum(axis=0).astype(np.int64) for s in shares]
    loss = [(s < shares[0]).sum(axis=0).astype(np.int64) for s in shares]
    return cross, gain, loss


@dataclass
class CompareOutcome:
    """Merged tallies per rule set, paired counts (see :class:`CompareChunk`), and whether the run was cut short.

    ``ranges`` are the match indices asked for, ``kept`` those the tallies hold
    (each chunk's finished block, the same under every rule set).
    """

    tallies: list[Tally]
    cross: list[np.ndarray]
    partial: bool
    wall_seconds: float
    matches_played: int = 0
    extra: dict = field(default_factory=dict)
    gain: list[np.ndarray] = field(default_factory=list)
    loss: list[np.ndarray] = field(default_factory=list)

    @classmethod
    def empty(cls, players: int, rule_sets: int) -> CompareOutcome:
        """No matches yet, for ``rule_sets`` rule sets at a table of ``players``."""
        tallies = [Tally(players) for _ in range(rule_sets)]
        return cls(tallies, [np.zeros(players, dtype=np.int64) for _ in range(rule_sets)], False, 0.0)

    def add(self, c: CompareChunk) -> None:
        """Merge one finished chunk in (counts add, so the order of chunks does not matter)."""
        P = self.tallies[0].players
        if not self.gain:
            self.gain = [np.zeros(P, dtype=np.int64) for _ in self.tallies]
            self.loss = [np.zeros(P, dtype=np.int64) for _ in self.tallies]
        for i, t in enumerate(c.tallies):
            self.tallies[i] = self.tallies[i] + t
            self.cross[i] = self.cross[i] + c.cross[i]
            self.gain[i] = self.gain[i] + c.gain[i]
            self.loss[i] = self.loss[i] + c.loss[i]
        self.matches_played += c.tallies[0].matches

    ranges: list[Range] = field(default_factory=list)
    kept: list[Range] = field(default_factory=list)


def compare_units(
    rule_sets: list[RuleSet], lineup: tuple[str, ...], ranges: list[Range], size: int, seed: int, batch_size: int
) -> Iterator[tuple[tuple[int, int], tuple]]:
    """The units of :func:`compare_range`, lazily: ``((start, n), args)`` per chunk of the ranges."""
    for s, n in cut(ranges, size):
        yield (s, n), (rule_sets, lineup, seed, s, n, batch_size)


class CompareCollector:
    """Merges the kept blocks of a comparison's chunks as they finish (``take``) into a :class:`CompareOutcome`."""

    def __init__(self, rule_sets: list[RuleSet], ranges: list[Range]) -> None:
        self.out = CompareOutcome.empty(rule_sets[0].rules.players, len(rule_sets))
        self.out.ranges = ranges
        self.kept = KeptBlocks()
        self.t0 = time.perf_counter()

    def take(self, tag: tuple[int, int], c: CompareChunk | None) -> int:
        """Merge one chunk's kept block (None: stopped before any); returns the matches kept per rule set."""
        if c is None:
            return 0
        self.out.add(c)
        return self.kept.add(tag[0], c.tallies[0].matches)

    def outcome(self, partial: bool) -> CompareOutcome:
        self.out.partial, self.out.kept = partial, self.kept.ranges()
        self.out.wall_seconds = time.perf_counter() - self.t0
        return self.out


class ComparisonWork:
    """A rule comparison as an experiment of :func:`nines_sim.runs.driver.run`: the lineup under every rule set
    for matches ``0 .. n_matches-1`` of ``seed`` (or only ``ranges``), each chunk played by every rule set and
    keeping, when stopped, the block every rule set finished; its outcome is a :class:`CompareOutcome`."""

    play = staticmethod(compare_range)

    def __init__(
        self,
        rule_sets: list[RuleSet],
        lineup: tuple[str, ...],
        n_matches: int,
        seed: int,
        batch_size: int = 32768,
        ranges: list[Range] | None = None,
    ) -> None:
        self.rule_sets, self.lineup, self.seed, self.batch_size = rule_sets, lineup, seed, batch_size
        self.ranges = ranges or [(0, n_matches)]
        self.matches = ranges_total(self.ranges)
        self.collect = CompareCollector(rule_sets, self.ranges)
        self.warm = [(rs.rules, lineup) for rs in rule_sets]

    def shape(self) -> Shape:
        # chunks small enough to lose little to a Ctrl-C (a stopped chunk keeps the block every rule set finished)
        return Shape(Keeps.WHOLE)

    def units(self, size: int, portable: Callable[[tuple[str, ...]], tuple[str, ...]]) -> Iterator:
        return compare_units(self.rule_sets, portable(self.lineup), self.ranges, size, self.seed, self.batch_size)

    def take(self, tag: tuple[int, int], c: CompareChunk | None) -> int:
        return self.collect.take(tag, c) * len(self.rule_sets)

    def outcome(self, partial: bool) -> CompareOutcome:
        return self.collect.outcome(partial)


def run_comparison(
    rule_sets: list[RuleSet],
    lineup: tuple[str, ...],
    n_matches: int,
    seed: int,
    workers: int = 1,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    ranges: list[Range] | None = None,
    client: Any = None,
) -> CompareOutcome:
    """Play the lineup under every rule set on ``workers`` local processes, or on the Dask cluster of
    ``client`` (the same numbers): :class:`ComparisonWork` on the backend of
    :func:`nines_sim.runs.backends.choose` through :func:`nines_sim.runs.driver.run`.

    Returns
    -------
    CompareOutcome
        ``partial`` when Ctrl-C stopped the run; each chunk's block finished under every rule set is kept.
    """
    experiment = ComparisonWork(rule_sets, lineup, n_matches, seed, batch_size, ranges)
    return driver.run(experiment, choose(workers, client), on_progress, chunk_size)


def comparison_frame(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> pd.DataFrame:
    """``comparison.csv``: the rows of :func:`comparison_rows`, the shifts' p-values Holm-adjusted together."""
    import pandas as pd

    df = pd.DataFrame(comparison_rows(rule_sets, labels, out))
    tested = df["delta_p_value"].notna()
    df["delta_p_holm"] = math.nan
    if tested.any():
        df.loc[tested, "delta_p_holm"] = holm(df.loc[tested, "delta_p_value"].tolist())
    df["significant"] = tested & (df["delta_p_holm"] < 0.05)
    if too_small_to_rank(out.matches_played, out.partial):
        df["significant"] = None  # written empty: a stopped run too small to claim anything (stats.MIN_MATCHES_TO_RANK)
    return df[COMPARISON_COLUMNS]


def comparison_rows(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> list[dict]:
    """Per rule set and seat, the win rate and its paired shift against the first (before the Holm adjustment).

    The shift is tested with the exact McNemar test (whole wins) or the exact sign test (shared wins) on
    the matches in which the seat did better under one rule set than under the other, and its interval
    is the Agresti-Min paired interval (see :mod:`nines_sim.results.stats`); ``test`` names the test.
    """
    rows = []
    base = out.tallies[0]
    for r, (rs, t) in enumerate(zip(rule_sets, out.tallies)):
        n = t.matches
        for p in range(t.players):
            st = SeatStats.of(t, p)
            lo, hi = wilson(st.wins, n)
            d = dlo = dhi = pval = math.nan
            test = ""
            if n > 0 and base.matches == n:
                d, dlo, dhi, test = 0.0, 0.0, 0.0, "reference"
                if r:
                    sum_d = (t.wins60[p] - base.wins60[p]) / SHARE_UNIT
                    sum_d2 = (t.share_xprod[p, p] + base.share_xprod[p, p] - 2 * out.cross[r][p]) / SHARE_UNIT**2
                    whole = t.wins_outright[p] == t.wins_any[p] and base.wins_outright[p] == base.wins_any[p]
                    res = paired_test(int(out.gain[r][p]), int(out.loss[r][p]), n, sum_d, sum_d2, bool(whole))
                    d, dlo, dhi, test, pval = sum_d / n, res.low, res.high, res.test, res.p_value
            rows.append({
                "rule_set": rs.label, "sweep_value": rs.value, "position": p, "strategy": labels[p], "matches": n,
                "win_rate": st.win_rate, "win_rate_low": lo, "win_rate_high": hi,
                "mean_total": st.total_sum / n if n else math.nan,
                "mean_hands_per_match": t.hands / n if n else math.nan,
                "mean_turns_per_hand": t.turns / t.hands if t.hands else math.nan,
                "delta_win_rate": d, "delta_low": dlo, "delta_high": dhi, "test": test, "delta_p_value": pval,
            })  # fmt: skip
    return rows


def distribution_frame(rule_sets: list[RuleSet], labels: list[str], out: CompareOutcome) -> pd.DataFrame:
    """``score_distribution.csv``: final-total and hand-penalty histograms per rule set and strategy name."""
    import pandas as pd

    rows = []
    for rs, t in zip(rule_sets, out.tallies):
        by_name: dict[str, SeatStats] = {}
        for p in range(t.players):
            st = SeatStats.of(t, p)
            by_name[labels[p]] = by_name[labels[p]] + st if labels[p] in by_name else st
        for name, st in by_name.items():
            for kind, hist in (("final_total", st.total_hist), ("hand_penalty", st.penalty_hist)):
                for pts in np.flatnonzero(hist).tolist():
                    rows.append((rs.label, name, kind, pts, int(hist[pts])))
    return pd.DataFrame(rows, columns=DISTRIBUTION_COLUMNS)


def terminal_table(df: pd.DataFrame, given: list[str] | None = None) -> str:
    """The comparison a user reads in the terminal; columns widen to the longest rule set and seat label.

    Strategies are shown by their short labels (:func:`nines_sim.reporting.labels.label_map`; a parameter
    file of the specs ``given``, in seat order, names its seat).
    """
    from nines_sim.reporting.labels import label_map

    seats = df.drop_duplicates("position").sort_values("position")
    shown = label_map([str(s) for s in seats["strategy"]], given)
    rows = []
    for r in df.itertuples():
        ci = f"{decimal_text(r.win_rate, 4)} [{decimal_text(r.win_rate_low, 4)}, {decimal_text(r.win_rate_high, 4)}]"
        if isinstance(r.delta_p_value, float) and not math.isnan(r.delta_p_value):
            mark = " *" if r.significant else ""
            shift = [decimal_text(v, 2, signed=True, scale=100) for v in (r.delta_win_rate, r.delta_low, r.delta_high)]
            delta = f"{shift[0]} pp [{shift[1]}, {shift[2]}]{mark}"
        else:
            delta = "(reference)"
        rows.append((str(r.rule_set), f"{r.position}:{shown.get(str(r.strategy), r.strategy)}", ci, delta))
    head = ("rule set", "seat:strategy", "win rate [95% CI]", "change vs first [95% CI]")
    widths = [max(w, *(len(row[i]) for row in rows)) for i, w in enumerate((28, 20, 26, 28))]
    lines = [" ".join(f"{c:<{w}}" for c, w in zip(row, widths)).rstrip() for row in [head, *rows]]
    if df["significant"].isna().any():
        lines.append(f"stopped with too few matches to test the shifts (fewer than {MIN_MATCHES_TO_RANK} per rule set)")
    else:
        tests = sorted({t for t in df["test"] if t and t != "reference"})
        named = ", ".join(describe_test(t) for t in tests) or "paired test"
        lines.append(f"* significant at 5% after Holm correction ({named}, common random numbers)")
    return "\n".join(lines)
