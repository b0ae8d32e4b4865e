"""``nines play``: a match in the terminal against strategies."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import build_rules, players_wanted, refuse_options
from nines_sim.cli.options import RuleOpt, RulesOpt
from nines_sim.runs.runfolder import without_players


def play(
    opponents: Annotated[
        list[str] | None, typer.Argument(help="Strategies at the other seats, in seat order (default: expert).")
    ] = None,
    players: Annotated[
        int | None,
        typer.Option(
            "--players",
            "-p",
            help="Players at the table (2-6).  [default: you and the opponents named; with none named, "
            "the rule set's table size (4 under classic)]",
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the match (default: a new one).")
    ] = None,
    seat: Annotated[int, typer.Option("--seat", min=0, help="Your seat, from 0 (seats run clockwise).")] = 0,
    hands: Annotated[
        int | None, typer.Option("--hands", min=1, help="Play this many hands instead of to the target (S3).")
    ] = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    resume: Annotated[  # not a Path: Typer turns '' into Path('.'), and a blank --resume must not mean a folder
        str | None, typer.Option("--resume", metavar="FILE", help="Go on with a match saved by 'nines play'.")
    ] = None,
    save_to: Annotated[
        str | None,
        typer.Option("--save", metavar="FILE", help="Where to save the match (default: a new file in matches/)."),
    ] = None,
    samples: Annotated[
        int, typer.Option("--samples", min=1, max=4096, help="Samples of the hidden cards for the ? ranking.")
    ] = 256,
    tutor: Annotated[
        float | None,
        typer.Option(
            "--tutor",
            metavar="POINTS",
            min=0.0,
            help="Tutor mode: before a move that loses more than "
            "POINTS penalty points (as 'nines review' measures, with --samples), warn; choose it again to "
            "play it.",
        ),  # fmt: skip
    ] = None,
    ctx: typer.Context = None,  # None: called from Python, no command line
) -> None:
    """Play a match in the terminal against strategies: you hold one seat, they the others.

    Keys: a card's number (or arrows and Enter) plays it; c d h s declare a suit after a 9; p / k play or keep
    a drawn card; ? shows the search's ranking of your legal moves; q saves and quits (exit code 0), Ctrl-C saves
    and stops (exit code 130). With --tutor POINTS, a move that loses more than POINTS is warned about first
    (choose it again to play it). The end of each hand is shown until a key is pressed; on the match's last
    screen r reviews it. The match is saved after every move: 'nines play --resume FILE' goes on,
    'nines replay FILE' shows it, 'nines review FILE' scores your decisions.
    """
    import secrets

    from nines_sim.play import PERSON, SavedMatch, SavedMatchError, load, new_path, save
    from nines_sim.strategy.registry import StrategyNotFound, canonical_spec, make_lineup

    if resume is not None and not str(resume).strip():
        raise usage_error(f"--resume is empty ({resume!r}); give the .json file 'nines play' saved the match in")
    if resume is not None:
        # (its moves are saved into the file it goes on with: no --save either)
        refuse_options(
            ctx, {"resume", "samples", "tutor"}, "--resume goes on with the saved match as it is", saved=resume
        )
        try:
            saved = load(resume)
            check = load(resume)
            from nines_sim.play.driver import run_match  # the engine, once there is a saved match to play through

            if run_match(check).finished:
                where = shlex.quote(str(resume))
                raise usage_error(f"the match in {resume} is over; see it with: nines replay {where}")
        except SavedMatchError as exc:
            raise usage_error(str(exc)) from None
        path = Path(resume)
    else:
        names = list(opponents or [])
        extra = without_players(rule)
        if hands is not None:
            extra.append(f"fixed_hands={hands}")
        n = players_wanted(players, rule)[0] or (len(names) + 1 if names else build_rules(rules, extra).players)
        if not names:
            names = ["expert"] * (n - 1)
        elif len(names) == 1 and n > 2:
            names = names * (n - 1)
        if len(names) != n - 1:
            raise usage_error(f"{len(names)} opponents for a table of {n} players: give {n - 1}, or one for every seat")
        try:
            names = [canonical_spec(s) for s in names]
            make_lineup(names)
        except StrategyNotFound as exc:
            raise usage_error(str(exc)) from None
        r = build_rules(rules, extra, n)
        if seat >= n:
            raise usage_error(f"--seat {seat} is out of range: the seats of a {n}-player table are 0 to {n - 1}")
        names.insert(seat, PERSON)
        saved = SavedMatch(r, secrets.randbits(63) if seed is None else seed, seat, names)
        path = _save_path(save_to) if save_to is not None else new_path()
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise usage_error("nines play needs a terminal (its input and output are not one)")
    from nines_sim.engine.failures import StrategyFailure
    from nines_sim.play.tui import PlayApp

    save(saved, path)
    app_ = PlayApp(saved, path, samples, tutor)
    try:
        app_.run()
        code = app_.return_code or 0  # 130 after Ctrl-C (the app's key), 0 after q
    except KeyboardInterrupt:  # a SIGINT outside the app's raw mode; the file holds every decision made
        code = 130
    where = shlex.quote(str(path))
    if saved.finished:
        from nines_sim.play.screen_text import per_seat

        totals = per_seat(saved.totals or [], saved.lineup, saved.seat)
        typer.echo(f"Match over: totals: {totals}. Saved in {path}; see it with 'nines replay {where}', "
                   f"score your play with 'nines review {where}'.")  # fmt: skip
    elif isinstance(app_.failure, StrategyFailure):  # resumed as it is, it would stop at the same decision again
        typer.echo(f"Match saved in {path}, up to the failure; once the strategy is fixed, go on with: "
                   f"nines play --resume {where}")  # fmt: skip
    else:
        typer.echo(f"Match saved in {path}; go on with: nines play --resume {where}")
    if isinstance(app_.failure, StrategyFailure):  # said in one line, exit code 1, as by every command
        raise app_.failure
    if code:
        raise typer.Exit(code=code)
    if app_.review_asked:  # r on the match's last screen: the review, with the ranking's samples
        from nines_sim.cli.review import review

        typer.echo(f"nines review {where} --samples {max(2, samples)}")
        review(str(path), samples=max(2, samples))


def _save_path(save_to: str) -> Path:
    """``--save`` checked before the table opens (:func:`nines_sim.runs.out_path.check_output_path`), or a usage
    error that says why it cannot be written."""
    from nines_sim.runs.out_path import OutputPathError, check_output_path

    try:
        return check_output_path(save_to, "--save", folder=False, default="a new file in matches/")
    except OutputPathError as exc:
        raise usage_error(str(exc)) from None
