"""``nines review``: every decision of a saved match or a strategy scored against the search."""

from __future__ import annotations

from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    build_rules,
    check_learned_digests,
    check_policy,
    compile_notices,
    cpu_count_default,
    is_folder,
    players_wanted,
    refuse_options,
    run_errors,
    saved_match_path,
)
from nines_sim.cli.options import (
    LearnedDigestsOpt,
    NoChartsOpt,
    PlayersOpt,
    RangesOpt,
    RuleOpt,
    RulesOpt,
    WorkersOpt,
    at_most_max_matches,
    out_option,
)
from nines_sim.runs.ranges import RangesError
from nines_sim.runs.runfolder import ranges_wanted, without_players


def review(
    target: Annotated[
        str, typer.Argument(metavar="TARGET", help="A match saved by 'nines play' (.json), or a strategy to review.")
    ],
    against: Annotated[
        list[str] | None, typer.Option("--against", help="The other seats' strategies (repeatable; default expert).")
    ] = None,
    matches: Annotated[
        int,
        typer.Option("--matches", "-n", min=1, callback=at_most_max_matches, help="Matches to review a strategy over."),
    ] = 200,
    players: PlayersOpt = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the matches.")] = 0,
    samples: Annotated[int, typer.Option("--samples", min=2, max=4096, help="Samples of the hidden cards.")] = 256,
    policy: Annotated[str, typer.Option("--policy", help="Rollout strategy of the search.")] = "expert",
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    out: Annotated[str | None, out_option("Folder for the results (default: a new one in reports/).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite the results in --out.")] = False,
    no_charts: NoChartsOpt = False,
    workers: WorkersOpt = None,
    ranges: RangesOpt = None,
    luck: Annotated[
        bool,
        typer.Option(
            "--luck",
            help="Also each hand's luck and skill per seat in penalty points (a strategy review): "
            "luck_skill.csv, a value fitted on 4,000 reserved matches.",
        ),
    ] = False,
    learned_digests: LearnedDigestsOpt = None,
    ctx: typer.Context = None,  # None: called from Python (nines play's review of its match), no options given
) -> None:
    """Score every decision with a choice against the search: points lost, accuracy, inaccuracies, mistakes, blunders.

    Review a saved match (your decisions) or a strategy over --matches matches at seat 0 against --against.
    Writes review.csv (one row per decision), points_lost.png, report.md and manifest.json ('nines report'
    redraws the folder). Ctrl-C stops within seconds: the finished matches are written, the report is marked
    partial and the manifest gives the command that reviews exactly them again (exit code 130).
    """
    from nines_sim.play import SavedMatchError, load
    from nines_sim.strategy.registry import StrategyNotFound, canonical_spec, make_lineup

    if not target.strip():
        raise usage_error(
            f"TARGET is empty ({target!r}): give a strategy to review or a match saved by 'nines play' (.json)"
        )
    if is_folder(target):  # read as a strategy file it was refused as "a folder, not a .py file"
        raise usage_error(
            f"{target} is a folder: 'nines review' takes a strategy to review or a match saved by 'nines play' "
            f"(.json), not a run folder; a review's folder is redrawn with: nines report {target}"
        )
    check_policy(policy)
    if saved_match_path(target):
        applies = {"target", "samples", "policy", "out", "force", "no_charts", "ranges"}  # (ranges: said below)
        refuse_options(ctx, applies, "a saved match is reviewed as it was played", saved=target)
        try:
            saved = load(target)
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
        if ranges is not None:
            raise usage_error("--ranges picks matches of a strategy review; a saved match is reviewed whole")
        run = None
    else:
        others = list(against or [])
        n = players_wanted(players, rule)[0] or (len(others) + 1 if others else 2)
        if not others:
            others = ["expert"] * (n - 1)
        elif len(others) == 1:
            others = others * (n - 1)
        if len(others) != n - 1:
            raise usage_error(f"{len(others)} --against strategies for a table of {n}: give {n - 1}, or one")
        try:
            specs = [canonical_spec(s) for s in [target, *others]]
            make_lineup(specs)
        except StrategyNotFound as exc:
            raise usage_error(str(exc)) from None
        r = build_rules(rules, without_players(rule), n)
        check_learned_digests(learned_digests, specs, r)
        try:
            run = (specs, r, ranges_wanted(ranges, matches))
        except RangesError as exc:
            raise usage_error(str(exc)) from None
    from contextlib import nullcontext

    from nines_sim.experiments.review.report import partial_line, terminal_lines
    from nines_sim.experiments.review.setup import run_review
    from nines_sim.experiments.review.work import ReviewSetup

    setup = ReviewSetup(samples=samples, policy=policy, luck=luck and run is not None)
    try:
        with run_errors(), compile_notices() if run is None else nullcontext():
            if run is None:
                run_dir, res, table = run_review(setup, out, force, not no_charts, saved=saved, target=target)
            else:
                run_dir, res, table = run_review(setup, out, force, not no_charts, lineup=run[0], rules=run[1],
                                                 matches=matches, seed=seed, ranges=run[2],
                                                 workers=workers or cpu_count_default(), luck=luck)  # fmt: skip
    except SavedMatchError as exc:
        raise usage_error(str(exc)) from None
    for line in terminal_lines(res):
        typer.echo(line)
    if table is not None:
        from nines_sim.luck.review import review_luck_lines

        for line in review_luck_lines(table):
            typer.echo(line)
    files = f"review.csv, report.md{'' if no_charts else ', points_lost.png'}, manifest.json"
    files += ", luck_skill.csv" if table is not None else ""
    typer.echo(f"\nresults in {run_dir} ({files})")
    if (stopped := partial_line(res)) is not None:
        typer.echo(stopped)
        raise typer.Exit(code=130)
