"""A tournament's chunks played (:func:`play_range`, :func:`play_games`) and merged (:class:`Collector`)
into a :class:`RunOutcome`: the work each worker does, below the formats of :mod:`~.work`."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from nines_sim.experiments.tournament.plan import Plan
from nines_sim.game.rules import Rules
from nines_sim.results.records import MatchResults
from nines_sim.results.tally import Tally
from nines_sim.runs.ranges import KeptBlocks, Range
from nines_sim.strategy.registry import make_lineup

if TYPE_CHECKING:
    import pandas as pd


def _match_rows(res, rules: Rules) -> pd.DataFrame:  # noqa: ANN001
    import pandas as pd

    data = {"match": res.match, "hands": res.hands, "tiebreak_hands": res.tiebreak_hands,
            "first_dealer": res.first_dealer}  # fmt: skip
    for p in range(rules.players):
        data[f"total_{p}"] = res.totals[:, p]
    for p in range(rules.players):
        data[f"share_{p}"] = res.win_share[:, p]
    return pd.DataFrame(data)


def play_range(
    rules: Rules,
    lineup: tuple[str, ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    keep: bool,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    every: int = 25,
    observe: Callable[[MatchResults], None] | None = None,
    luck: tuple | None = None,
) -> tuple[Tally, list[pd.DataFrame]] | tuple[Tally, list[pd.DataFrame], LuckBlock | None]:
    """Play matches ``start .. start+n-1`` of one game, tallying finished matches as it goes.

    The engine's batch stays full across the whole range.  ``should_stop`` is
    asked before the engine starts and after every step; every ``every`` steps
    (and when stopping) the finished matches below the lowest unfinished index
    are tallied, so memory stays flat and a stopped range keeps the matches
    ``start .. k-1`` for its first unfinished ``k``: a whole block of match
    indices, not a sample biased towards short matches.

    Parameters
    ----------
    on_matches : callable, optional
        ``on_matches(played, kept)``: matches finished since the last call, and
        how many more are now tallied (kept).
    observe : callable, optional
        ``observe(results)`` with each block of matches as it is tallied.
    luck : tuple, optional
        A value as the luck walk reads it (:func:`nines_sim.luck.compiled.value_factors`): play the matches in
        the trace form and walk each match's luck under it as it is played (the same matches, the same tally:
        ``--luck`` plays a run once, not a plain pass and a traced one).

    Returns
    -------
    (Tally, list of pandas.DataFrame)
        The tally of matches ``start .. start + tally.matches - 1``, and their
        rows when ``keep``; with ``luck``, a third item: their :class:`LuckBlock` (None unless every match of
        the range was played).
    """
    tally = Tally(rules.players)
    rows: list[pd.DataFrame] = []
    if should_stop and should_stop():
        return (tally, rows) if luck is None else (tally, rows, None)
    engine = _engine(rules, lineup, seed, start, n, batch_size, luck)
    waiting: list[MatchResults] = []
    reported = 0

    def take() -> None:
        nonlocal tally, waiting, reported
        got = engine.harvest()
        if got.n_matches:
            waiting.append(got)
        kept = 0
        if waiting:
            pool = MatchResults.concat(waiting)
            below = pool.match < engine.lowest_unfinished()
            waiting = [pool.select(~below)] if (~below).any() else []
            if below.any():
                done = pool.select(below)
                tally = tally + Tally.from_results(done)
                kept = done.n_matches
                if observe:
                    observe(done)
                if keep:
                    rows.append(_match_rows(done, rules))
        if on_matches and (engine.matches_done > reported or kept):
            on_matches(engine.matches_done - reported, kept)
            reported = engine.matches_done

    engine.start_run()
    steps = 0
    while engine.B:
        engine.advance()
        steps += 1
        if should_stop and should_stop():
            break
        if steps % min(every, engine.check_every) == 0:
            take()
    take()
    if luck is None:
        return tally, rows
    return tally, rows, LuckBlock.of(engine, start) if tally.matches == n else None


@dataclass(frozen=True)
class LuckBlock:
    """The luck of matches ``start .. start + n - 1``, walked as they were played (:func:`play_range`'s ``luck``).

    Attributes
    ----------
    start : int
    shares : numpy.ndarray
        float64, shape (n, P): each match's win shares.
    corrections : numpy.ndarray
        float64, shape (n, 3, P): each match's corrections per part (deal, draws, choices) and seat.
    """

    start: int
    shares: np.ndarray
    corrections: np.ndarray

    @classmethod
    def of(cls, engine: Any, start: int) -> LuckBlock:
        """The walk's results of a :func:`~nines_sim.luck.compiled.walking_engine` that played its whole range."""
        from nines_sim.luck.compiled import walked

        corrections, shares, *_ = walked(engine)
        return cls(start, shares, corrections)


def _engine(rules: Rules, lineup: tuple[str, ...], seed: int, start: int, n: int, batch_size: int,
            luck: tuple | None) -> Any:  # fmt: skip
    """A harvested engine for :func:`play_range`: the plain one, or with ``luck`` the trace form walking each
    match's luck as it is played (its errors with the replay command, as the plain engine's)."""
    from nines_sim.engine.batch import make_engine

    players = make_lineup(list(lineup))
    if luck is None:
        return make_engine(rules, players, seed, start, n, min(batch_size, n), specs=lineup, harvested=True)
    from nines_sim.engine.broker import replay_hint
    from nines_sim.luck.compiled import walking_engine

    hint = replay_hint(rules, players, seed, list(lineup))
    return walking_engine(rules, players, lineup, seed, start, n, batch_size, keep_hands=False, value=luck,
                          keep_parts=False, harvested=True, hint=hint)  # fmt: skip


def play_games(
    games: tuple[tuple[Rules, tuple[str, ...]], ...],
    seed: int,
    start: int,
    n: int,
    batch_size: int,
    keep: bool,
    on_matches: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    observers: list[Callable[[MatchResults], None]] | None = None,
    luck: tuple | None = None,
) -> list[tuple[Tally, list[pd.DataFrame]]] | list[tuple[Tally, list[pd.DataFrame], LuckBlock | None]] | None:
    """One chunk of a tournament: matches ``start .. start+n-1`` of every game, one game after the other.

    With one game, a stopped chunk keeps its finished block of matches (see
    :func:`play_range`).  With several, a chunk is kept whole or not at all
    (None), so that every game of a stopped run holds the same match indices.
    ``observers``, one per game, hear of each block of that game's matches as it is tallied.  ``luck``, a table's
    ``--luck`` run (one game): :func:`play_range`'s, each match's luck walked as it is played (for
    :class:`LuckCollector`).
    """
    watch = observers or [None] * len(games)
    if len(games) == 1:
        rules, lineup = games[0]
        return [play_range(rules, lineup, seed, start, n, batch_size, keep, on_matches, should_stop, observe=watch[0],
                           luck=luck)]  # fmt: skip

    def played_only(played: int, kept: int) -> None:
        if on_matches:
            on_matches(played, 0)

    out = []
    for (rules, lineup), observe in zip(games, watch):
        tally, rows = play_range(rules, lineup, seed, start, n, batch_size, keep, played_only, should_stop,
                                 observe=observe)  # fmt: skip
        if tally.matches < n:
            return None
        out.append((tally, rows))
    if on_matches:
        on_matches(0, n * len(games))
    return out


@dataclass
class RunOutcome:
    """Tallies per game key, the matches played, and whether the run was cut short.

    ``ranges`` are the match indices asked for; ``kept`` those whose results
    the tallies hold (the same for every game), sorted and merged.
    """

    tallies: dict[str, Tally]
    matches_played: dict[str, int]
    partial: bool
    wall_seconds: float
    match_rows: list[pd.DataFrame] = field(default_factory=list)
    ranges: list[Range] = field(default_factory=list)
    kept: list[Range] = field(default_factory=list)
    #: A ``--luck`` run's luck of every match, in match order (:class:`LuckCollector`; None if it was stopped).
    luck: LuckBlock | None = None

    @property
    def total_matches(self) -> int:
        return sum(self.matches_played.values())


class Collector:
    """Merges the chunks of a tournament as they finish (``take``) into a :class:`RunOutcome`."""

    def __init__(self, plan: Plan, ranges: list[Range]) -> None:
        self.plan = plan
        self.ranges = ranges
        self.tallies: dict[str, Tally] = {g.key: Tally(g.rules.players) for g in plan.games}
        self.played = {g.key: 0 for g in plan.games}
        self.rows: list[pd.DataFrame] = []
        self.kept = KeptBlocks()
        self.t0 = time.perf_counter()

    def take(self, tag: tuple[int, int], result: list[tuple[Tally, list[pd.DataFrame]]] | None) -> int:
        """Merge one chunk's result; returns the matches kept per game."""
        if result is None:
            return 0
        for g, (tally, dfs) in zip(self.plan.games, result):
            self.tallies[g.key] = self.tallies[g.key] + tally
            self.played[g.key] += tally.matches
            for df in dfs:
                df.insert(0, "game", g.key)
                self.rows.append(df)
        return self.kept.add(tag[0], result[0][0].matches)

    def outcome(self, partial: bool) -> RunOutcome:
        return RunOutcome(self.tallies, self.played, partial, time.perf_counter() - self.t0, self.rows,
                          self.ranges, self.kept.ranges())  # fmt: skip


class LuckCollector(Collector):
    """A table's ``--luck`` chunks (:func:`play_games` with ``luck``) merged: the tallies as :class:`Collector`'s,
    and each chunk's :class:`LuckBlock` gathered in match order into the outcome's ``luck`` (when no chunk was
    stopped)."""

    def __init__(self, plan: Plan, ranges: list[Range]) -> None:
        super().__init__(plan, ranges)
        self.blocks: list[LuckBlock | None] = []

    def take(self, tag: tuple[int, int], result: list[tuple] | None) -> int:
        if result is not None:
            self.blocks.append(result[0][2])
            result = [r[:2] for r in result]
        return super().take(tag, result)

    def outcome(self, partial: bool) -> RunOutcome:
        out = super().outcome(partial)
        if not partial and self.blocks and all(b is not None for b in self.blocks):
            blocks = sorted((b for b in self.blocks if b is not None), key=lambda b: b.start)
            out.luck = LuckBlock(blocks[0].start, np.concatenate([b.shares for b in blocks]),
                                 np.concatenate([b.corrections for b in blocks]))  # fmt: skip
        return out
