"""A tournament as one library call: planned, played and written into its run folder.

:func:`run_tournament` writes the folder ``nines tournament`` writes for the same arguments (the CSVs byte for
byte); :func:`tournament_setup` and :func:`play_tournament` are its two steps, for callers that check the
arguments before the run folder is made (the CLI), and :meth:`TournamentRun.summary` the console summary.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nines_sim.experiments.tournament.folder import write_tournament
from nines_sim.game.rules import resolve_rule_set
from nines_sim.results.rounding import speed_text
from nines_sim.runs.ranges import Range, format_ranges
from nines_sim.runs.runfolder import (
    canonical_command,
    kept_lines,
    play_in_folder,
    play_seconds,
    rules_for,
    writing,
)


@dataclass(frozen=True)
class TournamentSetup:
    """A tournament checked and planned, not yet played (:func:`tournament_setup`).

    Attributes
    ----------
    plan : nines_sim.experiments.tournament.plan.Plan
        The games to play, each a lineup under rules.
    rules : str
        The rule set as given (``--rules``; a ``@FILE`` as the rule set it holds), for the manifest's command.
    rule : tuple of str
        The ``key=value`` overrides as given (``--rule``).
    seed : int
        Seed of the run (a league's schedule draws on it too).
    specs_given : list of str
        The lineup as given (a parameter file names its entry in the reports).
    """

    plan: Any
    rules: str
    rule: tuple[str, ...]
    seed: int
    specs_given: list[str]

    def command(self, matches: int, ranges: list[Range] | None, design: Sequence[str] = ()) -> str:
        """The ``nines tournament`` command that plays ``ranges`` of ``matches`` (all of them for None), with
        the words of its design measures (:func:`nines_sim.experiments.design.setup.design_words`)."""
        plan, fmt = self.plan, self.plan.format
        options = {
            "--format": fmt,
            "--players": plan.games[0].rules.players,
            "--matches": matches,
            "--seed": self.seed,
            "--rules": self.rules,
            "--baseline": plan.baseline if fmt == "field" else None,
            "--tables": len(plan.games) if fmt == "league" else None,
            "--ranges": format_ranges(ranges) if ranges else None,
        }
        return canonical_command("tournament", plan.strategies, options, list(self.rule), list(design))


def tournament_setup(
    lineup: Sequence[str] | None = None,
    *,
    format: str = "table",  # noqa: A002 - the option's name
    players: int | None = None,
    rules: str = "classic",
    rule: Sequence[str] | None = None,
    baseline: str | None = None,
    tables: int | None = None,
    seed: int = 0,
) -> TournamentSetup:
    """Check and plan a tournament: the lineup, the rules and the games, before anything is played.

    Parameters
    ----------
    lineup : sequence of str, optional
        Strategy specs (built-in names, ``module:Class``, ``file.py:Class``, with ``:key=value`` or ``@best.json``);
        by default :data:`nines_sim.experiments.tournament.plan.DEFAULT_LINEUP`.
    format : {"table", "round-robin", "field", "league"}
        ``table``: one table in the lineup's seat order (the lineup decides the table size); ``round-robin``:
        every pair heads-up; ``field``: each strategy against ``players - 1`` copies of ``baseline``;
        ``league``: ``tables`` tables of ``players`` drawn by a balanced schedule.
    players : int, optional
        Players at a table (2-6, RULES.md D1); a table's must equal the lineup's length.
    rules : str
        A rule set, ``preset[+preset][:key=value,...]`` (see ``nines rules``).
    rule : sequence of str, optional
        ``key=value`` overrides of single options.
    baseline : str, optional
        The field's opponents (format ``field`` only; default ``random``).
    tables : int, optional
        Tables of a league (format ``league`` only).
    seed : int
        Seed of the run.

    Returns
    -------
    TournamentSetup

    Raises
    ------
    nines_sim.strategy.registry.StrategyNotFound
        For a spec that names no strategy, or a model file trained for other rules or another table
        (:func:`~nines_sim.strategy.rules_fit.check_seats_fit`).
    nines_sim.game.rules.RulesError
        For rules that cannot be read or combined.
    nines_sim.experiments.tournament.plan.TournamentError
        For a lineup the format cannot seat, or an option of another format.
    """
    from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP, TournamentError
    from nines_sim.experiments.tournament.work import plan_tournament
    from nines_sim.strategy.registry import make_lineup
    from nines_sim.strategy.rules_fit import check_seats_fit

    names = list(lineup or [])
    make_lineup(names)
    if format == "table":
        seated = len(names or DEFAULT_LINEUP)
        if players is not None and players != seated:
            raise TournamentError(f"players={players} disagrees with the lineup of {seated}: a table seats one each")
        players = seated  # the lineup decides the table size
    # rules for the table actually seated: a hand size only a larger table deals is no error
    base = rules_for(rules, rule, 2 if format == "round-robin" and players is None else players)
    if baseline is not None and format != "field":
        raise TournamentError("--baseline applies to --format field only")
    if tables is not None and format != "league":
        raise TournamentError("--tables applies to --format league only")
    plan = plan_tournament(format, names, base, players, baseline or "random", tables, seed)
    for r in dict.fromkeys(g.rules for g in plan.games):  # a model for another table: said before the bar
        check_seats_fit([s for g in plan.games if g.rules == r for s in g.lineup], r)
    played = resolve_rule_set(rules)  # a @FILE as the rule set it holds: the command replays what was played
    return TournamentSetup(plan, played, tuple(rule or ()), seed, names or list(plan.strategies))


@dataclass
class TournamentRun:
    """A tournament played into its run folder (:func:`play_tournament`).

    Attributes
    ----------
    folder : pathlib.Path
        The run folder: CSVs, ``manifest.json``, charts, ``report.md``.
    setup : TournamentSetup
    outcome : nines_sim.experiments.tournament.games.RunOutcome
        The tallies; ``outcome.partial`` when Ctrl-C stopped the run (``outcome.kept`` then says which
        matches the results hold).
    workers : int
        Worker processes used.
    compile_seconds : float
        Seconds the run waited on the compiler (the first run only).
    ratings : object or None
        A round robin's or league's ratings (:func:`nines_sim.experiments.tournament.league.ratings_of`); None
        otherwise.
    ratings_stopped : bool
        Whether Ctrl-C stopped the ratings (the matches are written, without ratings).
    design : tuple of pandas.DataFrame or None
        ``design.csv`` and ``design_distribution.csv`` of ``design=N`` (None without, or when stopped).
    design_stopped : bool
        Whether Ctrl-C stopped the design part (its measures are not written).
    luck_fit : int
        A ``--luck`` run's reserved matches, fitted on before its matches, in its time (0 without ``--luck``).
    """

    folder: Path
    setup: TournamentSetup
    outcome: Any
    workers: int
    compile_seconds: float
    ratings: Any = None
    ratings_stopped: bool = False
    design: Any = None
    design_stopped: bool = False
    luck: Any = None
    luck_absent: str | None = None  # why luck=True wrote no luck.csv (nines_sim.reporting.luck's words)
    luck_fit: int = 0

    def summary(self, table: bool = True) -> list[str]:
        """What ``nines tournament`` prints on stdout: the ranked table and ratings (``table``), a note on
        strategies that see hidden cards, the closing line, and for a partial run the matches kept."""
        from nines_sim.experiments.tournament.tables import matches_per_game, summary_frame, terminal_table
        from nines_sim.results.stats import too_small_to_rank
        from nines_sim.strategy.hidden_cards import hidden_card_note

        plan, out, given = self.setup.plan, self.outcome, self.setup.specs_given
        lines = []
        if table:
            ranked = not too_small_to_rank(matches_per_game(out), out.partial)
            lines.append(terminal_table(summary_frame(plan, out), plan, ranked, given))
            if self.ratings is not None:
                from nines_sim.experiments.tournament.league import terminal_ratings

                lines.append(terminal_ratings(self.ratings, plan, given))
        if note := hidden_card_note(list(plan.strategies)):
            lines.append(note)
        if self.luck is not None and table:
            from nines_sim.luck.tournament import luck_lines

            lines += luck_lines(self.luck, plan.labels)
        if self.luck_absent is not None:
            lines.append(f"Luck not taken out: {self.luck_absent}; no luck.csv")
        play, compiling = play_seconds(out.wall_seconds, self.compile_seconds)
        rate = out.total_matches / play if play else 0
        status = "PARTIAL (interrupted): " if out.partial else ""
        played = f"{out.total_matches:,} match{'' if out.total_matches == 1 else 'es'}"
        if self.luck_fit:  # its time holds the fit's (and the speed: what a --luck run costs a match)
            played += f" and the luck's fit on {self.luck_fit:,} reserved matches"
        lines.append(
            f"{status}{played} in {play:.1f} s ({speed_text(rate)} matches/s, "
            f"{self.workers} worker(s)){compiling}; results in {self.folder}"
        )
        return lines + kept_lines(out)


def play_tournament(
    setup: TournamentSetup,
    *,
    matches: int = 100_000,
    out: str | Path | None = None,
    force: bool = False,
    charts: bool = True,
    save_matches: bool = False,
    workers: int | None = None,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    ranges: str | None = None,
    scheduler: str | None = None,
    quiet: bool = True,
    design: int = 0,
    skilled: str = "expert",
    weak: str = "random",
    luck: bool = False,
    luck_fit: int = 4000,
) -> TournamentRun:
    """Play a planned tournament and write its run folder (what ``nines tournament`` does after its checks).

    Parameters
    ----------
    setup : TournamentSetup
        From :func:`tournament_setup`.
    matches : int
        Matches per game.
    out : str or pathlib.Path, optional
        The run folder (default: a new ``reports/tournament-<UTC time>``); checked writable before any match.
    force : bool
        Overwrite nines-sim's files in an existing ``out`` folder.
    charts : bool
        Draw the PNG charts (``report.md`` is written either way).
    save_matches : bool
        Also write ``matches.csv.gz``, one row per match.
    workers : int, optional
        Worker processes (default: the CPU count); the numbers are identical for any value.
    batch_size : int
        Games in play at once per process.
    chunk_size : int, optional
        Matches per unit of work (default: from ``matches`` and ``workers``).
    ranges : str, optional
        Play only these match indices, ``START:END[,START:END...]`` (a partial run's ``kept_command``).
    scheduler : str, optional
        A Dask scheduler, ``tcp://HOST:8786`` or ``local`` (needs the dask extra); the numbers are identical.
    quiet : bool
        No progress bar.
    design : int
        Also measure the game itself under the tournament's rules on this many matches per design lineup
        (0: off; :mod:`nines_sim.experiments.design.setup`): ``design.csv`` and a report section.
    skilled, weak : str
        The strategies of the design measures (skill: ``skilled`` against ``weak``).
    luck : bool
        Also take the luck out (:mod:`nines_sim.luck`, a table only): a value fitted on ``luck_fit`` reserved
        matches before the run, which plays every match in the trace form and walks its luck as it plays it (the
        same tallies, one pass): ``luck.csv``, columns added to ``summary.csv``, a report section.  Without it
        the folder is byte for byte what it was.
    luck_fit : int
        Reserved matches the luck's value is fitted on.

    Returns
    -------
    TournamentRun
        The folder written, and what the console summary says.  Ctrl-C during play keeps the matches
        finished (``outcome.partial``); the manifest's ``kept_command`` plays exactly them again.

    Raises
    ------
    RunSetupError
        For an empty ``out`` or ``scheduler``.
    nines_sim.strategy.registry.StrategyNotFound
        For a ``skilled`` or ``weak`` that names no strategy (before any match).
    nines_sim.runs.ranges.RangesError
        For ``ranges`` that cannot be read within ``matches``.
    nines_sim.runs.output.OutputExists
        If ``out`` holds files (without ``force``) or cannot be written.
    nines_sim.runs.cluster.ClusterError
        If the Dask cluster cannot be used.
    nines_sim.engine.broker.IllegalMoveError, nines_sim.engine.broker.StrategyError
        If a strategy fails or plays an illegal move (the folder is left as it was).
    NothingKept
        If Ctrl-C stopped the run before any match was kept (nothing is written).
    """
    from nines_sim.experiments.design.setup import check_design, tournament_sets
    from nines_sim.experiments.extras import design_after, extra_words, keep_design, take_luck

    plan, seed = setup.plan, setup.seed
    check_design(skilled, weak)
    if luck:
        from nines_sim.luck.tournament import check_luck

        check_luck(plan.format, ranges, list(plan.strategies))

    fitted: dict[str, Any] = {}  # --luck: the table's value and the fit's seconds

    def play(client: Any, bar: Any, wanted: list[Range], n_workers: int) -> Any:
        from nines_sim.experiments.tournament.work import run_plan

        start = time.perf_counter()
        walked = _fit_luck(plan, seed, n_workers, luck_fit, fitted, forms, bar) if luck else None
        outcome = run_plan(plan, matches, seed, n_workers, batch_size, save_matches, bar, wanted, chunk_size,
                           meanwhile=_load_writers, client=client, luck=walked)  # fmt: skip
        if luck:  # the run's time is the whole of it: the forms' compile (as compiling), the fit, the traced matches
            fitted["traced"] = outcome.wall_seconds
            outcome.wall_seconds = time.perf_counter() - start
        return outcome

    with ExitStack() as held:  # the folder's lock, until the results are written: one writer at a time
        if luck:  # a first run: its forms compile side by side meanwhile (nines_sim.luck.forms)
            from nines_sim.luck.forms import LuckForms

            forms = held.enter_context(closing(LuckForms(meanwhile=_load_writers)))
        played = play_in_folder("tournament", play, lambda o: o.total_matches, units=len(plan.games),
                                matches=matches, out=out, force=force, workers=workers, ranges=ranges,
                                scheduler=scheduler, quiet=quiet, held=held,
                                after=design_after(lambda: tournament_sets(setup.rules, plan), design, skilled,
                                                   weak, seed, batch_size, quiet))  # fmt: skip
        outcome, wanted = played.outcome, played.wanted
        run = TournamentRun(played.folder, setup, outcome, played.workers, played.compile_seconds,
                            luck_fit=luck_fit if luck else 0)  # fmt: skip
        keep_design(run, played, design)
        run.ratings, run.ratings_stopped = _rate(plan, outcome, seed)  # before the writing, which holds Ctrl-C back

        def luck_of_the_table() -> Any:
            from nines_sim.luck.tournament import table_luck

            assert outcome.luck is not None  # a whole run's
            seconds = fitted["seconds"] + fitted["traced"]
            return table_luck(fitted["value"], outcome.luck.shares, outcome.luck.corrections, luck_fit, seconds)

        take_luck(run, luck, outcome.partial, luck_of_the_table)
        with writing():
            saved = ["--save-matches"] if save_matches else []
            words = extra_words(design, skilled, weak, luck, luck_fit) + saved
            kept_words = extra_words(design, skilled, weak, False, luck_fit) + saved  # a part of the matches: no --luck
            write_tournament(run, matches, wanted, ranges is not None, batch_size, charts, words, kept_words)
    return run


def _fit_luck(plan: Any, seed: int, workers: int, fit_matches: int, fitted: dict[str, Any], forms: Any,
              bar: Any) -> tuple:  # fmt: skip
    """A ``--luck`` table's value fitted on its reserved matches, before its run (which walks each match's luck
    under it as it plays it): into ``fitted`` (``value``, ``seconds``: the fit's, without the compile), and as the
    walk reads it.  It waits first for the forms it needs (:class:`~nines_sim.luck.forms.LuckForms` ``forms``,
    built meanwhile on a first run), which ``bar`` (the run's :class:`~nines_sim.runs.progress.RunProgress`) says
    are compiling and counts in its compile seconds."""
    from nines_sim.luck.compiled import value_factors
    from nines_sim.luck.tournament import fit_table

    forms.ready(bar.compiling)
    start = time.perf_counter()
    game = plan.games[0]
    fitted["value"] = fit_table(game.rules, list(game.lineup), seed, workers, fit_matches)
    fitted["seconds"] = time.perf_counter() - start
    return value_factors(fitted["value"])


def _load_writers() -> None:
    """Import what :func:`_write_tournament` needs (pandas, scipy's distribution functions, the report), so that
    a run can load it while a worker plays (:attr:`nines_sim.runs.backends.Job.meanwhile`)."""
    import pandas  # noqa: F401
    import scipy.special  # noqa: F401 - the intervals' distribution functions (nines_sim.results.stats)

    from nines_sim.experiments.tournament import report as tournament  # noqa: F401
    from nines_sim.runs import output  # noqa: F401


def _rate(plan: Any, outcome: Any, seed: int) -> tuple[Any, bool]:
    """A round robin's or league's ratings (None for the other formats), and whether Ctrl-C stopped their
    bootstrap (then None: the run keeps its results without ratings)."""
    from nines_sim.experiments.tournament.plan import RATED_FORMATS

    if plan.format not in RATED_FORMATS:
        return None, False
    from nines_sim.experiments.tournament.league import (
        ratings_of,  # scipy's optimiser: loaded only where a run is rated
    )

    try:
        return ratings_of(plan, outcome, seed), False
    except KeyboardInterrupt:
        return None, True


def run_tournament(
    lineup: Sequence[str] | None = None,
    *,
    matches: int = 100_000,
    rules: str = "classic",
    rule: Sequence[str] | None = None,
    seed: int = 0,
    out: str | Path | None = None,
    format: str = "table",  # noqa: A002 - the option's name
    players: int | None = None,
    baseline: str | None = None,
    tables: int | None = None,
    force: bool = False,
    charts: bool = True,
    save_matches: bool = False,
    workers: int | None = None,
    batch_size: int = 32768,
    chunk_size: int | None = None,
    ranges: str | None = None,
    scheduler: str | None = None,
    quiet: bool = True,
    design: int = 0,
    skilled: str = "expert",
    weak: str = "random",
) -> Path:
    """Play a tournament and write its run folder, as ``nines tournament`` does; return the folder.

    The arguments are those of :func:`tournament_setup` and :func:`play_tournament`, with the CLI's
    defaults (but no progress bar unless ``quiet=False``).  The CSVs equal, byte for byte, those of
    ``nines tournament`` with the same arguments; ``manifest.json`` holds that command.

    Returns
    -------
    pathlib.Path
        The run folder.

    Raises
    ------
    Exception
        Those of :func:`tournament_setup` and :func:`play_tournament`.
    """
    setup = tournament_setup(lineup, format=format, players=players, rules=rules, rule=rule, baseline=baseline,
                             tables=tables, seed=seed)  # fmt: skip
    return play_tournament(setup, matches=matches, out=out, force=force, charts=charts, save_matches=save_matches,
                           workers=workers, batch_size=batch_size, chunk_size=chunk_size, ranges=ranges,
                           scheduler=scheduler, quiet=quiet, design=design, skilled=skilled,
                           weak=weak).folder  # fmt: skip
