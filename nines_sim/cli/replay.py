"""``nines replay``: one match turn by turn, from a seed or a file saved by ``nines play``."""

from __future__ import annotations

import shlex
from typing import Annotated

import typer

from nines_sim.cli.app import usage_error
from nines_sim.cli.common import (
    build_rules,
    check_learned_digests,
    check_seats,
    compile_notices,
    interrupted,
    players_wanted,
    refuse_options,
    refuse_run_folder,
    saved_match_path,
)
from nines_sim.cli.options import (
    LearnedDigestsOpt,
    PlayersOpt,
    RuleOpt,
    RulesOpt,
    StrategiesArg,
    at_most_max_match_index,
)
from nines_sim.game.rules import Rules
from nines_sim.runs.runfolder import without_players


def replay(
    strategies: StrategiesArg = None,
    seed: Annotated[int, typer.Option("--seed", min=0, max=2**64 - 1, help="Seed of the run.")] = 0,
    match: Annotated[
        int, typer.Option("--match", "-m", min=0, callback=at_most_max_match_index, help="Index of the match.")
    ] = 0,
    players: PlayersOpt = None,
    rules: RulesOpt = "classic",
    rule: RuleOpt = None,
    learned_digests: LearnedDigestsOpt = None,
    ctx: typer.Context = None,  # None: called from Python, no command line
) -> None:
    """Replay one match turn by turn: deals, moves, draws, declarations, scores.

    Give the lineup as it was seated: for a table, the tournament's strategies;
    for a round-robin game, its two strategies; for a field game, the strategy
    then the baseline copies. The numbers are those of that match in any run
    with the same seed. Hands are numbered from 1 (tie-break hands too) and
    the turns of each hand from 1, as 'nines analyze --hand --turn' counts them.
    Or give a match saved by 'nines play' (a .json file).
    """
    refuse_run_folder(strategies, "replay")
    if strategies and len(strategies) == 1 and saved_match_path(strategies[0]):
        refuse_options(ctx, {"strategies"}, "a saved match is replayed as it was played", saved=strategies[0])
        return replay_saved(strategies[0])
    from nines_sim.experiments.tournament.plan import DEFAULT_LINEUP
    from nines_sim.play.replay import header
    from nines_sim.strategy.registry import StrategyNotFound, canonical_spec, make_lineup

    names = list(strategies or DEFAULT_LINEUP)
    try:
        names = [canonical_spec(s) for s in names]
        make_lineup(names)
    except StrategyNotFound as exc:
        raise usage_error(str(exc)) from None
    check_seats(*players_wanted(players, rule), names, given=bool(strategies))
    r = build_rules(rules, without_players(rule), len(names))
    check_learned_digests(learned_digests, names, r)
    typer.echo(header(r, names, seed, match))
    try:
        with compile_notices():
            _replay_lines(r, names, seed, match)
    except KeyboardInterrupt:
        raise interrupted(f"the replay of match {match} stopped before its end.") from None


def _replay_lines(r: Rules, names: list[str], seed: int, match: int) -> None:
    """Play the match and print it; a strategy's failure printed at its position, exit code 1."""
    from nines_sim.play.replay import ReplayFailure, describe, describe_failure
    from nines_sim.play.replay import replay as play_one

    try:
        events, res = play_one(r, names, seed, match)
    except ReplayFailure as failure:
        for line in describe(failure.events, names) + describe_failure(failure, names):
            typer.echo(line)
        raise failure.error from None  # then said as every command says a strategy's failure (the app's line)
    for line in describe(events, names):
        typer.echo(line)
    typer.echo(
        f"\nregular hands {int(res.hands[0])}, tie-break hands {int(res.tiebreak_hands[0])}, "
        f"final totals {res.totals[0].tolist()}, win shares {res.win_share[0].tolist()}"
    )


def replay_saved(path: str) -> None:
    """``nines replay FILE``: a match saved by ``nines play``, turn by turn (one-line error, exit 2, on a bad file)."""
    from nines_sim.play import SavedMatchError, load

    try:
        saved = load(path)
    except SavedMatchError as exc:  # before the engine loads: a bad file is a usage error, answered at once
        raise usage_error(str(exc)) from None
    from nines_sim.play.driver import run_match
    from nines_sim.play.replay import describe

    try:
        out = run_match(saved)
    except SavedMatchError as exc:
        raise usage_error(str(exc)) from None
    names = saved.lineup
    typer.echo(
        f"Saved match {path}: seed {saved.seed}, {', '.join(f'seat {i} {n}' for i, n in enumerate(names))}; "
        f"rules {saved.rules.preset}"
    )
    for line in describe(out.events, names):
        typer.echo(line)
    if out.finished:
        typer.echo(f"\nfinal totals {out.totals}, win shares {out.win_share}")
    else:
        typer.echo(f"\nthe match stops here, unfinished; go on with: nines play --resume {shlex.quote(path)}")
