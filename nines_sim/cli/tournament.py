"""``nines tournament``: a strategy tournament into a run folder (:mod:`nines_sim.experiments.tournament.setup`)."""

from __future__ import annotations

from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    check_design,
    check_learned_digests,
    check_seats,
    interrupted,
    luck_fit_checked,
    players_wanted,
    run_errors,
)
from nines_sim.cli.options import (
    BatchOpt,
    ChunkOpt,
    DesignOpt,
    ForceOpt,
    Format,
    LearnedDigestsOpt,
    NoChartsOpt,
    OutOpt,
    PlayersOpt,
    QuietOpt,
    RangesOpt,
    RuleOpt,
    RulesOpt,
    SchedulerOpt,
    SeedOpt,
    SkilledOpt,
    StrategiesArg,
    WeakOpt,
    WorkersOpt,
    at_most_max_matches,
)


def tournament(
    strategies: StrategiesArg = None,
    players: PlayersOpt = None,
    matches: Annotated[
        int, typer.Option("--matches", "-n", min=1, callback=at_most_max_matches, help="Matches per game.")
    ] = 100_000,
    seed: SeedOpt = 0,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    fmt: Annotated[
        Format,
        typer.Option(
            "--format",
            help="table: one table in the given seat order; "
            "round-robin: every pair heads-up; field: each strategy against P-1 baselines; "
            "league: --tables tables of --players drawn from the strategies by a balanced schedule. "
            "round-robin and league also rate the strategies (ratings.csv).",
        ),
    ] = Format.table,
    tables: Annotated[
        int | None,
        typer.Option(
            "--tables",
            min=1,
            help="Tables of a league (format league; default: every set of --players strategies once, "
            "at most 200), each playing --matches matches. At most 2,000; enough to seat every strategy and "
            "to join all of them through shared tables.",
        ),
    ] = None,
    baseline: Annotated[
        str | None, typer.Option("--baseline", help="The field's opponents (format field; default random).")
    ] = None,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    out: OutOpt = None,
    force: ForceOpt = False,
    no_charts: NoChartsOpt = False,
    save_matches: Annotated[
        bool, typer.Option("--save-matches", help="Also write matches.csv.gz, one row per match.")
    ] = False,
    quiet: QuietOpt = False,
    scheduler: SchedulerOpt = None,
    ranges: RangesOpt = None,
    chunk_size: ChunkOpt = None,
    design: DesignOpt = 0,
    skilled: SkilledOpt = "expert",
    weak: WeakOpt = "random",
    luck: Annotated[
        bool,
        typer.Option(
            "--luck",
            help="Also take the luck out (AIVAT; --format table): a value fitted on reserved matches, then each "
            "match played in the trace form and its luck walked as it is played (one pass); luck.csv, columns "
            "added to summary.csv, a report section. About 2-2.2 times a plain run's CPU time at 10,000-20,000 "
            "matches, more for longer runs (one more match traced and walked costs about 4 plain ones heads-up, 7 "
            "at 5 seats; the fit's 4,000 reserved matches walked twice).",
        ),
    ] = False,
    luck_fit: Annotated[
        int | None,
        typer.Option(
            "--luck-fit",
            min=2,
            max=1_000_000,
            help="Reserved matches the luck's value is fitted on (with --luck; default 4,000).",
        ),
    ] = None,
    learned_digests: LearnedDigestsOpt = None,
) -> None:
    """Run a strategy tournament and write CSVs, charts and a report under reports/.

    With no arguments: the four heuristics and expert at a 5-seat table, classic rules,
    100,000 matches, seed 0. Ctrl-C stops within a second or two: what finished
    is written, the report is marked partial and the manifest gives the command
    that plays exactly the kept matches again.
    """
    # only what checks the command line: the engine, the tables and the bar load once it is checked
    from nines_sim.experiments.design.setup import DESIGN_STOPPED
    from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP, TournamentError
    from nines_sim.experiments.tournament.setup import play_tournament, tournament_setup
    from nines_sim.game.rules import RulesError
    from nines_sim.strategy.registry import StrategyNotFound, make_lineup

    names = list(strategies or [])
    players, flag = players_wanted(players, rule)
    try:
        make_lineup(names)  # an unknown name is the first thing to say
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    if fmt == Format.table:
        check_seats(players, flag, names or list(DEFAULT_LINEUP), given=bool(names))
    try:
        setup = tournament_setup(names, format=fmt.value, players=players, rules=rules, rule=rule,
                                 baseline=baseline, tables=tables, seed=seed)  # fmt: skip
    except (TournamentError, StrategyNotFound, RulesError) as exc:
        raise usage_error(str(exc)) from None
    check_design(skilled, weak)
    check_learned_digests(learned_digests, [s for g in setup.plan.games for s in g.lineup], setup.plan.games[0].rules)
    fit = luck_fit_checked(luck, luck_fit, matches, fmt.value, ranges, names)
    with run_errors():
        run = play_tournament(setup, matches=matches, out=out, force=force, charts=not no_charts,
                              save_matches=save_matches, workers=workers, batch_size=batch_size,
                              chunk_size=chunk_size, ranges=ranges, scheduler=scheduler, quiet=quiet, design=design,
                              skilled=skilled, weak=weak, luck=luck,
                              luck_fit=fit)  # fmt: skip
    if run.design_stopped:
        typer.echo(DESIGN_STOPPED, err=True)
    for line in run.summary(table=not quiet):
        typer.echo(line)
    if run.outcome.partial or run.design_stopped or run.luck_absent is not None:  # (each said above)
        raise typer.Exit(code=130)
    if run.ratings_stopped:
        raise interrupted("the ratings were not computed; every match played is written (run again to rate them).")
