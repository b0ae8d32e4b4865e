"""``nines compare-rules``: one lineup under several rule sets (:mod:`nines_sim.experiments.compare_rules.setup`)."""

from __future__ import annotations

from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    check_design,
    check_learned_digests,
    check_seats,
    luck_fit_checked,
    players_wanted,
    run_errors,
)
from nines_sim.cli.options import (
    RULE_SET_SYNTAX,
    BatchOpt,
    ChunkOpt,
    DesignOpt,
    ForceOpt,
    LearnedDigestsOpt,
    NoChartsOpt,
    OutOpt,
    PlayersOpt,
    QuietOpt,
    RangesOpt,
    SchedulerOpt,
    SeedOpt,
    SkilledOpt,
    StrategiesArg,
    WeakOpt,
    WorkersOpt,
    at_most_max_matches,
)


def compare_rules(
    strategies: StrategiesArg = None,
    rules: Annotated[
        list[str] | None,
        typer.Option(
            "--rules",
            help=f"A rule set: {RULE_SET_SYNTAX}. Repeat: at least two (the first is the reference).",
        ),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option(
            "--rule",
            help="Override one rules option in every rule set (each --rules and each value of --sweep), "
            "key=value (repeatable), e.g. --rule target=50.",
        ),
    ] = None,
    sweep: Annotated[
        str | None,
        typer.Option(
            "--sweep",
            help="One rule set per value: option=v1,v2,... "
            "(e.g. nine_penalty=10,15,20,25,30), on top of the --rules given (default classic).",
        ),
    ] = None,
    players: PlayersOpt = None,
    matches: Annotated[
        int, typer.Option("--matches", "-n", min=1, callback=at_most_max_matches, help="Matches per rule set.")
    ] = 100_000,
    seed: SeedOpt = 0,
    workers: WorkersOpt = None,
    batch_size: BatchOpt = 32768,
    out: OutOpt = None,
    force: ForceOpt = False,
    no_charts: NoChartsOpt = False,
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
            help="Also each paired shift with the luck taken out (AIVAT): each rule set's value "
            "fitted on reserved matches, every match traced again and adjusted; luck.csv.",
        ),
    ] = False,
    luck_fit: Annotated[
        int | None,
        typer.Option(
            "--luck-fit",
            min=2,
            max=1_000_000,
            help="Reserved matches each rule set's value is fitted on (with --luck; default 4,000).",
        ),
    ] = None,
    learned_digests: LearnedDigestsOpt = None,
) -> None:
    """Measure how rule variants change which strategy wins: one lineup under several rule sets.

    Every rule set plays the same seed and match indices (common random
    numbers), so deals coincide wherever deck, players and hand sizes agree,
    and each shift in win rate is tested on paired matches. Ctrl-C stops within a
    second or two and keeps the matches every rule set finished, from each chunk's start.
    """
    from nines_sim.experiments.compare_rules.setup import comparison_setup, play_comparison
    from nines_sim.experiments.design.setup import DESIGN_STOPPED
    from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP
    from nines_sim.game.rules import RulesError
    from nines_sim.strategy.registry import StrategyNotFound, make_lineup

    names = list(strategies or DEFAULT_LINEUP)
    try:
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    check_seats(*players_wanted(players, rule), names, given=bool(strategies))
    try:
        setup = comparison_setup(names, rules=rules, rule=rule, sweep=sweep)
    except (RulesError, StrategyNotFound) as exc:
        raise usage_error(str(exc)) from None
    check_design(skilled, weak)
    check_learned_digests(learned_digests, list(setup.lineup), *(r.rules for r in setup.rule_sets))
    fit = luck_fit_checked(luck, luck_fit, matches, "table", ranges, names)
    with run_errors():
        run = play_comparison(setup, matches=matches, seed=seed, out=out, force=force, charts=not no_charts,
                              workers=workers, batch_size=batch_size, chunk_size=chunk_size, ranges=ranges,
                              scheduler=scheduler, quiet=quiet, design=design, skilled=skilled,
                              weak=weak, luck=luck, luck_fit=fit)  # fmt: skip
    if run.design_stopped:
        typer.echo(DESIGN_STOPPED, err=True)
    for line in run.summary(table=not quiet):
        typer.echo(line)
    if run.outcome.partial or run.design_stopped or run.luck_absent is not None:  # (each said above)
        raise typer.Exit(code=130)
